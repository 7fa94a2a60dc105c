package report

import (
	"bytes"
	"math"
	"testing"
)

// A table built with Add shows the same text as one built from F, I and
// Pct, and writes its cells to CSV at full precision: 1/3 as the shortest
// form that parses back to 1/3, a percentage as its fraction.
func TestAddWritesFullPrecision(t *testing.T) {
	var built Table
	built.Header = []string{"policy", "TTFT (ms)", "hits", "improvement", "gap (tokens)"}
	third := 1.0 / 3
	built.Add(CellText("lru"), CellF(third, 2), CellI(7), CellPct(0.123456), CellFV(nil, 1))
	built.Add(CellText("tlru"), CellF(math.NaN(), 2), CellI(-1), CellPct(math.Inf(1)), CellFV(&third, 1))
	text := Table{Header: built.Header, Rows: [][]string{
		{"lru", F(third, 2), I(7), Pct(0.123456), FV(nil, 1)},
		{"tlru", F(math.NaN(), 2), I(-1), Pct(math.Inf(1)), FV(&third, 1)},
	}}
	for _, format := range []string{"table", "markdown"} {
		var a, b bytes.Buffer
		if err := Emit(&a, format, nil, built); err != nil {
			t.Fatal(err)
		}
		if err := Emit(&b, format, nil, text); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: Add shows\n%s\nwhere text rows show\n%s", format, a.String(), b.String())
		}
	}
	var buf bytes.Buffer
	if err := Emit(&buf, "csv", nil, built); err != nil {
		t.Fatal(err)
	}
	want := "policy,TTFT (ms),hits,improvement (fraction),gap (tokens)\n" +
		"lru,0.3333333333333333,7,0.123456,\n" +
		"tlru,,-1,inf,0.3333333333333333\n"
	if buf.String() != want {
		t.Errorf("csv got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A table mixing rows appended as text with rows added as cells falls
// back to reading every cell from its text.
func TestAddMixedFallsBack(t *testing.T) {
	tb := Table{Header: []string{"policy", "share"}, Rows: [][]string{{"lru", "50.0%"}}}
	tb.Add(CellText("tlru"), CellPct(0.25))
	var buf bytes.Buffer
	if err := Emit(&buf, "csv", nil, tb); err != nil {
		t.Fatal(err)
	}
	if want := "policy,share (fraction)\nlru,0.5\ntlru,0.25\n"; buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// CellCount shows a count with its share and writes the count; CellNone
// writes nothing; CellAs and CellFracAs write the value their own text
// shows, at full precision (2/3 shown "66.67%" is the fraction 2/3). Plain
// numbers have an exponent only where encoding/json writes one (below
// 1e-6 or from 1e21 on).
func TestCellsOfOwnFormat(t *testing.T) {
	twoThirds := 2.0 / 3
	cases := []struct {
		c           Cell
		text, plain string
		frac        bool
	}{
		{CellCount(3, 0.015), "3 (1.5%)", "3", false},
		{CellCount(0, 0), "0 (0.0%)", "0", false},
		{CellNone("n/a (baseline 0)"), "n/a (baseline 0)", "", false},
		{CellAs("∞ (opt 0)", math.Inf(1)), "∞ (opt 0)", "inf", false},
		{CellAs("0.667", twoThirds), "0.667", "0.6666666666666666", false},
		{CellFracAs("66.67%", twoThirds), "66.67%", "0.6666666666666666", true},
		{CellF(38721966, 1), "38721966.0", "38721966", false},
		{CellF(-1234567.25, 0), "-1234567", "-1234567.25", false},
		{CellF(1e21, 0), "1000000000000000000000", "1e+21", false},
		{CellF(2.5e-7, 2), "0.00", "2.5e-07", false},
	}
	for _, k := range cases {
		if k.c.Text != k.text || k.c.Plain != k.plain || k.c.Frac != k.frac {
			t.Errorf("got %+v, want text %q plain %q frac %v", k.c, k.text, k.plain, k.frac)
		}
	}
}

// A column of intervals shows "mean ± half" and is written to CSV as two
// columns, the means and the half-widths (header + " ±95%"), unrounded:
// 1/3 ± 1/6 shown with 2 decimals; a row with no interval leaves both
// empty, and a table with no interval has no Half.
func TestCellCISplitsColumn(t *testing.T) {
	var tb Table
	tb.Header = []string{"policy", "TEL (tokens)", "gap"}
	tb.Add(CellText("lru"), CellCI(1.0/3, 1.0/6, 2), CellPct(0.5))
	tb.Add(CellText("tlru"), CellNone("n/a"), CellPct(0.25))
	if got := tb.Rows[0][1]; got != "0.33 ± 0.17" {
		t.Errorf("shown %q, want 0.33 ± 0.17", got)
	}
	var buf bytes.Buffer
	if err := Emit(&buf, "csv", nil, tb); err != nil {
		t.Fatal(err)
	}
	want := "policy,TEL (tokens),TEL (tokens) ±95%,gap (fraction)\n" +
		"lru,0.3333333333333333,0.16666666666666666,0.5\n" +
		"tlru,,,0.25\n"
	if buf.String() != want {
		t.Errorf("csv got\n%s\nwant\n%s", buf.String(), want)
	}
	// The interval may come after rows without one.
	var late Table
	late.Header = tb.Header
	late.Add(CellText("tlru"), CellNone("n/a"), CellPct(0.25))
	late.Add(CellText("lru"), CellCI(1.0/3, 1.0/6, 2), CellPct(0.5))
	buf.Reset()
	if err := Emit(&buf, "csv", nil, late); err != nil {
		t.Fatal(err)
	}
	want = "policy,TEL (tokens),TEL (tokens) ±95%,gap (fraction)\n" +
		"tlru,,,0.25\n" +
		"lru,0.3333333333333333,0.16666666666666666,0.5\n"
	if buf.String() != want {
		t.Errorf("csv got\n%s\nwant\n%s", buf.String(), want)
	}
	var plain Table
	plain.Add(CellText("lru"), CellF(1, 0))
	if plain.Half != nil {
		t.Errorf("a table without intervals has Half %v", plain.Half)
	}
}
