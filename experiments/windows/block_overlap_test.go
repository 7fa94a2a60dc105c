package windows_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/lp/prefixtail"
)

// TestBlockShardsOverlap: examples/block/overlap-example.jsonl (one-block
// requests [1] [2] [1] [2] of 512 tokens, C = 1 block, ξ = 200 tokens, SLO
// s = 400 tokens; lp/prefixtail's TestLowerOverlapHandWorked works it
// out: OPT = 1,248 tokens, 4 violations) in two windows: the lower bound
// is 936 tokens (3 violations) without a lower overlap and the optimum
// with one of 1 or 2 requests, the same in one process, as one shard and
// as two, whose runs' parts add up in merge (for SLO the sum of the
// weighted counts is rounded up there). A shard with another overlap is
// refused, naming lower_overlap_requests; without an overlap the key is
// not in the file at all (so such files are as before). Each window is
// solved exactly (the gonum IP), so the figures are the hand-worked ones.
func TestBlockShardsOverlap(t *testing.T) {
	c := blockCommand()
	c.Trace, c.Capacities = filepath.Join("..", "..", "examples", "block", "overlap-example.jsonl"), "512"
	c.IPSolver = "gonum" // each window's exact weighted optimum, not the Lagrangian's bound below it by its 10⁻⁹ slack
	for _, tc := range []struct {
		objective string
		overlap   int
		lower     string
	}{
		{"tel", 0, `"lower_bound": 936`}, {"tel", 1, `"lower_bound": 1248`}, {"tel", 2, `"lower_bound": 1248`},
		{"slo", 0, `"lower_bound": 3`}, {"slo", 1, `"lower_bound": 4`}, {"slo", 2, `"lower_bound": 4`},
	} {
		c.Objective, c.SLOTokens, c.LowerOverlapRequests = tc.objective, 400, tc.overlap
		want := oneProcessCSV(t, c)
		if _, got := blockShards(t, c, 1); got != want {
			t.Fatalf("%s overlap %d: one shard merged:\n%s\none process:\n%s", tc.objective, tc.overlap, got, want)
		}
		f, _ := blockShards(t, c, 2)
		if _, has := f.Options.Params["lower_overlap_requests"]; has != (tc.overlap > 0) {
			t.Fatalf("overlap %d: settings %v", tc.overlap, f.Options.Params)
		}
		var j bytes.Buffer
		if err := windows.RenderBlock(&j, f, "json"); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{tc.lower, `"runs": 2`} {
			if !strings.Contains(j.String(), s+",") && !strings.Contains(j.String(), s+"\n") {
				t.Fatalf("%s overlap %d: no %s in\n%s", tc.objective, tc.overlap, s, j.String())
			}
		}
	}
	for _, pair := range [][2]int{{1, 0}, {1, 2}} {
		a, b := c, c
		a.LowerOverlapRequests, a.Shard, a.Out = pair[0], "1/2", filepath.Join(t.TempDir(), "a.json")
		b.LowerOverlapRequests, b.Shard, b.Out = pair[1], "2/2", filepath.Join(t.TempDir(), "b.json")
		for _, x := range []blocktail.Command{a, b} {
			if err := windows.RunBlock(context.Background(), nil, x); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := suite.ReadFiles([]string{a.Out, b.Out}); err == nil || !strings.Contains(err.Error(), "lower_overlap_requests") {
			t.Fatalf("merge of overlaps %d and %d: %v", pair[0], pair[1], err)
		}
	}
	bad := c
	bad.LowerOverlapRequests, bad.Shard, bad.Out = -1, "1/2", filepath.Join(t.TempDir(), "bad.json")
	if err := windows.RunBlock(context.Background(), nil, bad); err == nil || !strings.Contains(err.Error(), "lower-overlap-requests") {
		t.Fatalf("overlap −1: %v", err)
	}
}

// TestBlockShardsOverlapHalf: with the overlap's requests weighted 1/2 in
// each window, shards merge to the one process's output (one shard and
// two), the files name the weighting, a merge of ramp and half shards is
// refused naming lower_overlap_weights, and the weighting without an
// overlap is refused naming its flag.
func TestBlockShardsOverlapHalf(t *testing.T) {
	c := blockCommand()
	c.Trace, c.Capacities = filepath.Join("..", "..", "examples", "block", "overlap-example.jsonl"), "512"
	c.IPSolver = "gonum"
	c.Objective, c.LowerOverlapRequests, c.LowerOverlapWeights = "tel", 2, prefixtail.HalfWeights
	want := oneProcessCSV(t, c)
	if !strings.Contains(want, "(half)") {
		t.Fatalf("the title does not name the weighting:\n%s", want)
	}
	for _, n := range []int{1, 2} {
		f, got := blockShards(t, c, n)
		if n == 1 && got != want {
			t.Fatalf("one shard merged:\n%s\none process:\n%s", got, want)
		}
		if f.Options.Params["lower_overlap_weights"] != "half" {
			t.Fatalf("%d shards: settings %v", n, f.Options.Params)
		}
	}
	a, b := c, c
	a.LowerOverlapWeights, a.Shard, a.Out = prefixtail.RampWeights, "1/2", filepath.Join(t.TempDir(), "a.json")
	b.Shard, b.Out = "2/2", filepath.Join(t.TempDir(), "b.json")
	for _, x := range []blocktail.Command{a, b} {
		if err := windows.RunBlock(context.Background(), nil, x); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := suite.ReadFiles([]string{a.Out, b.Out}); err == nil || !strings.Contains(err.Error(), "lower_overlap_weights") {
		t.Fatalf("merge of ramp and half: %v", err)
	}
	none := c
	none.LowerOverlapRequests, none.Shard, none.Out = 0, "1/2", filepath.Join(t.TempDir(), "none.json")
	if err := windows.RunBlock(context.Background(), nil, none); err == nil || !strings.Contains(err.Error(), "lower-overlap-weights") {
		t.Fatalf("half without an overlap: %v", err)
	}
}
