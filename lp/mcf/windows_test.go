package mcf

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestWindowsSeams: with windows of 1–9 steps and overlaps of 0–5 — many
// seams, stitched prices far from optimal — the windows method still
// reaches the network simplex's optimum.
func TestWindowsSeams(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	seams := 0
	for i := 0; i < 500; i++ {
		g := randomLine(r)
		plan := Plan{Size: 1 + r.IntN(9), Overlap: r.IntN(6)}
		flow, stats, err := g.SolveWindows(context.Background(), plan)
		if err != nil {
			t.Fatalf("instance %d, %+v: %v (%s)", i, plan, err, stats)
		}
		if got, want := g.Cost(flow), simplexCost(t, g); got != want {
			t.Fatalf("instance %d, %+v: windows cost %d, network simplex %d", i, plan, got, want)
		}
		seams += (g.n - 2) / plan.Size
	}
	if seams < 1000 {
		t.Fatalf("only %d seams: the test does not exercise the stitching", seams)
	}
}
