package seeds

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
)

// TestTQuantile975 checks the multiplier against the printed t table.
func TestTQuantile975(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {2, 4.303}, {4, 2.776}, {9, 2.262}, {29, 2.045}} {
		if got := TQuantile975(c.df); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("t(%d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
}

// TestInterval: xs = 1…5 has mean 3, s = √2.5, half-width t₄·s/√5.
func TestInterval(t *testing.T) {
	m, h := Interval([]float64{1, 2, 3, 4, 5})
	if m != 3 || math.Abs(h-2.776445*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-5 {
		t.Errorf("Interval = %v ± %v, want 3 ± 1.9632", m, h)
	}
	if m, h := Interval([]float64{7}); m != 7 || h != 0 {
		t.Errorf("one value: %v ± %v, want 7 ± 0", m, h)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in    string
		first uint64
		want  []uint64
		bad   bool
	}{
		{"3", 1, []uint64{1, 2, 3}, false},
		{"2", 7, []uint64{7, 8}, false},
		{"4-6", 1, []uint64{4, 5, 6}, false},
		{"5-5", 1, []uint64{5}, false},
		{"0", 1, nil, true},
		{"6-4", 1, nil, true},
		{"x", 1, nil, true},
	} {
		got, err := Parse(c.in, c.first)
		if (err != nil) != c.bad || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q, %d) = %v, %v", c.in, c.first, got, err)
		}
	}
}

func TestCell(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"lru", "lru"}, "lru"},
		{[]string{"1.0", "3.0"}, "2.0 ± 12.7"},                     // t₁·√2/√2 = 12.706
		{[]string{"10 (1.5%)", "12 (1.5%)"}, "11.0 ± 12.7 (1.5%)"}, // equal share stays
		{[]string{"P90 1.25", "P90 1.75"}, "P90 1.50 ± 3.18"},
		{[]string{"n/a", "3.0"}, "n/a | 3.0"},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCSVColumns(t *testing.T) {
	in := []report.Table{{Header: []string{"policy", "TEL", "SLO"}, Rows: [][]string{
		{"lru", "2.0 ± 0.5", "11.0 ± 1.0 (1.5 ± 0.2%)"}, {"tlru", "3.0", "4 (1.0%)"}}}}
	got := CSVColumns(in)[0]
	want := report.Table{Header: []string{"policy", "TEL", "TEL ±95%", "SLO", "SLO ±95%"}, Rows: [][]string{
		{"lru", "2.0", "0.5", "11.0 (1.5%)", "1.0 (0.2%)"}, {"tlru", "3.0", "0", "4 (1.0%)", "0 (0%)"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CSVColumns = %+v, want %+v", got, want)
	}
}

func TestDoc(t *testing.T) {
	per := []any{
		map[string]any{"c": 5.0, "x": 1.0, "name": "a", "l": []any{2.0}},
		map[string]any{"c": 5.0, "x": 3.0, "name": "a", "l": []any{4.0}},
	}
	got := Doc(per).(map[string]any)
	if got["c"] != 5.0 || got["name"] != "a" {
		t.Errorf("agreeing values changed: %v", got)
	}
	e := got["x"].(Estimate)
	if e.Mean != 2 || math.Abs(e.High-2-12.7062) > 1e-3 || !reflect.DeepEqual(e.PerSeed, []float64{1, 3}) {
		t.Errorf("x = %+v", e)
	}
}

// TestRunOrder: results come back in seed order whatever the scheduling.
func TestRunOrder(t *testing.T) {
	got, err := Run([]uint64{5, 1, 9, 2}, 3, func(s uint64) (string, error) { return fmt.Sprint(s), nil })
	if err != nil || !reflect.DeepEqual(got, []string{"5", "1", "9", "2"}) {
		t.Errorf("Run = %v, %v", got, err)
	}
	if _, err := Run([]uint64{1, 2}, 2, func(s uint64) (int, error) { return 0, fmt.Errorf("boom %d", s) }); err == nil {
		t.Error("Run: want an error")
	}
}

// Tables built with Add are summarized from their full-precision cells:
// 1/3 and 2/3, shown 0.33 and 0.67, have mean 1/2 and sample deviation
// √2/6, so the half-width is t(0.975, 1)·(√2/6)/√2 = 12.7062/6 = 2.1177 —
// not the 2.16 the rounded cells would give. Percentages (fractions 0.1
// and 0.3) are averaged as fractions and shown ×100; a label and an equal
// value pass through; CSV carries the unrounded mean and half-width.
func TestTablesFromPlain(t *testing.T) {
	seedTable := func(x, frac float64) report.Table {
		var tb report.Table
		tb.Header = []string{"policy", "TEL", "share", "C"}
		tb.Add(report.CellText("lru"), report.CellF(x, 2), report.CellPct(frac), report.CellI(64))
		return tb
	}
	got, err := Tables([][]report.Table{{seedTable(1.0/3, 0.1)}, {seedTable(2.0/3, 0.3)}}, "")
	if err != nil {
		t.Fatal(err)
	}
	half := TQuantile975(1) / 6
	wantRow := []string{"lru", "0.50 ± " + report.F(half, 2), "20.0 ± " + report.F(100*TQuantile975(1)*math.Sqrt(0.02)/math.Sqrt(2), 1) + "%", "64"}
	if !reflect.DeepEqual(got[0].Rows[0], wantRow) {
		t.Errorf("row %q, want %q", got[0].Rows[0], wantRow)
	}
	if s := report.F(half, 2); s != "2.12" {
		t.Errorf("half-width %s, want 2.12 (hand value)", s)
	}
	var buf bytes.Buffer
	if err := report.Emit(&buf, "csv", nil, CSVColumns(got)...); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if lines[0] != "policy,TEL,TEL ±95%,share (fraction),share (fraction) ±95%,C" {
		t.Errorf("header %q", lines[0])
	}
	fields := strings.Split(lines[1], ",")
	if m, _ := strconv.ParseFloat(fields[1], 64); math.Abs(m-0.5) > 1e-15 {
		t.Errorf("CSV mean %s, want 0.5", fields[1])
	}
	if h, _ := strconv.ParseFloat(fields[2], 64); math.Abs(h-half) > 1e-12 {
		t.Errorf("CSV half-width %s, want %v", fields[2], half)
	}
	if m, _ := strconv.ParseFloat(fields[3], 64); math.Abs(m-0.2) > 1e-15 {
		t.Errorf("CSV share %s, want 0.2", fields[3])
	}
}
