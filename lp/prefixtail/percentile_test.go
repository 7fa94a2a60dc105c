package prefixtail

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestPercentileExhaustive: on random small chain traces, the interval of
// Percentile (Lagrangian probes; gonum's LP in a second run; Lagrangian
// probes with the local search in a third) contains
// the lowest Q-th percentile of uncached tokens found by exhaustive search
// over eviction sequences, computed independently: the least candidate τ
// at which the fewest violations of b > τ (exhaustive.PrefixOptimum) are at
// most n − objective.Rank(n, Q). Every candidate is an uncached count of
// some request at some hit count, and a τ between two candidates has the
// violations of the lower one, so the least such candidate is the optimum.
func TestPercentileExhaustive(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	r := rand.New(rand.NewPCG(90, 1))
	proven, lines := 0, 0
	for i := 0; i < n; i++ {
		block := []int64{1, 2, 4, 16}[r.IntN(4)]
		reqs := randomTrace(r, 6+r.IntN(6), 8+r.IntN(9), block)
		capacity := longest(reqs) + r.IntN(3)
		q := []float64{50, 75, 90, 99, 33.3}[r.IntN(5)]
		M := len(reqs) - objective.Rank(len(reqs), q)
		var cand []int64
		for _, rq := range reqs {
			for k := 0; k <= len(rq.Blocks); k++ {
				cand = append(cand, Uncached(rq.Input, k, block))
			}
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
		want := int64(-1)
		for _, tau := range cand {
			if brute(t, reqs, capacity, block, Objective{Kind: SLO, SLOTokens: float64(tau)}) <= float64(M) {
				want = tau
				break
			}
		}
		if want < 0 {
			t.Fatalf("instance %d: no candidate achieves P%v", i, q)
		}
		for _, opt := range []Options{{Lagrange: &LagrangeOptions{}}, {LP: lpBackend(t)}, {Lagrange: &LagrangeOptions{}, Local: &LocalOptions{Rounds: 50}}} {
			// every progress line's interval holds the optimum
			opt.Progress = func(what string, done, total int64) {
				var qq float64
				var lo, hi, more int64
				if _, err := fmt.Sscanf(what, "τ probes: P%g in [%d, %d] tokens, ≈%d more", &qq, &lo, &hi, &more); err != nil || qq != q || total != 0 {
					t.Fatalf("instance %d: progress %q, %d of %d", i, what, done, total)
				}
				if lo > want || hi < want {
					t.Fatalf("instance %d: progress %q leaves out the optimum %d", i, what, want)
				}
				lines++
			}
			b, err := Percentile(context.Background(), reqs, block, capacity, q, opt)
			if err != nil {
				t.Fatal(err)
			}
			if b.Lower > float64(want) || b.Upper < float64(want) || b.Proven && b.Upper != float64(want) {
				t.Fatalf("instance %d (B=%d, C=%d, Q=%v): interval [%v, %v] (proven %v), exhaustive optimum %d\n%v",
					i, block, capacity, q, b.Lower, b.Upper, b.Proven, want, reqs)
			}
			if b.Proven {
				proven++
			}
		}
	}
	if proven < n {
		t.Errorf("only %d of %d runs proven: the search decides little", proven, 3*n)
	}
	if lines == 0 {
		t.Error("no τ probe was reported")
	}
	t.Logf("%d of %d runs proven optimal; %d progress lines", proven, 3*n, lines)
}

// ExamplePercentile bounds the lowest p80 of uncached tokens on the
// worked example of docs/block-tail-bounds.md (B = 512 tokens, 4 blocks):
// keeping block 4 over request 2 leaves {1536, 100, 100, 0, 100}, p80 (rank
// 4 of 5) = 100 tokens, where furthest next use keeps block 3 and gets 512.
func ExamplePercentile() {
	rs := []blocktrace.Request{
		{Index: 0, Input: 1536, Hashes: []int64{1, 2, 3}, Conv: -1},
		{Index: 1, Time: 1, Input: 100, Hashes: []int64{4}, Conv: -1},
		{Index: 2, Time: 2, Input: 100, Hashes: []int64{5}, Conv: -1},
		{Index: 3, Time: 3, Input: 100, Hashes: []int64{4}, Conv: -1},
		{Index: 4, Time: 4, Input: 1536, Hashes: []int64{1, 2, 3}, Conv: -1},
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	b, err := Percentile(context.Background(), reqs, 512, 4, 80, Options{Lagrange: &LagrangeOptions{}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("p80 in [%v, %v] tokens, proven %v\n", b.Lower, b.Upper, b.Proven)
	// Output: p80 in [100, 100] tokens, proven true
}
