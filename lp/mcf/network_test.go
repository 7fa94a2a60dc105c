package mcf

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomLine is a line network of the kind SolveFlow builds — n nodes, the
// line arcs t→t+1 first (cost 0, capacity the cut's), then forward arcs —
// with random capacities and costs of both signs, so that it also covers
// networks SolveFlow never builds.
func randomLine(r *rand.Rand) *Network {
	g := randomLineArcs(r)
	n := g.n
	for k := r.IntN(3 * n); k > 0; k-- {
		a := r.IntN(n - 1)
		b := a + 1 + r.IntN(min(n-1-a, 12))
		g.AddArc(a, b, r.Int64N(7), r.Int64N(26)-20)
	}
	return g
}

// randomLineArcs is a network of 2–61 nodes holding only its line arcs
// t→t+1 (cost 0, capacity 0–8) and supplies that make every cut carry its
// line arc's capacity.
func randomLineArcs(r *rand.Rand) *Network {
	n := 2 + r.IntN(60)
	g := NewNetwork(n)
	var prev int64
	for t := 0; t+1 < n; t++ {
		c := r.Int64N(9)
		g.AddArc(t, t+1, c, 0)
		g.AddSupply(t, c-prev)
		prev = c
	}
	g.AddSupply(n-1, -prev)
	return g
}

// simplexCost is the optimum of g by the network simplex, an algorithm
// sharing no code with the others (it keeps its own arc arrays and a
// spanning tree, no residual graph or heap).
func simplexCost(t *testing.T, g *Network) int64 {
	t.Helper()
	flow, _, err := g.Solve(context.Background(), NetworkSimplex)
	if err != nil {
		t.Fatal(err)
	}
	return g.Cost(flow)
}

// randomSmall is a network of 2–5 nodes and 1–6 arcs between any two
// distinct nodes (both directions, so cycles of negative cost occur), with
// capacities 0–2 and costs −5..5. Its supplies are those of a random flow
// within the capacities (feasible), or, one time in four, random ones
// summing to zero (often infeasible).
func randomSmall(r *rand.Rand) *Network {
	n := 2 + r.IntN(4)
	g := NewNetwork(n)
	for k := 1 + r.IntN(6); k > 0; k-- {
		u := r.IntN(n)
		v := (u + 1 + r.IntN(n-1)) % n
		c := r.Int64N(3)
		g.AddArc(u, v, c, r.Int64N(11)-5)
		if f := r.Int64N(c + 1); f > 0 {
			g.AddSupply(u, f)
			g.AddSupply(v, -f)
		}
	}
	if r.IntN(4) == 0 {
		for v := range g.supply {
			g.supply[v] = 0
		}
		for k := r.IntN(3); k > 0; k-- {
			s := r.Int64N(3)
			g.AddSupply(r.IntN(n), s)
			g.AddSupply(r.IntN(n), -s)
		}
	}
	return g
}

// bruteCost is the least Σ cost·flow over every integer flow of g within
// its capacities that balances every node, by enumeration; ok is false
// when there is none. It knows nothing of residual graphs or prices.
func bruteCost(g *Network) (best int64, ok bool) {
	flow := make([]int64, len(g.src))
	var walk func(i int)
	walk = func(i int) {
		if i == len(flow) {
			bal := append([]int64(nil), g.supply...)
			var c int64
			for e, f := range flow {
				bal[g.src[e]] -= f
				bal[g.dst[e]] += f
				c += g.cost[e] * f
			}
			for _, b := range bal {
				if b != 0 {
					return
				}
			}
			if !ok || c < best {
				best, ok = c, true
			}
			return
		}
		for f := int64(0); f <= g.cap[i]; f++ {
			flow[i] = f
			walk(i + 1)
		}
	}
	walk(0)
	return best, ok
}

// checkAgainstBrute solves random small networks with method m and
// compares each outcome with the enumeration: the same optimum cost and a
// flow that balances, or ErrInfeasible where no flow exists. With
// feasibleOnly it skips the networks the enumeration finds infeasible.
func checkAgainstBrute(t *testing.T, m Method, seed uint64, n int, feasibleOnly bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	infeasible := 0
	for i := 0; i < n; i++ {
		g := randomSmall(r)
		want, ok := bruteCost(g)
		if !ok && feasibleOnly {
			infeasible++
			continue
		}
		flow, _, err := g.Solve(context.Background(), m)
		if !ok {
			infeasible++
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("network %d (%+v): %s gave %v, %v; enumeration: infeasible", i, *g, m, flow, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("network %d (%+v): %s: %v; enumeration: cost %d", i, *g, m, err, want)
		}
		if got := g.Cost(flow); got != want {
			t.Fatalf("network %d (%+v): %s cost %d (flow %v), enumeration %d", i, *g, m, got, flow, want)
		}
		if err := balanced(g, flow); err != nil {
			t.Fatalf("network %d (%+v): %s: %v", i, *g, m, err)
		}
	}
	if infeasible == 0 || infeasible == n {
		t.Fatalf("%d of %d networks infeasible: the test does not cover both outcomes", infeasible, n)
	}
}

// balanced checks that flow is within g's capacities and balances every
// node.
func balanced(g *Network, flow []int64) error {
	bal := append([]int64(nil), g.supply...)
	for e, f := range flow {
		if f < 0 || f > g.cap[e] {
			return fmt.Errorf("arc %d carries %d outside [0, %d]", e, f, g.cap[e])
		}
		bal[g.src[e]] -= f
		bal[g.dst[e]] += f
	}
	for v, b := range bal {
		if b != 0 {
			return fmt.Errorf("node %d off balance by %d", v, b)
		}
	}
	return nil
}

// TestCertifyRejects: the certificate accepts an optimal flow with prices
// that show it, and refuses the same flow with prices that do not, a
// feasible flow that is not optimal, and flows off balance, over capacity
// or negative.
func TestCertifyRejects(t *testing.T) {
	// 0 → 1 → 2 line of capacity 2, and a shortcut 0 → 2 of capacity 1
	// and cost −5: the optimum sends 1 unit on the shortcut.
	g := NewNetwork(3)
	g.AddSupply(0, 2)
	g.AddSupply(2, -2)
	g.AddArc(0, 1, 2, 0)
	g.AddArc(1, 2, 2, 0)
	g.AddArc(0, 2, 1, -5)
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
