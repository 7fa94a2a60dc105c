package prefixtail

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// randomTrace returns n requests of RandomChains (inputs sometimes past
// the chain), interned.
func randomTrace(r *rand.Rand, n, nodes int, block int64) []prefixcache.Req {
	chains, inputs := RandomChains(r, n, nodes, block, true)
	rs := make([]blocktrace.Request, n)
	for i := range rs {
		rs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: inputs[i], Hashes: chains[i], Conv: -1}
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	return reqs
}

func longest(reqs []prefixcache.Req) int {
	m := 0
	for _, q := range reqs {
		m = max(m, len(q.Blocks))
	}
	return m
}

// brute is the optimum by exhaustive search over eviction sequences
// (lp/exhaustive, written from the cache's rules, not the program).
func brute(t *testing.T, reqs []prefixcache.Req, capacity int, block int64, obj Objective) float64 {
	t.Helper()
	v, err := exhaustive.PrefixOptimum(reqs, capacity, func(i, k int) float64 { return obj.Cost(reqs[i].Input, k, block) })
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func randomObjective(r *rand.Rand, kind Kind, block int64) Objective {
	th := float64(r.Int64N(3*block)) + []float64{0, 0.5}[r.IntN(2)]
	if kind == SLO {
		return Objective{Kind: SLO, SLOTokens: th}
	}
	return Objective{Kind: TEL, XiTokens: th}
}

// TestExhaustive checks, on random small chain traces with shared
// prefixes, that the integer program's optimum (gonum branch and bound)
// equals exhaustive search over eviction sequences, that its schedule
// replayed through the cache attains it (Bound errors otherwise), and that
// LP ≤ optimum ≤ every hindsight rule's replay: 1,000 instances per
// objective, capacities from the longest chain up.
func TestExhaustive(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	for _, kind := range []Kind{TEL, SLO} {
		r := rand.New(rand.NewPCG(23, uint64(kind)))
		proven, contended := 0, 0
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
			b, err := p.Bound(context.Background(), Options{IP: gonumlp.Backend{}, LP: gonumlp.Backend{}})
			if err != nil {
				t.Fatalf("%s instance %d: %v", kind, i, err)
			}
			if b.IP == nil || b.IP.Status != "optimal" || b.IP.Value == nil {
				t.Fatalf("%s instance %d: IP %+v", kind, i, b.IP)
			}
			if math.Abs(*b.IP.Value-want) > 1e-6 {
				t.Fatalf("%s instance %d (B=%d, C=%d, %+v): IP optimum %v, exhaustive search %v\n%v", kind, i, block, capacity, obj, *b.IP.Value, want, reqs)
			}
			if !b.Proven || math.Abs(*b.Optimum-want) > 1e-6 {
				t.Fatalf("%s instance %d: bounds %+v, optimum %v", kind, i, b, want)
			}
			if *b.LP.Value > want+1e-6 {
				t.Fatalf("%s instance %d: LP bound %v above the optimum %v", kind, i, *b.LP.Value, want)
			}
			for _, h := range b.Heuristics {
				if h.Value < want-1e-6 {
					t.Fatalf("%s instance %d: %s replays to %v, below the optimum %v", kind, i, h.Rule, h.Value, want)
				}
			}
			if want > b.Heuristics[0].Value-1e-6 {
				proven++
			} else {
				contended++
			}
		}
		// The instances must be ones where the tail optimum differs from the
		// hit optimum's tail somewhere, or the check says little.
		if contended < n/50 {
			t.Errorf("%s: only %d of %d instances where furthest-next-use is not tail-optimal", kind, contended, n)
		}
		t.Logf("%s: %d instances, %d where the hit-optimal schedule is not tail-optimal", kind, n, contended)
	}
}

// TestCapacityFree: the bound that needs no solver equals the cost under a
// cache that never evicts, computed here from the requests alone (a
// request hits the leading blocks of its chain seen before), and lies
// below the LP bound and the optimum; without an LP it is the interval's
// lower end.
func TestCapacityFree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for i := 0; i < 300; i++ {
		block := []int64{1, 2, 4, 16}[r.IntN(4)]
		reqs := randomTrace(r, 6+r.IntN(6), 8+r.IntN(9), block)
		capacity := longest(reqs) + r.IntN(3)
		obj := randomObjective(r, []Kind{TEL, SLO}[i%2], block)
		seen := map[prefixcache.BlockID]bool{}
		want := 0.0
		for _, q := range reqs {
			k := 0
			for k < len(q.Blocks) && seen[q.Blocks[k]] {
				k++
			}
			want += obj.Cost(q.Input, k, block)
			for _, id := range q.Blocks {
				seen[id] = true
			}
		}
		p, err := New(reqs, block, capacity, obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.CapacityFree(); math.Abs(got-want) > 1e-9 {
			t.Fatalf("instance %d (%+v): capacity-free bound %v, never-evicting cache %v", i, obj, got, want)
		}
		noLP, err := p.Bound(context.Background(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if noLP.Lower != want || noLP.LowerFrom != "capacity-free" {
			t.Fatalf("instance %d: without an LP the lower end is %v from %q, want %v from capacity-free", i, noLP.Lower, noLP.LowerFrom, want)
		}
		b, err := p.Bound(context.Background(), Options{LP: gonumlp.Backend{}})
		if err != nil {
			t.Fatal(err)
		}
		if opt := brute(t, reqs, capacity, block, obj); want > *b.LP.Value+1e-6 || *b.LP.Value > opt+1e-6 {
			t.Fatalf("instance %d: capacity-free %v, LP %v, optimum %v: want them in that order", i, want, *b.LP.Value, opt)
		}
	}
}
