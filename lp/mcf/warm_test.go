package mcf

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
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
// scalings (up and down, through zero) each solved by SolveWarmWindows
// (random windows, many seams) from the previous network's optimal prices
// reaches the network simplex's optimum, and the first, solved by
// SolveWindowsPrices, returns prices that certify its flow.
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
			f, p, _, err := g.SolveWarmWindows(context.Background(), pi, 1, Plan{Size: 1 + r.IntN(20), Overlap: r.IntN(6)})
			if err != nil {
				rt.Fatalf("warm start at %d/4: %v", num, err)
			}
			if got, want := g.Cost(f), simplexCost(t, g); got != want {
				rt.Fatalf("warm start at %d/4: cost %d, network simplex %d", num, got, want)
			}
			if err := balanced(g, f); err != nil {
				rt.Fatalf("warm start at %d/4: %v", num, err)
			}
			pi = p
		}
	})
	if _, _, _, err := NewNetwork(3).SolveWarmWindows(context.Background(), make([]int64, 2), 1, Plan{Size: 1}); err == nil {
		t.Fatal("prices of the wrong length accepted")
	}
}

// TestSolveWarmWindowsAnyPrices: SolveWarmWindows reaches the network
// simplex's optimum from random prices — small, larger, and spanning more
// than int64 leaves room for (those windows start from scratch) — on
// random line networks, with windows of one to twenty steps (a cost
// scaling of one phase at ε = 1) and on lines of 6,000 nodes cut into
// windows of 3,500 nodes (two phases, the first at ε = 3 of 3,501 per cost
// unit), where the prices are also the optimum of the line at other
// capacities.
func TestSolveWarmWindowsAnyPrices(t *testing.T) {
	check := func(fail func(string, ...any), g *Network, pi []int64, plan Plan) {
		f, _, stats, err := g.SolveWarmWindows(context.Background(), pi, 1, plan)
		if err != nil {
			fail("%v (%s)", err, stats)
			return
		}
		if err := balanced(g, f); err != nil {
			fail("%v", err)
		}
		if got, want := g.Cost(f), simplexCost(t, g); got != want {
			fail("cost %d, network simplex %d (%s)", got, want, stats)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 2))
		g := randomLine(r)
		span := rapid.SampledFrom([]int64{10, 300, 1 << 62}).Draw(rt, "span")
		pi := make([]int64, g.n)
		for v := range pi {
			pi[v] = r.Int64N(span) - span/2
		}
		check(rt.Fatalf, g, pi, Plan{Size: 1 + r.IntN(20), Overlap: r.IntN(6)})
	})
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2; i++ {
		base := longLine(r, 6000)
		plan := Plan{Size: 2500, Overlap: 500}
		_, opt, _, err := base.SolveWindowsPrices(context.Background(), plan)
		if err != nil {
			t.Fatal(err)
		}
		random, _ := randomStart(r, base, 20, 0)
		for _, num := range []int64{3, 8} {
			g := scaledLine(base, num, 4)
			check(t.Fatalf, g, opt, plan)
			check(t.Fatalf, g, random, plan)
		}
	}
}

// longLine is a line network of n nodes shaped like the hindsight
// problem's: line arcs of capacity 20–40, and per node one or two arcs
// forward by up to 300 steps with capacity 0–6 and cost −20..−1.
func longLine(r *rand.Rand, n int) *Network {
	g := NewNetwork(n)
	var prev int64
	for t := 0; t+1 < n; t++ {
		c := 20 + r.Int64N(21)
		g.AddArc(t, t+1, c, 0)
		g.AddSupply(t, c-prev)
		prev = c
	}
	g.AddSupply(n-1, -prev)
	for a := 0; a+1 < n; a++ {
		for k := 1 + r.IntN(2); k > 0; k-- {
			b := a + 1 + r.IntN(min(n-1-a, 300))
			g.AddArc(a, b, r.Int64N(7), -1-r.Int64N(20))
		}
	}
	return g
}

// stalledWarm is the network and start prices of issue 35's first hang
// (gap --trace h3.jsonl --block-size 1 --capacities 16,20 --xis 0.1
// --forced: the window at 20 tokens, warm from the optimum at 16): costs
// are savings times 2^30 (ξ = 0.1 token is no dyadic fraction), and nothing
// ties the prices of nodes 0 and 1 to node 2's at the smaller capacity, so
// they start 2^30 cost units (one token) too high. Its optimum, by hand:
// node 1 must pass 5 units to node 2, 2 of them over the arc of cost −2^30,
// cost −2^31.
func stalledWarm() (*Network, []int64) {
	g := NewNetwork(4)
	for _, a := range []struct {
		u, v int
		c, w int64
	}{{0, 1, 18, 0}, {1, 2, 5, 0}, {2, 3, 0, 0}, {1, 2, 2, -1 << 30}} {
		g.AddArc(a.u, a.v, a.c, a.w)
	}
	for v, s := range []int64{18, -13, -5, 0} {
		g.AddSupply(v, s)
	}
	return g, []int64{-71582856, -71582788, -1145324612, -138691720}
}

// TestWarmStallEnds reproduces issue 35's hang: from stalledWarm's prices
// with its first phase at ε = 1/1,024 of a cost unit, cost scaling's
// augment relabelled nodes 0 and 1 in turn, one ε each, 5.4·10^9 times in
// one call (365 s measured), checking neither the relabel budget nor the
// context, which were only looked at between augments. Now the budget
// stops it at its count, a done context within 1,024 relabels, and
// SolveWarmWindows falls back to a cold solve (unit 1) or, with the
// token as unit (2^30), finishes warm; both reach the hand-worked optimum
// and the network simplex's.
func TestWarmStallEnds(t *testing.T) {
	g, pi := stalledWarm()
	const want = -2 << 30
	if got := simplexCost(t, g); got != want {
		t.Fatalf("network simplex %d, by hand %d", got, want)
	}
	budget := int64(warmBudget * g.n)
	cs := &costScaling{Network: g, start: warmStart(pi, int64(g.n+1)), unit: 1, budget: budget}
	if err := cs.solve(context.Background()); !errors.Is(err, errOverBudget) || cs.relabels > budget+1 {
		t.Fatalf("budget %d: %v after %d relabels", budget, err, cs.relabels)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs = &costScaling{Network: g, start: warmStart(pi, int64(g.n+1)), unit: 1}
	if err := cs.solve(ctx); !errors.Is(err, context.Canceled) || cs.relabels > 1024 {
		t.Fatalf("done context: %v after %d relabels", err, cs.relabels)
	}
	for _, tc := range []struct {
		unit int64
		warm string
	}{{1, "(0 warm-started)"}, {1 << 30, "(1 warm-started)"}} {
		f, p, stats, err := g.SolveWarmWindows(context.Background(), pi, tc.unit, DefaultPlan())
		if err != nil {
			t.Fatalf("unit %d: %v", tc.unit, err)
		}
		if got := g.Cost(f); got != want {
			t.Fatalf("unit %d: cost %d, want %d (%s)", tc.unit, got, want, stats)
		}
		if err := certify(g, f, p); err != nil {
			t.Fatalf("unit %d: %v", tc.unit, err)
		}
		if !strings.Contains(stats, tc.warm) {
			t.Errorf("unit %d: %s, want %s", tc.unit, stats, tc.warm)
		}
	}
	if _, _, _, err := g.SolveWarmWindows(context.Background(), pi, 0, DefaultPlan()); err == nil {
		t.Error("cost unit 0 accepted")
	}
}

// TestSolveWarmScaledCosts: TestSolveWarmNeighbours with every cost
// multiplied by 2^s (s = 10, 20, 30, as lp.SolveFlow scales savings for a
// fractional ξ) and the warm start told that unit: every warm solve ends
// at the network simplex's optimum.
func TestSolveWarmScaledCosts(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 3))
		unit := int64(1) << rapid.SampledFrom([]int{10, 20, 30}).Draw(rt, "shift")
		base := randomLine(r)
		for i := range base.cost {
			base.cost[i] = base.cost[i]*unit + r.Int64N(unit) // not multiples of unit, as ξ·2^s rounds
		}
		plan := Plan{Size: 1 + r.IntN(20), Overlap: r.IntN(6)}
		_, pi, _, err := base.SolveWindowsPrices(context.Background(), plan)
		if err != nil {
			rt.Fatalf("windows: %v", err)
		}
		for _, num := range rapid.SliceOfN(rapid.Int64Range(0, 8), 1, 4).Draw(rt, "scales") {
			g := scaledLine(base, num, 4)
			f, p, stats, err := g.SolveWarmWindows(context.Background(), pi, unit, plan)
			if err != nil {
				rt.Fatalf("warm start at %d/4: %v (%s)", num, err, stats)
			}
			if got, want := g.Cost(f), simplexCost(t, g); got != want {
				rt.Fatalf("warm start at %d/4: cost %d, network simplex %d (%s)", num, got, want, stats)
			}
			pi = p
		}
	})
}
