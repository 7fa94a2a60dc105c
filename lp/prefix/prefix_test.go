package prefix

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	bprefix "github.com/tailbound/tailbound/belady/prefix"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// ipBackend is CBC in a coin build, else gonum's branch and bound.
func ipBackend(t testing.TB) lp.Backend {
	if solvers.Coin() {
		b, err := solvers.Backend("cbc")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return lp.Gonum{}
}

// lpBackend is CLP in a coin build, else gonum.
func lpBackend(t testing.TB) lp.Backend {
	if solvers.Coin() {
		b, err := solvers.Backend("clp")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return lp.Gonum{}
}

func solve(t testing.TB, reqs []prefixcache.Req, capacity int, be lp.Backend, relax bool) Result {
	t.Helper()
	m, err := Build(reqs, capacity)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Solve(context.Background(), be, relax, lp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != lp.Optimal {
		t.Fatalf("%s (relax %v): status %v (%s)", be.Name(), relax, res.Status, res.Detail)
	}
	return res
}

// TestHandWorked checks instances whose optimum is worked out by hand.
func TestHandWorked(t *testing.T) {
	cases := []struct {
		name     string
		chains   [][]int64
		capacity int
		misses   float64
	}{
		// Three blocks a, b, c alone, capacity 1: every request misses its
		// single block except a at request 1 (q = p+1, always a hit).
		{"consecutive reuse", [][]int64{{1}, {1}, {2}, {3}, {1}}, 1, 4},
		// Capacity 2, single-block chains 1 2 3 1 2: after request 2 the
		// cache holds 3 and one of 1, 2: one of the two reuses hits.
		{"paging", [][]int64{{1}, {2}, {3}, {1}, {2}}, 2, 4},
		// Chains [1 2] [3] [1 2], capacity 2: keeping 2 over request 1
		// needs its parent 1 too, with 3 that is 3 blocks: only 1 hits.
		{"prefix rule", [][]int64{{1, 2}, {3}, {1, 2}}, 2, 4},
		// Same at capacity 3: both hit.
		{"prefix fits", [][]int64{{1, 2}, {3}, {1, 2}}, 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs := chains(t, c.chains...)
			if got := solve(t, reqs, c.capacity, ipBackend(t), false); got.MissBlocks != c.misses {
				t.Errorf("IP misses %v, want %v", got.MissBlocks, c.misses)
			}
			if got := bruteMisses(reqs, c.capacity); float64(got) != c.misses {
				t.Errorf("brute force misses %v, want %v", got, c.misses)
			}
		})
	}
}

// TestIPEqualsBruteForce: the integer program's optimum equals the
// exhaustive search over every cache state on small random chain traces.
func TestIPEqualsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	trials := 60
	if !solvers.Coin() {
		trials = 25
	}
	for trial := 0; trial < trials; trial++ {
		reqs := randomChains(r, 6+r.IntN(8), 6+r.IntN(8))
		c := maxChain(reqs) + r.IntN(4)
		want := bruteMisses(reqs, c)
		got := solve(t, reqs, c, ipBackend(t), false)
		if math.Abs(got.MissBlocks-float64(want)) > 1e-6 {
			t.Fatalf("trial %d, capacity %d: IP misses %v, brute force %d; chains %v", trial, c, got.MissBlocks, want, blocksOf(reqs))
		}
	}
}

func blocksOf(reqs []prefixcache.Req) [][]prefixcache.BlockID {
	out := make([][]prefixcache.BlockID, len(reqs))
	for i, q := range reqs {
		out[i] = q.Blocks
	}
	return out
}

// TestBoundsOrder: LP ≤ IP ≤ the hindsight heuristic and every registered
// block policy, in misses, on random instances.
func TestBoundsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	trials := 40
	if !solvers.Coin() {
		trials = 15
	}
	for trial := 0; trial < trials; trial++ {
		reqs := randomChains(r, 8+r.IntN(10), 8+r.IntN(12))
		c := maxChain(reqs) + r.IntN(5)
		lpRes := solve(t, reqs, c, lpBackend(t), true)
		ip := solve(t, reqs, c, ipBackend(t), false)
		if lpRes.MissBlocks > ip.MissBlocks+1e-6 {
			t.Fatalf("trial %d: LP misses %v > IP %v", trial, lpRes.MissBlocks, ip.MissBlocks)
		}
		hm, _, err := bprefix.Misses(reqs, c)
		if err != nil {
			t.Fatal(err)
		}
		if float64(hm) < ip.MissBlocks-1e-6 {
			t.Fatalf("trial %d: heuristic misses %d < IP %v", trial, hm, ip.MissBlocks)
		}
		for _, e := range prefixcache.All() {
			p, err := e.New(prefixcache.Config{Params: instance.Params{Capacity: int64(c), BlockSize: 1, Xi: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if m := policyMisses(t, reqs, c, p); float64(m) < ip.MissBlocks-1e-6 {
				t.Fatalf("trial %d: %s misses %d < IP %v", trial, e.Name, m, ip.MissBlocks)
			}
		}
	}
}

// TestBeladyIsOptimal: on random instances with contention, belady/prefix
// misses exactly the IP optimum (CBC), and the LP relaxation (CLP) has the
// same value — the theorem in the package comment. (An optimal LP vertex
// may still be fractional: the prefix rows make the matrix non-unimodular;
// only the value is tight.)
func TestBeladyIsOptimal(t *testing.T) {
	trials := 300
	if !solvers.Coin() {
		trials = 20 // gonum: small instances only
	}
	r := rand.New(rand.NewPCG(18, 3))
	for trial := 0; trial < trials; trial++ {
		n, nodes := 10+r.IntN(50), 6+r.IntN(40)
		if !solvers.Coin() {
			n, nodes = 6+r.IntN(8), 6+r.IntN(8)
		}
		reqs := randomChains(r, n, nodes)
		c := maxChain(reqs) + r.IntN(8)
		l := solve(t, reqs, c, lpBackend(t), true)
		ip := solve(t, reqs, c, ipBackend(t), false)
		hm, _, err := bprefix.Misses(reqs, c)
		if err != nil {
			t.Fatal(err)
		}
		if float64(hm) != ip.MissBlocks || math.Abs(l.MissBlocks-ip.MissBlocks) > 1e-6 {
			t.Fatalf("trial %d, capacity %d: belady %d, IP %v, LP %v; chains %v",
				trial, c, hm, ip.MissBlocks, l.MissBlocks, blocksOf(reqs))
		}
	}
}

// TestBuildLPMatchesRelaxation: the merged LP of BuildLP has the optimum of
// the full model's LP relaxation, and merges something on these traces.
func TestBuildLPMatchesRelaxation(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 4))
	trials, merged := 100, 0
	if !solvers.Coin() {
		trials = 15
	}
	for trial := 0; trial < trials; trial++ {
		n, nodes := 10+r.IntN(50), 6+r.IntN(40)
		if !solvers.Coin() {
			n, nodes = 6+r.IntN(8), 6+r.IntN(8)
		}
		reqs := randomChains(r, n, nodes)
		c := maxChain(reqs) + r.IntN(8)
		full := solve(t, reqs, c, lpBackend(t), true)
		m, err := BuildLP(reqs, c)
		if err != nil {
			t.Fatal(err)
		}
		small, err := m.Solve(context.Background(), lpBackend(t), true, lp.Options{})
		if err != nil || small.Status != lp.Optimal {
			t.Fatalf("merged LP: %v %v", small.Status, err)
		}
		if math.Abs(small.MissBlocks-full.MissBlocks) > 1e-6 {
			t.Fatalf("trial %d: merged LP misses %v, full LP %v; chains %v", trial, small.MissBlocks, full.MissBlocks, blocksOf(reqs))
		}
		full2, _ := Build(reqs, c)
		if m.Intervals < full2.Intervals {
			merged++
		}
		if _, err := m.Solve(context.Background(), lpBackend(t), false, lp.Options{}); err == nil {
			t.Fatal("want an error solving the merged model as an integer program")
		}
	}
	if merged == 0 {
		t.Error("no instance had a run to merge; the test checks nothing")
	}
}
