package mcf

import (
	"context"
	"fmt"
)

// SolveWindowsPrices is SolveWindows that also returns the final node
// prices (whole cost units) that certify the flow: with them every residual
// arc has reduced cost ≥ 0. They are the start SolveWarmWindows takes for a
// neighbouring network.
func (g *Network) SolveWindowsPrices(ctx context.Context, plan Plan) (flow, prices []int64, stats string, err error) {
	return g.solveWindows(ctx, plan)
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
// primal–dual method from pi (and the neighbour's flow) over the whole
// line or in windows, took 2–10× a solve from scratch (173 s against 11 s
// over a 10^5-step line): a capacity step moves the optimum at every step of
// the line, and the primal–dual rounds that repair it grew with the line
// (docs/speed.md).
func (g *Network) SolveWarmWindows(ctx context.Context, pi []int64, plan Plan) (flow, prices []int64, stats string, err error) {
	if len(pi) != g.n {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), g.n)
	}
	return g.solveWindowsFrom(ctx, plan, pi)
}
