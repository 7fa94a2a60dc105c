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
// capacities and supplies (lp.SolveFlowCurve). unit (≥ 1) is the cost of
// one token (or whatever whole unit the costs measure) at the network's
// cost scale: lp.SolveFlow multiplies savings in tokens by 2^s, s up to 30
// for a ξ that is not a dyadic fraction. Each window's cost scaling starts
// from pi over the window (shifted so that its smallest is 0) with its
// first phase at ε = 1/1,024 of a unit instead of the largest cost, so
// two phases remain of the four a window needs from scratch (integer
// tokens); a window whose prices span too much for int64 starts from
// scratch, and so does one whose warm solve spends warmBudget relabels
// per node (the statistics count the warm ones that finished). g must be a
// line network (see SolveWindows).
//
// The first phase is relative to a token, not to a cost unit, because a
// neighbour's prices are off by whole tokens where nothing ties them, and
// a phase at ε needs about (that distance)/ε relabels (see refine): with ε
// at 1/1,024 of a cost unit and a cost unit of 2^−30 token, a 4-node
// window took 5.4·10^9 relabels in one call of augment (issue 35).
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
func (g *Network) SolveWarmWindows(ctx context.Context, pi []int64, unit int64, plan Plan) (flow, prices []int64, stats string, err error) {
	if len(pi) != g.n {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), g.n)
	}
	if unit < 1 {
		return nil, nil, "", fmt.Errorf("min-cost flow: warm start with cost unit %d (want ≥ 1)", unit)
	}
	return g.solveWindowsFrom(ctx, plan, pi, unit)
}
