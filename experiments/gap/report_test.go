package gap

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// A threshold-lru row is named with its T; the relative gap is written as
// RelGapText does: 0.25 is "25.00%", a zero optimum with a positive TEL "∞".
func TestSweepTable(t *testing.T) {
	quarter, thr := 0.25, int64(512)
	rows := []Row{{CapacityTokens: 64, XiTokens: 10, Policy: "lru", TELOptTokens: 4, TELTokens: 5, AbsGapTokens: 1, AbsGapMs: 0.5, RelGap: &quarter},
		{CapacityTokens: 64, XiTokens: 10, Policy: "threshold-lru", ThresholdTokens: &thr, TELTokens: 3, AbsGapTokens: 3, AbsGapMs: 1.5, OptZero: "infinite"}}
	tbl := SweepTable("t.jsonl", 16, false, rows)
	want := [][]string{{"64", "10.00", "lru", "4.00", "5.00", "1.00", "0.50", "25.00%"},
		{"64", "10.00", "threshold-lru(T=512)", "0.00", "3.00", "3.00", "1.50", "∞ (opt 0)"}}
	for i, w := range want {
		if !slices.Equal(tbl.Rows[i], w) {
			t.Errorf("row %d: %v, want %v", i, tbl.Rows[i], w)
		}
	}
}

// Missing values show as "—", each disagreement and note gets a row of its
// own, and a best point found is listed only when there is one.
func TestReportTables(t *testing.T) {
	opt := 12.5
	r := &Report{TELOptTokens: &opt, Disagreements: []string{"x ≠ y"}, Notes: []string{"n1", "n2"}, Conditions: []lp.Condition{{Name: "c", Text: "t"}}}
	ts := r.Tables(&lp.Instance{})
	rows := map[string][]string{}
	for _, row := range ts[0].Rows {
		rows[row[0]] = append(rows[row[0]], row[1])
	}
	if got := rows["TEL optimum (tokens)"]; !slices.Equal(got, []string{"12.500"}) {
		t.Errorf("optimum %v", got)
	}
	if got := rows["LP bound (tokens)"]; !slices.Equal(got, []string{"—"}) {
		t.Errorf("absent LP bound %v", got)
	}
	if !slices.Equal(rows["DISAGREEMENT"], []string{"x ≠ y"}) || !slices.Equal(rows["note"], []string{"n1", "n2"}) {
		t.Errorf("disagreements %v, notes %v", rows["DISAGREEMENT"], rows["note"])
	}
	if _, ok := rows["best integer point found, not proven optimal (tokens)"]; ok {
		t.Error("a best-found row without a best point")
	}
	if len(ts) != 2 || !slices.Equal(ts[1].Rows[0], []string{"c", "t"}) {
		t.Errorf("conditions table %v", ts)
	}
}
