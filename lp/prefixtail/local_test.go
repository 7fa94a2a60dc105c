package prefixtail

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestImproveHandWorked: on the worked example (handTrace: keep block 3
// of the long request, not the short request's block 4) furthest next
// use costs 1,648 tokens of TEL at ξ = 200 and 2 violations at s = 300;
// the local search from it finds the optimum, 1,336 and 1. Block 4's
// interval saves nothing (100 tokens ≤ ξ, ≤ s), so it is no column; the
// one missed saving is block 3's interval (0, 4), which fits beside
// blocks 1 and 2 (3 blocks over requests 1–3, each beside a chain of 1 of
// 4), so the first round keeps it and the replay evicts block 4 instead.
func TestImproveHandWorked(t *testing.T) {
	reqs := handTrace(t)
	for _, c := range []struct {
		obj           Objective
		opt, furthest float64
	}{
		{Objective{Kind: TEL, XiTokens: 200}, 1336, 1648},
		{Objective{Kind: SLO, SLOTokens: 300}, 1, 2},
	} {
		p, err := New(reqs, 512, 4, c.obj)
		if err != nil {
			t.Fatal(err)
		}
		hits, v, err := p.Replay(Furthest, nil)
		if err != nil || v != c.furthest {
			t.Fatalf("%s: furthest next use %v (%v), want %v", c.obj.Kind, v, err, c.furthest)
		}
		sc, err := p.Improve(context.Background(), hits, LocalOptions{Rounds: 20, Target: math.Inf(-1)})
		if err != nil {
			t.Fatal(err)
		}
		got := sc.Cost
		if got != c.opt {
			t.Errorf("%s: local search %v, want the optimum %v", c.obj.Kind, got, c.opt)
		}
	}
}

// TestImproveExhaustive: on random small chain traces (TEL and SLO, B ∈
// {1, 2, 4, 16}, capacities from the longest chain up), the local search
// from furthest next use returns a schedule that (a) keeps the prefix
// rule and every capacity row, checked here from the columns, (b) costs,
// replayed again through the cache, what Improve reports, (c) is never
// above its start and never below the exhaustive optimum (lp/exhaustive,
// written from the cache's rules). It must improve on its start on some
// instances and reach the optimum on most, or the check says little.
func TestImproveExhaustive(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	for _, kind := range []Kind{TEL, SLO} {
		r := rand.New(rand.NewPCG(41, uint64(kind)))
		improved, optimal := 0, 0
		for i := 0; i < n; i++ {
			block := []int64{1, 2, 4, 16}[r.IntN(4)]
			reqs := randomTrace(r, 6+r.IntN(6), 8+r.IntN(9), block)
			capacity := longest(reqs) + r.IntN(3)
			obj := randomObjective(r, kind, block)
			want := brute(t, reqs, capacity, block, obj)
			p, err := New(reqs, block, capacity, obj)
			if err != nil {
				t.Fatal(err)
			}
			hits, start, err := p.Replay(Furthest, nil)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := p.Improve(context.Background(), hits, LocalOptions{Rounds: 200, Seed: uint64(i), Target: math.Inf(-1)})
			if err != nil {
				t.Fatalf("%s instance %d: %v", kind, i, err)
			}
			x, v := sc.Guide, sc.Cost
			checkSchedule(t, p, x)
			if _, again, err := p.Replay(Guided, x); err != nil || math.Abs(again-v) > 1e-9 {
				t.Fatalf("%s instance %d: replayed again %v (%v), Improve said %v", kind, i, again, err, v)
			}
			if v > start+1e-9 || v < want-1e-6 {
				t.Fatalf("%s instance %d: local search %v, start %v, optimum %v", kind, i, v, start, want)
			}
			if v < start-1e-9 {
				improved++
			}
			if v < want+1e-6 {
				optimal++
			}
		}
		t.Logf("%s: %d instances, improved %d, optimal %d", kind, n, improved, optimal)
		if improved < n/50 || optimal < n*9/10 {
			t.Errorf("%s: improved %d and optimal %d of %d", kind, improved, optimal, n)
		}
	}
}

// checkSchedule fails unless the 0/1 x keeps the prefix rule and the
// capacity rows (loads counted from the columns' spans).
func checkSchedule(t *testing.T, p *Problem, x []float64) {
	t.Helper()
	for _, pr := range p.prec {
		if x[pr[0]] > x[pr[1]] {
			t.Fatalf("prefix rule broken: column %d kept, its parent column %d not", pr[0], pr[1])
		}
	}
	load := make([]int, len(p.Reqs))
	for j, iv := range p.Cols {
		if x[j] != 0 && x[j] != 1 {
			t.Fatalf("column %d: %v not 0/1", j, x[j])
		}
		if x[j] == 1 {
			for s := iv.P + 1; s < iv.Q; s++ {
				load[s]++
			}
		}
	}
	for s, l := range load {
		if l > p.CapacityBlocks-len(p.Reqs[s].Blocks) {
			t.Fatalf("request %d: %d kept blocks beside a chain of %d at capacity %d", s, l, len(p.Reqs[s].Blocks), p.CapacityBlocks)
		}
	}
}
