package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestFitKeepsNarrowTables: a table that fits, and any table at width 0
// (a pipe), come back unchanged.
func TestFitKeepsNarrowTables(t *testing.T) {
	tab := Table{Title: "t", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}
	wide := Table{Header: []string{"a", strings.Repeat("x", 200)}, Rows: [][]string{{"1", "2"}}}
	for _, c := range []struct {
		tab   Table
		width int
	}{{tab, 100}, {tab, 0}, {wide, 0}, {wide, MinFitWidth - 1}} {
		parts, notes := Fit(c.tab, c.width)
		if len(parts) != 1 || len(notes) != 0 || parts[0].Header[1] != c.tab.Header[1] {
			t.Errorf("width %d: got %d parts, %d notes", c.width, len(parts), len(notes))
		}
	}
}

// TestFitSplitsColumns: five columns 10 wide (13 with borders) in 40
// columns: the key column (13) and two more (26) make 40 with the left
// border, so the groups are {1,2}, {3,4}, each led by column 0.
func TestFitSplitsColumns(t *testing.T) {
	h := []string{}
	r := []string{}
	for _, c := range "abcde" {
		h = append(h, strings.Repeat(string(c), 10))
		r = append(r, strings.Repeat("1", 10))
	}
	parts, notes := Fit(Table{Title: "T", Header: h, Rows: [][]string{r}}, 40)
	if len(notes) != 0 || len(parts) != 2 {
		t.Fatalf("got %d parts, %d notes", len(parts), len(notes))
	}
	want := [][]string{{h[0], h[1], h[2]}, {h[0], h[3], h[4]}}
	for i, p := range parts {
		if strings.Join(p.Header, ",") != strings.Join(want[i], ",") {
			t.Errorf("part %d: header %v, want %v", i, p.Header, want[i])
		}
	}
	if parts[0].Title != "T" || parts[1].Title != "(continued)" {
		t.Errorf("titles %q, %q", parts[0].Title, parts[1].Title)
	}
	var b bytes.Buffer
	if err := writeTableWidth(&b, Table{Title: "T", Header: h, Rows: [][]string{r}}, 40); err != nil {
		t.Fatal(err)
	}
	if w := MaxLineWidth(b.String()); w != 40 {
		t.Errorf("widest line %d columns, want 40 (the formula's)\n%s", w, b.String())
	}
}

// TestFitMovesJSONBelow: a long JSON cell becomes "[1]" and a note whose
// lines are the object's fields; the array field, its lines pasted
// together, is the same JSON; the command, its continuations removed, is
// the same command.
func TestFitMovesJSONBelow(t *testing.T) {
	cmd := `printf '%s\n' '{"t":0, "conv":"a b"}' | tailbound solve --trace - --capacity 100 --block-size 1 --xi-tokens 150 --formulation compact`
	obj := map[string]any{"trace": []map[string]any{{"t": 0, "conv": "c0", "prompt": 1}, {"t": 1, "conv": "c1", "prompt": 2}, {"t": 2, "conv": "c2", "prompt": 3}},
		"command": cmd}
	js, _ := json.Marshal(obj) // keys sorted: command, trace
	tab := Table{Header: []string{"claim", "n", "counterexample"}, Rows: [][]string{{"theorem1", "3", string(js)}, {"lemma1", "5", "none"}}}
	parts, notes := Fit(tab, 50)
	if len(parts) != 1 || len(notes) != 1 {
		t.Fatalf("got %d parts, %d notes", len(parts), len(notes))
	}
	if parts[0].Rows[0][2] != "[1]" || parts[0].Rows[1][2] != "none" || tab.Rows[0][2] != string(js) {
		t.Errorf("cells %q %q (the input must not change)", parts[0].Rows[0][2], parts[0].Rows[1][2])
	}
	lines := strings.Split(notes[0], "\n")
	if lines[0] != "[1] theorem1, counterexample:" {
		t.Errorf("note label %q", lines[0])
	}
	var cmdLines, traceLines []string
	for _, l := range lines[1:] {
		if MaxLineWidth(l) > 50 {
			t.Errorf("note line %d wide: %q", MaxLineWidth(l), l)
		}
		switch {
		case strings.HasPrefix(l, "  command: "):
			cmdLines = append(cmdLines, strings.TrimPrefix(l, "  command: "))
		case strings.HasPrefix(l, "  trace: "):
			traceLines = append(traceLines, strings.TrimPrefix(l, "  trace: "))
		case len(traceLines) > 0:
			traceLines = append(traceLines, strings.TrimSpace(l))
		default:
			cmdLines = append(cmdLines, strings.TrimSpace(l))
		}
	}
	if got := strings.ReplaceAll(strings.Join(cmdLines, " "), ` \ `, " "); got != cmd {
		t.Errorf("command\n%q\nwant\n%q", got, cmd)
	}
	trace, _ := json.Marshal(obj["trace"])
	if got := strings.Join(traceLines, ""); got != string(trace) || len(traceLines) < 2 {
		t.Errorf("trace in %d lines %q, want %q", len(traceLines), got, trace)
	}
}

// TestFitWrapsText: a long description wraps within its column, its words
// kept, and the table fits.
func TestFitWrapsText(t *testing.T) {
	desc := strings.Repeat("lorem ipsum dolor ", 12)
	tab := Table{Title: "suites", Header: []string{"suite", "source"}, Rows: [][]string{{"tail-latency", desc}}}
	var b bytes.Buffer
	if err := writeTableWidth(&b, tab, 60); err != nil {
		t.Fatal(err)
	}
	if w := MaxLineWidth(b.String()); w > 60 {
		t.Errorf("widest line %d > 60:\n%s", w, b.String())
	}
	if n := strings.Count(b.String(), "lorem"); n != 12 {
		t.Errorf("%d words lorem, want 12:\n%s", n, b.String())
	}
}

// TestEmitWidth: Emit fits tables only for a Stamped writer with a width.
func TestEmitWidth(t *testing.T) {
	tab := Table{Header: []string{"policy", strings.Repeat("h", 60), strings.Repeat("k", 60)}, Rows: [][]string{{"lru", "1", "2"}}}
	var plain, zero, fitted bytes.Buffer
	for _, c := range []struct {
		w     *bytes.Buffer
		width int
	}{{&zero, 0}, {&fitted, 100}} {
		if err := Emit(&Stamped{Writer: c.w, Width: c.width}, "table", nil, tab); err != nil {
			t.Fatal(err)
		}
	}
	if err := Emit(&plain, "table", nil, tab); err != nil {
		t.Fatal(err)
	}
	if plain.String() != zero.String() || MaxLineWidth(plain.String()) <= 100 {
		t.Errorf("width 0 changed the table:\n%s\n%s", plain.String(), zero.String())
	}
	if MaxLineWidth(fitted.String()) > 100 || !strings.Contains(fitted.String(), "(continued)") {
		t.Errorf("not fitted:\n%s", fitted.String())
	}
}
