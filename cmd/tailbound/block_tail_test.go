package main

import (
	"math"
	"strings"
	"testing"

	proofscheck "github.com/tailbound/tailbound/proofs-check"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TestBlockTailCommands: the command line of a block-tail claim instance
// reproduces the exhaustive optimum through 'solve --level block'.
func TestBlockTailCommands(t *testing.T) {
	for _, name := range []string{"block-tail-ip-tel", "block-tail-ip-slo"} {
		cs, err := proofscheck.Select([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		r := claim.Stream(7, name)
		for i := 0; i < 5; i++ {
			inst := cs[0].Generate(r).(*proofscheck.ChainInstance)
			want, err := inst.Optimum()
			if err != nil {
				t.Fatal(err)
			}
			doc := runPrinted(t, inst.Command())
			got, ok := doc["optimum"].(float64)
			if !ok || math.Abs(got-want) > 1e-6 || doc["proven_optimal"] != true {
				t.Errorf("%s: %s\ngave optimum %v (proven %v), exhaustive search %v", name, inst.Command(), doc["optimum"], doc["proven_optimal"], want)
			}
		}
	}
}

// TestSolveBlockHandWorked: examples/block/tail-example.jsonl (worked out
// in lp/prefixtail's TestHandWorked): TEL optimum 1,336 tokens at ξ = 200,
// where LRU, like furthest next use, evicts block 3 at request 2 and pays
// 1,648; SLO optimum 1 violation at s = 300.
func TestSolveBlockHandWorked(t *testing.T) {
	tr := "../../examples/block/tail-example.jsonl"
	doc := runPrinted(t, "tailbound solve --level block --trace "+tr+" --trace-format mooncake --capacity 2048 --objective tel --xi-tokens 200")
	if doc["optimum"] != 1336.0 || doc["lower_bound"] != 1336.0 || doc["upper_bound"] != 1336.0 || doc["objective"] != "tel" {
		t.Errorf("tel: %v", doc)
	}
	doc = runPrinted(t, "tailbound solve --level block --trace "+tr+" --trace-format mooncake --capacity 2048 --objective slo --slo-tokens 300")
	if doc["optimum"] != 1.0 || doc["proven_optimal"] != true {
		t.Errorf("slo: %v", doc)
	}
	doc = runPrinted(t, "tailbound gap --level block --objective tel --trace "+tr+" --trace-format mooncake --capacities 2048 --xi-tokens 200 --policies lru")
	rows, _ := doc["rows"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["tel_tokens"] != 1648.0 || rows[0].(map[string]any)["above_lower"] != 312.0 {
		t.Errorf("gap rows: %v", doc["rows"])
	}
	// p80 (rank 4 of 5 requests): uncached tokens 1,536 (request 0, all
	// first uses), 100, 100, then request 3 hits [4] (0) or misses it
	// (100) and request 4 misses block 3 (512) or nothing (0), as block 3
	// or 4 is evicted at request 2. Evicting 4 gives {0, 100, 100, 100,
	// 1536}: p80 = 100; evicting 3 (furthest next use) gives {0, 100, 100,
	// 512, 1536}: 512. p90 (rank 5) is 1,536 either way.
	// Two windows (worked out in lp/prefixtail's TestWindowedHandWorked):
	// lower 1,336 (the second window carries the long chain for free),
	// upper 1,648 (the stitched schedule keeps two of its three blocks).
	doc = runPrinted(t, "tailbound solve --level block --trace "+tr+" --trace-format mooncake --capacity 2048 --objective tel --xi-tokens 200 --windows 2")
	if doc["lower_bound"] != 1336.0 || doc["upper_bound"] != 1648.0 || doc["proven_optimal"] != false || doc["windows"] != 2.0 || math.Abs(doc["relative_width"].(float64)-312.0/1648) > 1e-12 {
		t.Errorf("tel, 2 windows: %v", doc)
	}
	doc = runPrinted(t, "tailbound solve --level block --trace "+tr+" --trace-format mooncake --capacity 2048 --objective p80")
	if doc["optimum"] != 100.0 || doc["proven_optimal"] != true || doc["objective"] != "p80" {
		t.Errorf("p80: %v", doc)
	}
	doc = runPrinted(t, "tailbound solve --level block --trace "+tr+" --trace-format mooncake --capacity 2048 --objective p90")
	if doc["optimum"] != 1536.0 || doc["proven_optimal"] != true {
		t.Errorf("p90: %v", doc)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gap", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacities", "2048", "--objective", "p80"}, "p50, p90, p95 or p99"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "1024"}, "exceeds the capacity"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake"}, "--capacity"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "2048", "--slo-ms", "5", "--slo-tokens", "3"}, "slo"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "2048", "--objective", "p90", "--windows", "2"}, "--windows: tel or slo only"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "2048", "--windows", "-1"}, "--windows: want ≥ 1"},
		{[]string{"solve", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "2048", "--windows", "6"}, "windows 6: want 1 … 5"},
	} {
		code, _, errs := runCLI(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want a one-line error containing %q", c.args, code, errs, c.want)
		}
	}
}
