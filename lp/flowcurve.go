package lp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/lp/mcf"
)

// SolveFlowCurve solves the hindsight problem of in exactly, by the flow
// solver, at every capacity of capacities (tokens, each a whole number of
// blocks; any order, duplicates allowed; in's own Capacity is not used),
// and returns one Result per capacity in the order given (a duplicate
// shares its Result). With warm set, the capacities are solved in
// increasing order, each by the windows method with every window's cost
// scaling started from its smaller neighbour's optimal prices
// (mcf.SolveWarmWindows) when that neighbour is near enough (at least 2/3
// of it, nearEnough); the smallest, any farther from its neighbour, and
// any after a capacity of zero blocks or a stopped solve are solved from
// scratch as SolveFlow does. Without warm every capacity is solved from
// scratch: the same answers, for comparison. opt.TimeLimit bounds each
// capacity's solve.
//
// At capacity steps of 2^(1/3) the warm solves take about 0.6× the time of
// solves from scratch (docs/speed.md, "The optimum's capacity curve").
//
// # One network for every capacity
//
// SolveFlow's network at capacity C (see its doc) has the nodes 0..K, the
// line arcs t→t+1 and, per pair of consecutive turns, at most two piece
// arcs: the full piece (savings B tokens per block, capacity
// min(⌊E/B⌋, cap)) and the partial piece (E mod B, capacity 1, present
// when ⌊E/B⌋ < cap), with cap = min(⌊H/B⌋, C/B). The nodes, the arcs'
// ends and their costs do not depend on C, and cap grows with C, so a
// piece present at C is present at the largest capacity C_max. The curve
// builds, at every C, the network of C_max's arcs with C's capacities —
// a piece absent at C gets capacity 0, which carries nothing and changes
// no optimum — and C's supplies (cap_t − cap_{t−1}; under forced caching
// cap_t = C/B − min(⌊H/B⌋, C/B) = max(C/B − ⌊H/B⌋, 0), also growing with
// C). So all the networks share their nodes, arcs and costs, and an
// optimal flow and prices of one are a start for the next.
//
// # Exactness of the warm start (proof sketch)
//
// (1) The network at C has the same optimum as SolveFlow's (the arcs of
// capacity zero aside, it is the same network), so its min-cost flow
// value is −(maximum savings) at C. (2) mcf.SolveWarmWindows is exact
// from any integer prices: each scaling phase begins by saturating every
// arc of negative reduced cost, which makes the flow 0-optimal under the
// prices it has, whatever they are, and ends ε-optimal; the last phase and
// the primal–dual stage on the whole network are those of a solve from
// scratch; the prices of C's neighbour only make the work small. (3) Its
// answer is certified against C's network and the final prices (feasible
// and complementary slack, hence optimal by LP duality), and the schedule
// is replayed by CheckSchedule and its TEL recomputed, as for a separate
// solve. (4) The costs are the same at every C: the scale 2^s depends on
// ξ, K and B only, and the tie-breaking multiplier (when tieBreak is on)
// is T = (C_max/B)·K + 1 for the whole curve — above any total occupancy
// at every C ≤ C_max, which is all the tie-break needs (SolveFlow's doc),
// and checked to keep every path sum below 2^61 as there. The start
// prices are passed as the neighbour's solve left them: mcf.SolveWarmWindows
// shifts each window's so that its smallest is 0 (a shift changes no
// reduced cost) and starts from scratch a window whose prices span too
// much for int64, so no reduced cost can overflow.
func SolveFlowCurve(ctx context.Context, in *Instance, capacities []int64, opt Options, warm bool) ([]*Result, error) {
	if opt.Relax {
		return nil, errFlowRelax
	}
	if len(capacities) == 0 {
		return nil, nil
	}
	at := func(c int64) (*Instance, error) {
		ic := *in
		ic.Capacity = c
		if err := ic.Params.Validate(); err != nil {
			return nil, fmt.Errorf("lp: capacity %d tokens: %w", c, err)
		}
		return &ic, nil
	}
	sorted := slices.Clone(capacities)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	top, err := at(sorted[len(sorted)-1])
	if err != nil {
		return nil, err
	}
	cv := newCurveNet(top)
	done := map[int64]*Result{}
	var pi []int64 // the previous capacity's optimal prices, if they can start the next
	var from int64
	for _, c := range sorted {
		ic, err := at(c)
		if err != nil {
			return nil, err
		}
		if !warm || !nearEnough(from, c) {
			pi = nil
		}
		r, p, err := cv.solve(ctx, ic, opt, pi, from)
		if err != nil {
			return nil, fmt.Errorf("capacity %d tokens: %w", c, err)
		}
		done[c] = r
		pi, from = nil, c
		if r.Status == Optimal && ic.Blocks() > 0 {
			pi = p
		}
	}
	out := make([]*Result, len(capacities))
	for i, c := range capacities {
		out[i] = done[c]
	}
	return out, nil
}

// CurveWarmStarts reports whether SolveFlowCurve, warm, would start at
// least one of capacities (tokens) from its neighbour's optimum (some
// capacity within 1.5× of the next smaller positive one; nearEnough),
// provided its solves end optimal. When it would not, the curve is only
// separate solves one after another.
func CurveWarmStarts(capacities []int64) bool {
	sorted := slices.Clone(capacities)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1] > 0 && nearEnough(sorted[i-1], sorted[i]) {
			return true
		}
	}
	return false
}

// nearEnough reports whether the optimum at capacity from (tokens) is a
// good start for capacity c > from: c ≤ 1.5·from. The warm start pays only
// between near neighbours. Measured in one run on a birth–death trace
// (10^5 turns, B = 16, ξ = 300 tokens; the window solves alone, quiet
// machine, 2026-11-28): steps of 2^(1/3) took 0.60× the time of solves
// from scratch over a 16-point curve; one step of 2 took 1.06×, steps of 8
// and 32 took 1.6–1.7×. 1.5 lies between the gain and the break-even.
func nearEnough(from, c int64) bool { return 2*c <= 3*from }

// curveNet is the arc structure of the networks of a capacity curve: that
// of its largest capacity, whose pieces include every smaller capacity's
// (see SolveFlowCurve). Piece arc j runs from node tail[j] to node head[j]
// (the pair's end turn) with cost cost[j]; key[j] names its piece among
// the pair's Savings, and base[j] is its unperturbed savings per block
// (scaled by 2^shift).
type curveNet struct {
	k            int
	tail, head   []int32
	cost, base   []int64
	key          []Segment // Blocks unused: Tokens and PlusH name the piece
	costs        flowCosts
	startOfPairs []int32 // first piece arc of the pair ending at n; −1 if none
}

// newCurveNet builds the arc structure from the instance at the largest
// capacity; costs follow solveFlow's (same scale and perturbation rules),
// with the tie-break multiplier of the largest capacity.
func newCurveNet(top *Instance) *curveNet {
	h := top.FracH()
	K := top.K()
	fc := costScale(top) // T at C_max exceeds any occupancy at C ≤ C_max
	shift, tie := fc.shift, fc.tie
	cv := &curveNet{k: K, costs: fc, startOfPairs: make([]int32, K)}
	hs := int64(math.Round(math.Ldexp(h, shift)))
	for n := 0; n < K; n++ {
		cv.startOfPairs[n] = -1
		p := top.Prev[n]
		if p < 0 || top.Forced && n == p+1 {
			continue
		}
		a := p
		if top.Forced {
			a = p + 1
		}
		cv.startOfPairs[n] = int32(len(cv.tail))
		for _, sg := range top.Savings(n) {
			w := sg.Tokens * fc.scale
			if sg.PlusH {
				w += hs
			}
			c := -w
			if tie > 1 {
				c = -w*tie + int64(n-a)
			}
			cv.tail = append(cv.tail, int32(a))
			cv.head = append(cv.head, int32(n))
			cv.cost = append(cv.cost, c)
			cv.base = append(cv.base, w)
			cv.key = append(cv.key, Segment{Tokens: sg.Tokens, PlusH: sg.PlusH})
		}
	}
	return cv
}

// network builds the network of in's capacity on the curve's arcs, and
// the forced amounts of pairs with no step between them (blocks).
func (cv *curveNet) network(in *Instance) (*mcf.Network, []int64) {
	K, phi := cv.k, in.Blocks()
	g := mcf.NewNetwork(K + 1)
	var prev int64
	for t := 0; t < K; t++ {
		c := phi
		if in.Forced {
			c = phi - in.MaxKeep(t)
		}
		g.AddSupply(t, c-prev)
		prev = c
		g.AddArc(t, t+1, c, 0)
	}
	g.AddSupply(K, -prev)
	fixed := make([]int64, K)
	j := 0
	for n := 0; n < K; n++ {
		p := in.Prev[n]
		if p >= 0 && in.Forced && n == p+1 {
			fixed[n] = in.MaxKeep(p)
		}
		if cv.startOfPairs[n] < 0 {
			continue
		}
		segs := in.Savings(n)
		for ; j < len(cv.tail) && int(cv.head[j]) == n; j++ {
			var c int64
			for _, sg := range segs {
				if sg.Tokens == cv.key[j].Tokens && sg.PlusH == cv.key[j].PlusH {
					c = sg.Blocks
				}
			}
			g.AddArc(int(cv.tail[j]), n, c, cv.cost[j])
		}
	}
	return g, fixed
}

// solve solves the network of in's capacity by the windows method, warm
// from prices pi (the optimum at capacity from) when pi is not nil. It
// returns the Result and the final prices (nil unless Optimal).
func (cv *curveNet) solve(ctx context.Context, in *Instance, opt Options, pi []int64, from int64) (*Result, []int64, error) {
	start := time.Now()
	r := &Result{Formulation: Compact, Solver: "flow", Conditions: flowReadings(in)}
	K := cv.k
	g, fixed := cv.network(in)
	r.Rows, r.Cols = g.Nodes(), g.Arcs()
	r.Build = time.Since(start)
	ctx, cancel := opt.Bound(ctx)
	defer cancel()
	start = time.Now()
	var flow, prices []int64
	var stats, how string
	var err error
	if pi != nil {
		how = fmt.Sprintf("warm from C = %d tokens", from)
		flow, prices, stats, err = g.SolveWarmWindows(ctx, pi, cv.costs.scale, mcf.DefaultPlan())
	} else {
		how = string(mcf.Windows)
		flow, prices, stats, err = g.SolveWindowsPrices(ctx, mcf.DefaultPlan())
	}
	r.Solve = time.Since(start)
	if err := flowStopped(r, err, how, stats); err != nil {
		return nil, nil, err
	}
	if r.Status == TimeLimit {
		return r, nil, nil
	}
	var cost int64
	for i, f := range flow[K:] {
		cost -= cv.base[i] * f
	}
	z := make([]int64, K)
	for n := 0; n < K; n++ {
		z[n] = fixed[n]
		if s := cv.startOfPairs[n]; s >= 0 {
			for e := int(s); e < len(cv.head) && int(cv.head[e]) == n; e++ {
				z[n] += flow[K+e]
			}
		}
	}
	finishFlow(r, in, z, fixed, cost, how, stats, cv.costs)
	return r, prices, nil
}
