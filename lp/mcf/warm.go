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
// capacities and supplies. It returns an optimal flow, the final prices, a
// line of statistics, and ErrInfeasible when g has no feasible flow. It
// suits networks of any shape and starts that leave little to repair; on
// the long line networks of a capacity curve, where a capacity step moves
// the optimum all along the line, SolveWarmWindows is the faster start
// (measured: SolveWarm over a 10^5-step line took 173 s against 11 s from
// scratch, docs/speed.md).
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

// SolveWarmWindows is SolveWindowsPrices started from node prices pi
// (whole cost units, one per node), typically the optimal prices of a
// neighbouring line network with the same nodes, arcs and costs and other
// capacities and supplies (lp.SolveFlowCurve). Each window's cost scaling
// starts from pi over the window (shifted so that its smallest is 0) with
// its first phase at ε = 1/1,024 of a cost unit instead of the largest
// cost, so two phases remain of the four a window needs from scratch; a
// window whose prices span too much for int64 starts from scratch (the
// statistics count the warm ones). g must be a line network (see
// SolveWindows).
//
// Exactness does not depend on pi: each phase's refine starts by
// saturating every arc of negative reduced cost, which makes the
// pseudoflow 0-optimal under whatever prices it has, and ends ε-optimal;
// the last phase (ε = 1, costs scaled by n+1) is checked for its
// optimality certificate as from scratch, and the primal–dual stage and
// certify on the whole network follow unchanged. A good pi only means less
// work: on a birth–death trace's capacity curve (10^5 turns, capacity
// steps of 2^(1/3)) the solves took 0.60× the time of solves from scratch
// (the measurement is warmDivisor's). An earlier warm start, the
// primal–dual method from pi over the whole line or in windows, took 2–10×
// a solve from scratch: a capacity step moves the optimum at every step of
// the line, and the primal–dual rounds that repair it grew with the line
// (docs/speed.md).
func (g *Network) SolveWarmWindows(ctx context.Context, pi []int64, plan Plan) (flow, prices []int64, stats string, err error) {
	if len(pi) != g.n {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), g.n)
	}
	return g.solveWindowsFrom(ctx, plan, pi)
}
