package mcf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
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

// lagrangeCost is the Lagrangian lower bound on the min-cost flow's cost
// from node prices pi: relaxing conservation with pi, every arc at its
// cheaper bound, Σ cap·min(0, cost + π_u − π_v) − Σ_v π_v·supply_v. It is
// at most the optimum for any pi and equal to it at optimal prices (LP
// duality): the test of SolveWindowsPartial's prices computed from the
// network alone.
func lagrangeCost(g *Network, pi []int64) int64 {
	var l int64
	for i := range g.src {
		if rc := g.cost[i] + pi[g.src[i]] - pi[g.dst[i]]; rc < 0 {
			l += rc * g.cap[i]
		}
	}
	for v, b := range g.supply {
		l -= pi[v] * b
	}
	return l
}

// TestSolveWindowsPartial: solved, SolveWindowsPartial answers the
// optimum (the network simplex's cost) with prices whose Lagrangian bound
// equals it; cut short after its first window (the context cancelled from
// the progress report), it answers no flow, no error, complete false and
// prices for every node whose bound is at most the optimum; cut before it
// begins, zero prices.
func TestSolveWindowsPartial(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	cut, inWindows := 0, 0
	for i := 0; i < 300; i++ {
		g := randomLine(r)
		want := simplexCost(t, g)
		plan := Plan{Size: 1 + r.IntN(6), Overlap: r.IntN(4)}
		flow, pi, complete, stats, err := g.SolveWindowsPartial(context.Background(), plan)
		if err != nil || !complete {
			t.Fatalf("instance %d: complete %v, %v (%s)", i, complete, err, stats)
		}
		if got := g.Cost(flow); got != want || lagrangeCost(g, pi) != want {
			t.Fatalf("instance %d: cost %d, prices' bound %d, network simplex %d", i, got, lagrangeCost(g, pi), want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := plan
		p.Progress = func(what string, done, total int64) {
			if what == "windows" && done >= 1 {
				cancel()
			}
		}
		flow, pi, complete, stats, err = g.SolveWindowsPartial(ctx, p)
		cancel()
		if err != nil || len(pi) != g.n {
			t.Fatalf("instance %d cut short: %d prices for %d nodes, %v (%s)", i, len(pi), g.n, err, stats)
		}
		if !complete {
			cut++
			if flow != nil {
				t.Fatalf("instance %d cut short: a flow", i)
			}
			// cut in the windows' stage, the stats count the windows
			// solved: at least the one whose progress cancelled
			var done, count, size int
			n, _ := fmt.Sscanf(stats, "in the windows' cost scaling: %d of %d windows of %d steps solved", &done, &count, &size)
			switch {
			case n == 3 && (done < 1 || done >= count || size != plan.Size):
				t.Fatalf("instance %d cut short: stats %q, want 1 to all but one of the windows of %d steps solved", i, stats, plan.Size)
			case n == 3:
				inWindows++
			case !strings.Contains(stats, "primal–dual"):
				t.Fatalf("instance %d cut short: stats %q name neither stage", i, stats)
			}
		}
		if l := lagrangeCost(g, pi); l > want {
			t.Fatalf("instance %d cut short: prices' bound %d above the optimum %d", i, l, want)
		}
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		_, pi, complete, _, err = g.SolveWindowsPartial(ctx, plan)
		if err != nil || complete || len(pi) != g.n {
			t.Fatalf("instance %d cancelled: complete %v, %d prices, %v", i, complete, len(pi), err)
		}
		for v, x := range pi {
			if x != 0 {
				t.Fatalf("instance %d cancelled: price %d at node %d", i, x, v)
			}
		}
	}
	if cut < 100 || inWindows == 0 {
		t.Fatalf("only %d of 300 solves cut short, %d in the windows' stage: the test does not exercise the partial answer", cut, inWindows)
	}
}
