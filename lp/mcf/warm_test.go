package mcf

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// scaledLine is a copy of line network g with every capacity multiplied by
// num/den (rounded down) and supplies that make every cut carry its line
// arc's new capacity: the same nodes, arcs and costs, as the networks of
// one hindsight instance at two capacities are.
func scaledLine(g *Network, num, den int64) *Network {
	h := NewNetwork(g.n)
	var prev int64
	for i := range g.src {
		c := g.cap[i] * num / den
		h.AddArc(int(g.src[i]), int(g.dst[i]), c, g.cost[i])
		if i < g.n-1 {
			h.AddSupply(i, c-prev)
			prev = c
		}
	}
	h.AddSupply(g.n-1, -prev)
	return h
}

// TestSolveWarmNeighbours: on random line networks, a chain of capacity
// scalings (up and down, through zero) each solved by SolveWarm or
// SolveWarmWindows (random windows, many seams) from the
// previous network's optimal prices and flow reaches the network
// simplex's optimum, and the first, solved by SolveWindowsPrices, returns
// prices that certify its flow.
func TestSolveWarmNeighbours(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		base := randomLine(r)
		plan := Plan{Size: 1 + r.IntN(20), Overlap: r.IntN(6)}
		flow, pi, _, err := base.SolveWindowsPrices(context.Background(), plan)
		if err != nil {
			rt.Fatalf("windows: %v", err)
		}
		if err := certify(base, flow, pi); err != nil {
			rt.Fatalf("windows prices: %v", err)
		}
		if got, want := base.Cost(flow), simplexCost(t, base); got != want {
			rt.Fatalf("windows cost %d, network simplex %d", got, want)
		}
		nums := rapid.SliceOfN(rapid.Int64Range(0, 8), 1, 6).Draw(rt, "scales")
		for _, num := range nums {
			g := scaledLine(base, num, 4)
			var hint []int64
			if rapid.Bool().Draw(rt, "hint") {
				hint = flow
			}
			var f, p []int64
			if rapid.Bool().Draw(rt, "windows") {
				f, p, _, err = g.SolveWarmWindows(context.Background(), pi, hint, Plan{Size: 1 + r.IntN(20), Overlap: r.IntN(6)})
			} else {
				f, p, _, err = g.SolveWarm(context.Background(), pi, hint)
			}
			if err != nil {
				rt.Fatalf("warm start at %d/4: %v", num, err)
			}
			if got, want := g.Cost(f), simplexCost(t, g); got != want {
				rt.Fatalf("warm start at %d/4: cost %d, network simplex %d", num, got, want)
			}
			if err := balanced(g, f); err != nil {
				rt.Fatalf("warm start at %d/4: %v", num, err)
			}
			flow, pi = f, p
		}
	})
}

// TestSolveWarmBrute: from random prices and hints, SolveWarm finds the
// enumeration's optimum on small networks of any shape, and ErrInfeasible
// where there is no flow.
func TestSolveWarmBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 2000; i++ {
		g := randomSmall(r)
		pi := make([]int64, g.n)
		for v := range pi {
			pi[v] = r.Int64N(21) - 10
		}
		hint := make([]int64, len(g.src))
		for k := range hint {
			hint[k] = r.Int64N(4) - 1
		}
		want, ok := bruteCost(g)
		flow, _, _, err := g.SolveWarm(context.Background(), pi, hint)
		if !ok {
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("network %d (%+v): warm start gave %v, %v; enumeration: infeasible", i, *g, flow, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("network %d (%+v): %v", i, *g, err)
		}
		if got := g.Cost(flow); got != want {
			t.Fatalf("network %d (%+v): cost %d, enumeration %d", i, *g, got, want)
		}
	}
	if _, _, _, err := NewNetwork(3).SolveWarm(context.Background(), make([]int64, 2), nil); err == nil {
		t.Fatal("prices of the wrong length accepted")
	}
}
