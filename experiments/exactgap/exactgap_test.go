package exactgap

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/mdp/exact"
)

// Hand-worked rows: a policy 0.5 tokens above an optimum of 2 is 25% off;
// a root between turns has no decision; a zero optimum shows a gap of "0".
// CSV writes the gap unrounded: 1/4 token over an optimum of 3 is 25/3 %.
func TestReport(t *testing.T) {
	in := exact.Default(2, exact.Paper)
	rows := []exact.Row{{Name: "optimum", Value: 2, Decision: []int64{16, 0}, States: 9},
		{Name: "lru", Value: 2.5, Gap: 0.5, States: 7}}
	_, tbl := Report(in, 3, rows)
	want := [][]string{{"optimum", "2.000000000", "0.000000000", "0.0000", "[16 0]", "9"},
		{"lru", "2.500000000", "0.500000000", "25.0000", "none (between turns)", "7"}}
	for i, w := range want {
		if !slices.Equal(tbl.Rows[i], w) {
			t.Errorf("row %d: %v, want %v", i, tbl.Rows[i], w)
		}
	}
	_, tbl = Report(in, 3, []exact.Row{{Name: "optimum", Value: 3}, {Name: "tlru", Value: 3.25, Gap: 0.25}})
	if got, want := tbl.Rows[1][3], "8.3333"; got != want {
		t.Errorf("gap %q, want %q", got, want)
	}
	if got, want := tbl.Plain[1][3], "8.333333333333334"; got != want {
		t.Errorf("CSV gap %q, want %q", got, want)
	}
	_, tbl = Report(in, 3, []exact.Row{{Name: "optimum"}})
	if tbl.Rows[0][3] != "0 (both 0)" {
		t.Errorf("zero optimum: gap %q, want 0 (both 0)", tbl.Rows[0][3])
	}
}

// relGap by hand: 1 token over an optimum of 4 is 25 %; against an
// optimum of 0 a policy that also has 0 has gap 0 and one with 3 tokens
// more has no finite relative gap (it printed 0 before).
func TestRelGap(t *testing.T) {
	for _, c := range []struct {
		gap, opt float64
		text     string
	}{
		{1, 4, "25.0000"}, {0, 4, "0.0000"}, {0, 0, "0 (both 0)"}, {1e-12, 0, "0 (both 0)"}, {3, 0, "∞ (opt 0)"},
	} {
		if got := relGap(c.gap, c.opt).Text; got != c.text {
			t.Errorf("relGap(%v, %v) = %q, want %q", c.gap, c.opt, got, c.text)
		}
	}
}
