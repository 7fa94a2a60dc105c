package lp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// randomLine is a line network of the kind SolveFlow builds — n nodes, the
// line arcs t→t+1 first (cost 0, capacity the cut's), then forward arcs —
// with random capacities and costs of both signs, so that it also covers
// networks SolveFlow never builds.
func randomLine(r *rand.Rand) *network {
	n := 2 + r.IntN(60)
	g := &network{n: n, supply: make([]int64, n)}
	var prev int64
	for t := 0; t+1 < n; t++ {
		c := r.Int64N(9)
		g.addArc(t, t+1, c, 0)
		g.supply[t] += c - prev
		prev = c
	}
	g.supply[n-1] -= prev
	for k := r.IntN(3 * n); k > 0; k-- {
		a := r.IntN(n - 1)
		b := a + 1 + r.IntN(min(n-1-a, 12))
		g.addArc(a, b, r.Int64N(7), r.Int64N(26)-20)
	}
	return g
}

// simplexCost is the optimum of g by the network simplex, an algorithm
// sharing no code with the primal–dual method or the windows.
func simplexCost(t *testing.T, g *network) int64 {
	t.Helper()
	s := newNetSimplex(g.n, len(g.src))
	copy(s.supply, g.supply)
	for i := range g.src {
		s.addArc(int(g.src[i]), int(g.dst[i]), g.cap[i], g.cost[i])
	}
	if err := s.solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.totalCost()
}

func flowCost(g *network, flow []int64) int64 {
	var c int64
	for i, f := range flow {
		c += g.cost[i] * f
	}
	return c
}

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
		if got, want := flowCost(g, flow), simplexCost(t, g); got != want {
			t.Fatalf("instance %d: primal–dual cost %d, network simplex %d", i, got, want)
		}
	}
}

// TestWindowsSeams: with windows of 1–9 steps and overlaps of 0–5 — many
// seams, stitched prices far from optimal — the windows method still
// reaches the network simplex's optimum.
func TestWindowsSeams(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	seams := 0
	for i := 0; i < 500; i++ {
		g := randomLine(r)
		plan := windowPlan{size: 1 + r.IntN(9), overlap: r.IntN(6)}
		flow, stats, err := g.windows(context.Background(), plan)
		if err != nil {
			t.Fatalf("instance %d, %+v: %v (%s)", i, plan, err, stats)
		}
		if got, want := flowCost(g, flow), simplexCost(t, g); got != want {
			t.Fatalf("instance %d, %+v: windows cost %d, network simplex %d", i, plan, got, want)
		}
		seams += (g.n - 2) / plan.size
	}
	if seams < 1000 {
		t.Fatalf("only %d seams: the test does not exercise the stitching", seams)
	}
}

// TestWindowsInstances: SolveFlow's default method with small windows
// equals cost scaling on random hindsight instances with many interleaved
// conversations, optional and forced caching, B = 1..8.
func TestWindowsInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		tr := &trace.Trace{}
		convs := 2 + r.IntN(10)
		turns := 20 + r.IntN(200)
		for k := 0; k < turns; k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(40), r.Int64N(40))
		}
		block := int64(1 + r.IntN(8))
		c := tinyCase{tr: tr, capacity: block * r.Int64N(30), block: block, xi: []float64{0, 3, 10.5, 25}[r.IntN(4)], forced: i%3 == 2}
		in := mustInstance(t, c)
		plan := windowPlan{size: 2 + r.IntN(30), overlap: r.IntN(10)}
		w, err := solveFlow(ctx, in, Options{}, Windows, plan)
		if err != nil || w.Status != Optimal || w.ScheduleErr != nil {
			t.Fatalf("case %d %+v: %v %v %v", i, plan, err, w.Status, w.ScheduleErr)
		}
		cs, err := SolveFlowWith(ctx, in, Options{}, CostScaling)
		if err != nil || cs.Status != Optimal {
			t.Fatalf("case %d: cost scaling %v", i, err)
		}
		if !near(w.TEL, cs.TEL) {
			t.Fatalf("case %d %+v: windows TEL %v, cost scaling %v", i, plan, w.TEL, cs.TEL)
		}
	}
}

// TestCertifyRejects: the certificate accepts an optimal flow with prices
// that show it, and refuses the same flow with prices that do not, a
// feasible flow that is not optimal, and flows off balance, over capacity
// or negative.
func TestCertifyRejects(t *testing.T) {
	// 0 → 1 → 2 line of capacity 2, and a shortcut 0 → 2 of capacity 1
	// and cost −5: the optimum sends 1 unit on the shortcut.
	g := &network{n: 3, supply: []int64{2, 0, -2}}
	g.addArc(0, 1, 2, 0)
	g.addArc(1, 2, 2, 0)
	g.addArc(0, 2, 1, -5)
	for _, c := range []struct {
		name     string
		flow, pi []int64
		ok       bool
	}{
		{"optimal", []int64{1, 1, 1}, []int64{0, 0, 0}, true},
		{"optimal, prices that do not show it", []int64{1, 1, 1}, []int64{5, 0, 0}, false},
		{"not optimal", []int64{2, 2, 0}, []int64{0, 0, 0}, false},
		{"unbalanced", []int64{1, 0, 1}, []int64{0, 0, 0}, false},
		{"over capacity", []int64{0, 0, 2}, []int64{0, 0, 0}, false},
		{"negative", []int64{3, 3, -1}, []int64{0, 0, 0}, false},
	} {
		err := certify(g, c.flow, c.pi)
		if (err == nil) != c.ok {
			t.Errorf("%s: certify = %v", c.name, err)
		}
	}
}
