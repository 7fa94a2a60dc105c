package mcf

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestPrimalDualAnyPrices: started from random prices and a random hint,
// the primal–dual method reaches the network simplex's optimum, with a
// flow that passes certify.
func TestPrimalDualAnyPrices(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 500; i++ {
		g := randomLine(r)
		pi := make([]int64, g.n)
		for v := range pi {
			pi[v] = r.Int64N(81) - 40
		}
		hint := make([]int64, len(g.src))
		for k := range hint {
			hint[k] = r.Int64N(8) - 1
		}
		s := newPrimalDual(g, pi, hint)
		if err := s.solve(context.Background()); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		flow := make([]int64, len(g.src))
		for k := range flow {
			flow[k] = s.flowOn(k)
		}
		if err := certify(g, flow, s.pi); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if got, want := g.Cost(flow), simplexCost(t, g); got != want {
			t.Fatalf("instance %d: primal–dual cost %d, network simplex %d", i, got, want)
		}
	}
}
