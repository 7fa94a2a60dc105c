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
