package mcf

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// TestPrimalDualAnyPrices: started from random prices and a random hint,
// the primal–dual method reaches the network simplex's optimum, with a
// flow that passes certify.
func TestPrimalDualAnyPrices(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 500; i++ {
		g := randomLine(r)
		pi, hint := randomStart(r, g, 40, 6)
		flow, s, err := solvePD(g, pi, hint, clusterGap)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if err := certify(g, flow, s.pi); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if got, want := g.Cost(flow), simplexCost(t, g); got != want {
			t.Fatalf("instance %d: primal–dual cost %d, network simplex %d", i, got, want)
		}
	}
}

// TestPrimalDualBrute: from random prices and hints, the primal–dual
// method finds the enumeration's optimum on small networks of any shape,
// with a flow that passes certify, and ErrInfeasible where there is no
// flow.
func TestPrimalDualBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 2000; i++ {
		g := randomSmall(r)
		pi, hint := randomStart(r, g, 10, 2)
		want, ok := bruteCost(g)
		flow, s, err := solvePD(g, pi, hint, clusterGap)
		if !ok {
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("network %d (%+v): primal–dual gave %v, %v; enumeration: infeasible", i, *g, flow, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("network %d (%+v): %v", i, *g, err)
		}
		if err := certify(g, flow, s.pi); err != nil {
			t.Fatalf("network %d (%+v): %v", i, *g, err)
		}
		if got := g.Cost(flow); got != want {
			t.Fatalf("network %d (%+v): cost %d, enumeration %d", i, *g, got, want)
		}
	}
}

// randomStart returns start prices for g's nodes, each uniform in
// [−prices, prices], and a flow hint for its arcs, each uniform in
// [−1, flows] (a −1 is clipped to 0 by the method).
func randomStart(r *rand.Rand, g *Network, prices, flows int64) (pi, hint []int64) {
	pi = make([]int64, g.n)
	for v := range pi {
		pi[v] = r.Int64N(2*prices+1) - prices
	}
	hint = make([]int64, len(g.src))
	for k := range hint {
		hint[k] = r.Int64N(flows+2) - 1
	}
	return pi, hint
}

// solvePD runs the primal–dual method on g from prices pi and hint with
// clusters cut at gaps over gap nodes (wholeLine: one cluster), and
// returns its flow (nil and the error when it fails) and its statistics.
func solvePD(g *Network, pi, hint []int64, gap int) ([]int64, *primalDual, error) {
	s := newPrimalDual(g, pi, hint)
	if err := s.solveGap(context.Background(), gap); err != nil {
		return nil, s, err
	}
	flow := make([]int64, len(g.src))
	for k := range flow {
		flow[k] = s.flowOn(k)
	}
	return flow, s, nil
}

// TestClusterRepair: the primal–dual method repairing one cluster of
// excess at a time (clusters cut at random gaps of 0–20 nodes, so one
// network splits into many) reaches the optimum of the network simplex
// and of the whole-line primal–dual method (every round from all the
// excess), from random prices and hints, and its flow passes certify
// against its own prices. On random small networks with any arcs (cycles,
// backward arcs, infeasible supplies) it reports ErrInfeasible exactly
// when enumeration finds no feasible flow.
func TestClusterRepair(t *testing.T) {
	split := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		gap := rapid.IntRange(0, 20).Draw(rt, "gap")
		g := randomLine(r)
		pi := make([]int64, g.n)
		spread := rapid.Int64Range(0, 40).Draw(rt, "spread")
		for v := range pi {
			pi[v] = r.Int64N(2*spread+1) - spread
		}
		hint := make([]int64, len(g.src))
		for k := range hint {
			hint[k] = r.Int64N(8) - 1
		}
		flow, s, err := solvePD(g, pi, hint, gap)
		if err != nil {
			rt.Fatalf("clusters: %v", err)
		}
		if err := certify(g, flow, s.pi); err != nil {
			rt.Fatalf("clusters: %v", err)
		}
		if s.clusters > 1 {
			split++
		}
		whole, _, err := solvePD(g, pi, hint, wholeLine)
		if err != nil {
			rt.Fatalf("whole line: %v", err)
		}
		want := simplexCost(t, g)
		if got, w := g.Cost(flow), g.Cost(whole); got != want || w != want {
			rt.Fatalf("cost by clusters %d, whole line %d, network simplex %d", got, w, want)
		}

		small := randomSmall(r)
		best, ok := bruteCost(small)
		flow, s, err = solvePD(small, nil, nil, rapid.IntRange(0, 3).Draw(rt, "small gap"))
		switch {
		case !ok && !errors.Is(err, ErrInfeasible):
			rt.Fatalf("small network: no feasible flow by enumeration, primal–dual says %v", err)
		case ok && err != nil:
			rt.Fatalf("small network: primal–dual failed (%v), enumeration found cost %d", err, best)
		case ok && small.Cost(flow) != best:
			rt.Fatalf("small network: primal–dual cost %d, enumeration %d", small.Cost(flow), best)
		case ok:
			if err := certify(small, flow, s.pi); err != nil {
				rt.Fatalf("small network: %v", err)
			}
		}
	})
	if split == 0 {
		t.Fatal("no network split into more than one cluster: the test does not exercise the clusters")
	}
}
