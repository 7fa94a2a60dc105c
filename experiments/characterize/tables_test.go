package characterize

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/importer"
)

// The summary and capacity tables carry the report's figures as given; one
// reuse row per category plus the overall one; one hub row per hub. CSV
// writes them unrounded: the ideal hit ratio 1 − 4/9 = 5/9, shown 0.5556,
// is 0.5555555555555556.
func TestTables(t *testing.T) {
	r := &Report{Requests: 3, SpanS: 1.5, BlockTokens: 16, RefBlocks: 9, DistinctBlocks: 4, IdealHitRatio: ptr(5.0 / 9),
		SharedPrefixBlocks: 2, Categories: []Category{{Name: "text"}, {Name: "search"}}, Overall: Category{Name: "all"},
		Hubs: []Hub{{Depth: 1}}}
	r.Capacity.PeakLiveBlocks, r.Capacity.PeakLiveTokens = 3, 48
	ts := r.Tables("t.jsonl", importer.Summary{Linked: 2, Conversations: 1}, "qwen2-7b", 0.5)
	if len(ts) != 5 {
		t.Fatalf("%d tables, want 5", len(ts))
	}
	if want := []string{"3", "1.500", "16", "9", "4", "0.5556", "2", "1", "2"}; !slices.Equal(ts[0].Rows[0], want) {
		t.Errorf("summary %v, want %v", ts[0].Rows[0], want)
	}
	if got := ts[1].Rows[0][:3]; !slices.Equal(got, []string{"3", "48", "0.5"}) {
		t.Errorf("capacity %v", got)
	}
	if len(ts[2].Rows) != 3 || ts[2].Rows[2][0] != "all" || len(ts[4].Rows) != 1 {
		t.Errorf("reuse rows %d (last %q), hub rows %d", len(ts[2].Rows), ts[2].Rows[2][0], len(ts[4].Rows))
	}
	var buf bytes.Buffer
	if err := report.Emit(&buf, "csv", nil, ts[0]); err != nil {
		t.Fatal(err)
	}
	want := "requests,span (s),block (tokens),block refs (blocks),distinct (blocks),ideal block hit ratio,linked (requests),conversations,shared prefix (blocks)\n" +
		"3,1.5,16,9,4,0.5555555555555556,2,1,2\n"
	if buf.String() != want {
		t.Errorf("summary CSV\n%s\nwant\n%s", buf.String(), want)
	}
}

func ptr(x float64) *float64 { return &x }
