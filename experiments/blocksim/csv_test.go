package blocksim_test

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestCSVFullPrecision: the block level's CSV carries its ratios at full
// precision, as the turn level's does (issue 26: "block hit ratio,0.0475"
// where JSON had 0.04745547…). Worked by hand (B = 16, capacity 64): a
// conversation of prompts 32, 16, 16 references 2 + 3 + 4 = 9 blocks and
// hits 0 + 2 + 3 = 5 of them, 80 of 144 input tokens: both ratios 5/9.
func TestCSVFullPrecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	os.WriteFile(path, []byte(`{"t":0,"conv":"a","prompt":32,"response":0}
{"t":1,"conv":"a","prompt":16,"response":0}
{"t":2,"conv":"a","prompt":16,"response":0}
`), 0o644)
	src, block, f, err := blocksim.Open(path, "canonical", 16)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, _ := prefixcache.Parse("lru")
	opt := blocksim.Options{Params: instance.Params{BlockSize: block, Xi: 20}, Model: latency.Model{AlphaMs: 0.1, BetaMs: 10}, SLOMs: 200}
	results, ideal, err := blocksim.Replay(src, blocksim.SweepRuns(entries, []int64{64}), opt)
	if err != nil {
		t.Fatal(err)
	}
	doc, tables, err := blocksim.Report(results, ideal, opt, blocksim.Labels{Trace: path, TraceFormat: "canonical", Baseline: "lru"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Emit(&b, "csv", doc, tables...); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.FormatFloat(5.0/9, 'f', -1, 64)
	got := map[string]string{}
	for _, r := range recs[1:] { // table, row, column, value
		got[r[0][:5]+"|"+r[2]] = r[3]
	}
	for _, key := range []string{"B=16 |block hit ratio", "B=16 |token hit ratio"} {
		if got[key] != want {
			t.Errorf("%s = %q, want %s (5/9 at full precision)", key, got[key], want)
		}
	}
	found := false
	for k, v := range got {
		if len(k) > 5 && k[6:] == "ideal block hit ratio" {
			found = true
			if v != want {
				t.Errorf("ideal block hit ratio = %q, want %s", v, want)
			}
		}
	}
	if !found {
		t.Errorf("no ideal block hit ratio in %v", got)
	}
}
