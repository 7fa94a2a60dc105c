package mcf

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestCostScalingAgainstBrute: on small random networks (negative cycles,
// infeasible supplies) cost scaling finds the enumerated optimum, or
// reports ErrInfeasible where no flow exists.
func TestCostScalingAgainstBrute(t *testing.T) {
	checkAgainstBrute(t, CostScaling, 31, 2000, true)
}

// TestCostScalingLines: on random line networks of up to 60 nodes cost
// scaling reaches the network simplex's optimum.
func TestCostScalingLines(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for i := 0; i < 500; i++ {
		g := randomLine(r)
		flow, stats, err := g.Solve(context.Background(), CostScaling)
		if err != nil {
			t.Fatalf("line %d: %v (%s)", i, err, stats)
		}
		if err := balanced(g, flow); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got, want := g.Cost(flow), simplexCost(t, g); got != want {
			t.Fatalf("line %d: cost scaling cost %d, network simplex %d", i, got, want)
		}
	}
}
