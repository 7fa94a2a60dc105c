package mcf

import (
	"context"
	"fmt"
)

// SolveWindowsPrices is SolveWindows that also returns the final node
// prices (whole cost units) that certify the flow: with them every residual
// arc has reduced cost ≥ 0. They are the start SolveWarm takes for a
// neighbouring network.
func (g *Network) SolveWindowsPrices(ctx context.Context, plan Plan) (flow, prices []int64, stats string, err error) {
	return g.solveWindows(ctx, plan)
}

// SolveWarm solves g exactly by the primal–dual method started from node
// prices pi (whole cost units, one per node) and a flow hint (one value
// per arc; nil for none), typically the optimal prices and flow of a
// neighbouring network with the same nodes, arcs and costs and different
// capacities and supplies (lp.SolveFlowCurve). It returns an optimal flow,
// the final prices, a line of statistics, and ErrInfeasible when g has no
// feasible flow.
//
// Exactness does not depend on the start. The primal–dual state is built
// from pi alone: every arc of negative reduced cost under pi is filled to
// g's capacity, every arc of positive reduced cost emptied, and an arc of
// reduced cost zero takes hint's flow clipped to [0, capacity]. That flow
// is within g's capacities and satisfies complementary slackness with pi;
// what it lacks is balance, and the method's rounds (Dijkstra price raises
// over arcs of non-negative reduced cost, then maximum flows over arcs of
// reduced cost zero) keep complementary slackness while they remove the
// imbalance, as from any prices. A good start only means little imbalance
// and few rounds. The answer is then checked by certify, against g and the
// final prices, as SolveWindows's is.
func (g *Network) SolveWarm(ctx context.Context, pi, hint []int64) (flow, prices []int64, stats string, err error) {
	if len(pi) != g.n {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), g.n)
	}
	if hint != nil && len(hint) != len(g.src) {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d flows for %d arcs", len(hint), len(g.src))
	}
	s := newPrimalDual(g, pi, hint)
	var start int64 // excess to repair at the start, units
	for _, x := range s.excess {
		start += max(x, 0)
	}
	err = s.solve(ctx)
	stats = fmt.Sprintf("warm start: primal–dual repaired %d units of excess in %d rounds settling %d nodes, %d level graphs, %d augmentations",
		start, s.rounds, s.settled, s.levels, s.augments)
	if err != nil {
		return nil, nil, stats, err
	}
	flow = make([]int64, len(g.src))
	for i := range flow {
		flow[i] = s.flowOn(i)
	}
	if err := certify(g, flow, s.pi); err != nil {
		return nil, nil, stats, err
	}
	return flow, s.pi, stats, nil
}

// SolveWarmWindows is SolveWarm done in two stages, as SolveWindows is:
// the line is cut into windows of plan.Size steps widened by plan.Overlap
// on either side (subLine), each window is solved by the primal–dual
// method from pi and hint restricted to it (on all cores, one window
// each), the windows' prices over their own steps are shifted to agree at
// their common nodes and joined with their flows, and the whole network is
// then solved by SolveWarm's primal–dual method from the joined prices and
// flows and certified. g must be a line network (see SolveWindows).
// Exactness rests on the last stage alone, which is exact from any start;
// the windows only make its start good. They are needed because one
// primal–dual round is a search over the whole line and the rounds a
// capacity change needs grow with the length of the line (measured on
// birth–death traces: 126 rounds at 10^4 turns, 1,048 at 10^5), while in a
// window both are bounded by the window's length.
func (g *Network) SolveWarmWindows(ctx context.Context, pi, hint []int64, plan Plan) (flow, prices []int64, stats string, err error) {
	n := g.n
	if len(pi) != n {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), n)
	}
	if hint != nil && len(hint) != len(g.src) {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d flows for %d arcs", len(hint), len(g.src))
	}
	count := 0
	if n > 1 {
		count = (n - 2 + plan.Size) / plan.Size
	}
	type part struct {
		lo       int
		pi, flow []int64
		ids      []int
		err      error
		rounds   int64
		settled  int64
	}
	parts := make([]part, count)
	first, arcs := g.bySource()
	workers := inParallel(count, func(k int) {
		p := &parts[k]
		p.lo = max(0, k*plan.Size-plan.Overlap)
		hi := min(n-1, (k+1)*plan.Size+plan.Overlap)
		h, ids := g.subLine(p.lo, hi, first, arcs)
		var hh []int64
		if hint != nil {
			hh = make([]int64, len(ids))
			for j, i := range ids {
				hh[j] = hint[i]
			}
		}
		s := newPrimalDual(h, pi[p.lo:hi+1], hh)
		if p.err = s.solve(ctx); p.err != nil {
			return
		}
		p.pi = s.pi
		p.flow = make([]int64, len(ids))
		for j := range p.flow {
			p.flow[j] = s.flowOn(j)
		}
		p.ids, p.rounds, p.settled = ids, s.rounds, s.settled
	})
	var rounds, settled int64
	for _, p := range parts {
		if p.err != nil {
			return nil, nil, "warm windows", p.err
		}
		rounds += p.rounds
		settled += p.settled
	}
	joined := make([]int64, n)
	start := make([]int64, len(g.src))
	if hint != nil {
		copy(start, hint)
	}
	for k, p := range parts {
		lo, hi := k*plan.Size, min(n-1, (k+1)*plan.Size)
		var shift int64
		if k > 0 {
			shift = joined[lo] - p.pi[lo-p.lo]
		}
		for v := lo; v <= hi; v++ {
			joined[v] = p.pi[v-p.lo] + shift
		}
		for j, i := range p.ids {
			if t := int(g.src[i]); t >= lo && t < hi {
				start[i] = p.flow[j]
			}
		}
	}
	if count == 0 {
		copy(joined, pi)
	}
	flow, prices, stats, err = g.SolveWarm(ctx, joined, start)
	stats = fmt.Sprintf("%d warm windows of %d steps, overlap %d, on %d cores (primal–dual: %d rounds settling %d nodes); %s",
		count, plan.Size, plan.Overlap, workers, rounds, settled, stats)
	return flow, prices, stats, err
}
