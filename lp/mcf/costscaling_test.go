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

// TestCostScalingPhasesProgress: SolveProgress tells its Func each scaling
// phase as it begins, 1 … total of total, where total is worked by hand:
// the largest cost is 3c and the 3 nodes scale the costs by n+1 = 4, so ε
// starts at 12c and is divided by 16 (at least 1) until it is 1. c = 100:
// ε 1200 → 75, 4, 1, three phases; c = 1: 12 → 1, one; c = 5000: 60000 →
// 3750, 234, 14, 1, four. The flow is the network simplex's.
func TestCostScalingPhasesProgress(t *testing.T) {
	for _, c := range []struct {
		cost   int64
		phases int64
	}{{100, 3}, {1, 1}, {5000, 4}} {
		g := NewNetwork(3)
		g.AddArc(0, 1, 2, c.cost)
		g.AddArc(1, 2, 2, 1)
		g.AddArc(0, 2, 1, 3*c.cost)
		g.AddSupply(0, 3)
		g.AddSupply(2, -3)
		var got [][2]int64
		flow, _, err := g.SolveProgress(context.Background(), CostScaling, func(what string, done, total int64) {
			if what != "cost scaling: phases" {
				t.Errorf("cost %d: progress %q, want the phases", c.cost, what)
			}
			got = append(got, [2]int64{done, total})
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != int(c.phases) {
			t.Fatalf("cost %d: reports %v, want phases 1 … %d", c.cost, got, c.phases)
		}
		for i, r := range got {
			if r != [2]int64{int64(i + 1), c.phases} {
				t.Errorf("cost %d: report %d is %v, want %d of %d", c.cost, i, r, i+1, c.phases)
			}
		}
		if g.Cost(flow) != simplexCost(t, g) {
			t.Errorf("cost %d: cost %d, network simplex %d", c.cost, g.Cost(flow), simplexCost(t, g))
		}
	}
}
