package prefixtail

import (
	"context"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// b6 is issue 35's reproducer: six Mooncake requests (block 512 tokens,
// hash ids as chains) at a capacity of 32 blocks, TEL at ξ = 5,000 tokens.
// Its LP relaxation made gonum's simplex cycle for ever.
func b6(t *testing.T) *Problem {
	t.Helper()
	chains := [][]int64{
		{1, 2, 3, 4, 5, 6, 7, 8, 9},
		{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29},
		{10, 11, 30, 31, 32, 33, 34},
		{35, 36, 37, 38, 39},
		{10, 11, 12, 13, 14, 40},
		{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52},
	}
	inputs := []int64{4407, 10229, 3425, 2464, 3069, 11013}
	p, err := New(chainsTrace(t, chains, inputs), 512, 32, Objective{Kind: TEL, XiTokens: 5000})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestB6Ends (issue 35): the pure-Go LP of b6 ends, well within its time
// limit of 5 s plus a grace of 5 s, optimal, with a value between the
// capacity-free bound and the optimum the interval proves (6,122 tokens:
// the cache that never evicts attains it, so capacity-free = optimum). And
// a solve whose context is already done ends at once with TimeLimit.
func TestB6Ends(t *testing.T) {
	p := b6(t)
	prob := p.Program()
	type out struct {
		sol lp.Solution
		err error
	}
	done := make(chan out, 1)
	go func() {
		sol, err := gonumlp.Backend{}.Solve(context.Background(), prob, lp.Options{Relax: true, TimeLimit: 5 * time.Second})
		done <- out{sol, err}
	}()
	select {
	case o := <-done:
		if o.err != nil || o.sol.Status != lp.Optimal {
			t.Fatalf("b6 LP: %v, %v", o.sol.Status, o.err)
		}
		v := p.Value(o.sol.X[:len(p.Cols)])
		if p.CapacityFree() != 6122 || v < 6122-1e-6 || v > 6122+1e-6 {
			t.Fatalf("b6 LP value %v, capacity-free %v; want both 6,122", v, p.CapacityFree())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b6 LP: no answer in 10 s (the simplex cycles)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err := gonumlp.Backend{}.Solve(ctx, prob, lp.Options{Relax: true})
	if err != nil || sol.Status != lp.TimeLimit {
		t.Fatalf("cancelled b6 LP: %v, %v; want time-limit", sol.Status, err)
	}
	b, err := p.Bound(context.Background(), Options{LP: gonumlp.Backend{}, Lagrange: &LagrangeOptions{}, TimeLimit: 5 * time.Second})
	if err != nil || !b.Proven || b.Upper != 6122 {
		t.Fatalf("b6 bounds %+v, %v", b, err)
	}
}
