package gap

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"

	"github.com/tailbound/tailbound/lp"
)

// A threshold-lru row is named with its T; the relative gap is written as
// RelGapText does: 0.25 is "25.00%", a zero optimum with a positive TEL "∞",
// both zero "0% (both 0)". CSV writes the values unrounded: a gap of 1/3
// token is 0.3333333333333333, the relative gap 1/12 (shown 8.33%) its
// fraction.
func TestSweepTable(t *testing.T) {
	quarter, twelfth, thr := 0.25, 1.0/12, int64(512)
	rows := []Row{{CapacityTokens: 64, XiTokens: 10, Policy: "lru", TELOptTokens: 4, TELTokens: 5, AbsGapTokens: 1, AbsGapMs: 0.5, RelGap: &quarter},
		{CapacityTokens: 64, XiTokens: 10, Policy: "threshold-lru", ThresholdTokens: &thr, TELTokens: 3, AbsGapTokens: 3, AbsGapMs: 1.5, OptZero: "infinite"},
		{CapacityTokens: 64, XiTokens: 10, Policy: "tlru", TELOptTokens: 4, TELTokens: 4 + 1.0/3, AbsGapTokens: 1.0 / 3, AbsGapMs: 1.0 / 6, RelGap: &twelfth},
		{CapacityTokens: 64, XiTokens: 10, Policy: "fifo", OptZero: "both zero"}}
	tbl := SweepTable("t.jsonl", 16, false, rows)
	want := [][]string{{"64", "10.00", "lru", "4.00", "5.00", "1.00", "0.50", "25.00%"},
		{"64", "10.00", "threshold-lru(T=512)", "0.00", "3.00", "3.00", "1.50", "∞ (opt 0)"},
		{"64", "10.00", "tlru", "4.00", "4.33", "0.33", "0.17", "8.33%"},
		{"64", "10.00", "fifo", "0.00", "0.00", "0.00", "0.00", "0% (both 0)"}}
	for i, w := range want {
		if !slices.Equal(tbl.Rows[i], w) {
			t.Errorf("row %d: %v, want %v", i, tbl.Rows[i], w)
		}
	}
	var buf bytes.Buffer
	if err := report.Emit(&buf, "csv", nil, tbl); err != nil {
		t.Fatal(err)
	}
	wantCSV := "capacity (tokens),ξ (tokens),policy,TEL_opt (tokens),TEL (tokens),gap (tokens),gap (ms),gap (relative) (fraction)\n" +
		"64,10,lru,4,5,1,0.5,0.25\n" +
		"64,10,threshold-lru(T=512),0,3,3,1.5,inf\n" +
		"64,10,tlru,4,4.333333333333333,0.3333333333333333,0.16666666666666666,0.08333333333333333\n" +
		"64,10,fifo,0,0,0,0,0\n"
	if buf.String() != wantCSV {
		t.Errorf("CSV\n%s\nwant\n%s", buf.String(), wantCSV)
	}
}

// Missing values show as "—", each disagreement and note gets a row of its
// own, and a best point found is listed only when there is one.
func TestReportTables(t *testing.T) {
	opt, flow := 12.5, 2.0/3
	r := &Report{TELOptTokens: &opt, FlowTELTokens: &flow, Disagreements: []string{"x ≠ y"}, Notes: []string{"n1", "n2"}, Conditions: []lp.Condition{{Name: "c", Text: "t"}}}
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
	if got := rows["flow cross-check TEL (tokens)"]; !slices.Equal(got, []string{"0.667"}) {
		t.Errorf("flow TEL %v", got)
	}
	// CSV writes 2/3 unrounded and an absent value as an empty cell.
	plain := map[string]string{}
	for _, row := range ts[0].Plain {
		plain[row[0]] = row[1]
	}
	if got := plain["flow cross-check TEL (tokens)"]; got != "0.6666666666666666" {
		t.Errorf("CSV flow TEL %q, want 0.6666666666666666", got)
	}
	if got, ok := plain["LP bound (tokens)"]; !ok || got != "" {
		t.Errorf("CSV absent LP bound %q", got)
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
