package mcf

import (
	"context"
	"math/rand/v2"
	"testing"
)

// randomSweepLine is a line network of the shape the sweep takes (and
// lp.SolveFlow builds): n nodes, the line arcs t→t+1 first (cost 0,
// capacity the cut's, which the supplies make every cut carry), then piece
// arcs a→b of negative cost in order of their end node b, and for one end
// node in order of decreasing savings (increasing cost).
func randomSweepLine(r *rand.Rand) *Network {
	g := randomLineArcs(r)
	n := g.n
	for b := 1; b < n; b++ {
		if r.IntN(3) == 0 {
			continue
		}
		a := max(0, b-1-r.IntN(12))
		w := 1 + r.Int64N(20)
		for k := 1 + r.IntN(3); k > 0 && w > 0; k-- {
			g.AddArc(a, b, r.Int64N(4), -w)
			w -= 1 + r.Int64N(5)
		}
	}
	return g
}

// TestSweepLines: on random line networks of the sweep's shape the sweep
// reaches the network simplex's optimum with a feasible flow.
func TestSweepLines(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for i := 0; i < 1000; i++ {
		g := randomSweepLine(r)
		flow, stats, err := g.Solve(context.Background(), Sweep)
		if err != nil {
			t.Fatalf("line %d: %v (%s)", i, err, stats)
		}
		if err := balanced(g, flow); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got, want := g.Cost(flow), simplexCost(t, g); got != want {
			t.Fatalf("line %d: sweep cost %d, network simplex %d", i, got, want)
		}
	}
}
