package prefixtail

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// chainsTrace interns chains (block hashes) with inputs (tokens).
func chainsTrace(t testing.TB, chains [][]int64, inputs []int64) []prefixcache.Req {
	t.Helper()
	rs := make([]blocktrace.Request, len(chains))
	for i := range rs {
		rs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: inputs[i], Hashes: chains[i], Conv: -1}
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// lpBackend is CLP in a coin build, else gonum's simplex.
func lpBackend(t testing.TB) lp.Backend {
	if solvers.Coin() {
		b, err := solvers.Backend("clp")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return gonumlp.Backend{}
}

// TestLagrangianHandWorked: B = 1 token, ξ = 0 (TEL = uncached tokens).
// Chains [a], [b], [a] of 1 token each at capacity 1 block: request 1's
// chain fills the cache, so a is gone at request 2 and every request
// misses its token: the optimum is 3. The cache that never evicts hits a
// at request 2 (capacity-free bound 2); the Lagrangian's packing at μ = 0
// has capacity 0 at request 1, so it keeps nothing: 3, the optimum.
func TestLagrangianHandWorked(t *testing.T) {
	reqs := chainsTrace(t, [][]int64{{1}, {2}, {1}}, []int64{1, 1, 1})
	p, err := New(reqs, 1, 1, Objective{Kind: TEL, XiTokens: 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.CapacityFree(); got != 2 {
		t.Fatalf("capacity-free %v, want 2", got)
	}
	lg, err := p.Lagrangian(context.Background(), LagrangeOptions{Upper: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lg.Lower-3) > 1e-6 {
		t.Fatalf("Lagrangian bound %v, want the optimum 3", lg.Lower)
	}
}

// TestLagrangianBrackets: on random small chain traces, for TEL and SLO
// and for 1, 2 (the default) and 25 inner solves (the subgradient search
// moves the multipliers far from the starts, and every multiplier ≥ 0 must
// give a valid bound), capacity-free ≤ Lagrangian ≤ the LP relaxation
// (gonum's simplex here, CLP in a coin build) ≤ the optimum by exhaustive
// search over eviction sequences; and Bound with the Lagrangian is a valid
// interval around that optimum. Tolerance 10^−6 (the bound's own slack is
// 10^−9 relative).
func TestLagrangianBrackets(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	be := lpBackend(t)
	for _, kind := range []Kind{TEL, SLO} {
		r := rand.New(rand.NewPCG(41, uint64(kind)))
		above := 0
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
			b, err := p.Bound(context.Background(), Options{LP: be})
			if err != nil {
				t.Fatal(err)
			}
			lpv := *b.LP.Value
			for _, iters := range []int{1, 2, 25} {
				lg, err := p.Lagrangian(context.Background(), LagrangeOptions{Iterations: iters, Upper: math.Inf(1)})
				if err != nil {
					t.Fatal(err)
				}
				if lg.Lower < p.CapacityFree()-1e-6 || lg.Lower > lpv+1e-6 || lg.Lower > want+1e-6 {
					t.Fatalf("%s instance %d, %d solves: capacity-free %v, Lagrangian %v, LP %v, optimum %v: want them in that order\n%v",
						kind, i, iters, p.CapacityFree(), lg.Lower, lpv, want, reqs)
				}
				if lg.Lower > p.CapacityFree()+1e-6 {
					above++
				}
			}
			bl, err := p.Bound(context.Background(), Options{Lagrange: &LagrangeOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			if bl.Lower > want+1e-6 || bl.Upper < want-1e-6 {
				t.Fatalf("%s instance %d: interval [%v, %v] misses the optimum %v", kind, i, bl.Lower, bl.Upper, want)
			}
		}
		// The capacity rows must bind on some instances, or the comparison
		// with the capacity-free bound says little.
		if above < n/10 {
			t.Errorf("%s: the Lagrangian beat the capacity-free bound on only %d of %d runs", kind, above, 3*n)
		}
		t.Logf("%s: Lagrangian above the capacity-free bound on %d of %d runs", kind, above, 3*n)
	}
}

// TestLagrangianTimeLimit: a search stopped by its context returns a
// valid bound (at least the capacity-free one) with status time-limit,
// promptly.
func TestLagrangianTimeLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	reqs := randomTrace(r, 60, 40, 4)
	p, err := New(reqs, 4, longest(reqs)+2, Objective{Kind: SLO, SLOTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	lg, err := p.Lagrangian(ctx, LagrangeOptions{Iterations: 1000, Upper: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	if lg.Status != "time-limit" || lg.Lower < p.CapacityFree()-1e-9 || time.Since(start) > time.Second {
		t.Fatalf("cancelled search: status %q, bound %v (capacity-free %v), %v", lg.Status, lg.Lower, p.CapacityFree(), time.Since(start))
	}
}

// ExampleProblem_Lagrangian bounds the worked example of
// TestLagrangianHandWorked: the capacity-free bound is 2 uncached
// tokens, the Lagrangian bound 3, the optimum.
func ExampleProblem_Lagrangian() {
	rs := []blocktrace.Request{
		{Index: 0, Input: 1, Hashes: []int64{1}, Conv: -1},
		{Index: 1, Time: 1, Input: 1, Hashes: []int64{2}, Conv: -1},
		{Index: 2, Time: 2, Input: 1, Hashes: []int64{1}, Conv: -1},
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	p, err := New(reqs, 1, 1, Objective{Kind: TEL, XiTokens: 0})
	if err != nil {
		panic(err)
	}
	lg, err := p.Lagrangian(context.Background(), LagrangeOptions{Upper: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	fmt.Printf("capacity-free %.0f tokens, Lagrangian %.0f tokens\n", p.CapacityFree(), lg.Lower)
	// Output: capacity-free 2 tokens, Lagrangian 3 tokens
}

// TestLagrangianBelowCLP (coin builds): on random traces of 150 requests
// (beyond gonum's simplex, as the Mooncake programs are), capacity-free ≤
// Lagrangian ≤ CLP's LP relaxation ≤ the best replayed schedule, for TEL
// and SLO. Tolerance 10^−6 relative.
func TestLagrangianBelowCLP(t *testing.T) {
	if !solvers.Coin() {
		t.Skip("needs CLP: go test -tags coin")
	}
	be := lpBackend(t)
	r := rand.New(rand.NewPCG(77, 1))
	for i := 0; i < 20; i++ {
		block := []int64{4, 16}[r.IntN(2)]
		reqs := randomTrace(r, 150, 120, block)
		capacity := longest(reqs) + r.IntN(6)
		obj := randomObjective(r, []Kind{TEL, SLO}[i%2], block)
		p, err := New(reqs, block, capacity, obj)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Bound(context.Background(), Options{LP: be})
		if err != nil || b.LP.Value == nil {
			t.Fatalf("instance %d: %v, %+v", i, err, b)
		}
		lg, err := p.Lagrangian(context.Background(), LagrangeOptions{Upper: b.Upper})
		if err != nil {
			t.Fatal(err)
		}
		lpv, eps := *b.LP.Value, 1e-6*max(1, math.Abs(b.Upper))
		if lg.Lower < p.CapacityFree()-eps || lg.Lower > lpv+eps || lpv > b.Upper+eps {
			t.Fatalf("instance %d (%s): capacity-free %v, Lagrangian %v, CLP LP %v, upper %v: want them in that order",
				i, obj.Kind, p.CapacityFree(), lg.Lower, lpv, b.Upper)
		}
	}
}

// BenchmarkLagrangian: the default search (two inner flow solves) on a
// random trace of 2,000 requests over a forest of 1,500 blocks, SLO.
func BenchmarkLagrangian(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 8))
	reqs := randomTrace(r, 2000, 1500, 16)
	p, err := New(reqs, 16, longest(reqs)+20, Objective{Kind: SLO, SLOTokens: 40})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Lagrangian(context.Background(), LagrangeOptions{Upper: math.Inf(1)}); err != nil {
			b.Fatal(err)
		}
	}
}
