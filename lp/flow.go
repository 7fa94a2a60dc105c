package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tailbound/tailbound/lp/mcf"
)

// SolveFlow solves the hindsight problem exactly, at any block size, as a
// min-cost flow (the "flow" solver of SPEC §3). It solves the compact
// formulation's integer program (Result.Formulation is Compact).
//
// # Construction
//
// Nodes 0..K, one per step boundary; step t is the arc t→t+1 of the line.
// Each step has a capacity of cap_t blocks: C/B under optional caching,
// C/B − F_t under forced caching (turn t's conversation holds its whole
// history F_t = min(⌊H/B⌋, C/B) at its own step). The line arc t→t+1 has
// capacity cap_t and cost 0 and carries the free capacity of step t; node
// supplies cap_0 at node 0, cap_t − cap_{t−1} at node t, −cap_{K−1} at node
// K make every cut between steps carry exactly cap_t units.
//
// A pair (p, n) of consecutive turns of a conversation spans the steps
// p..n−1 (optional) or p+1..n−1 (forced); its carried amount z (blocks,
// x_n = B·z) is split into the pieces of Instance.Savings — up to ⌊E/B⌋
// blocks saving B tokens each and one block saving E mod B, with E =
// D_n − ξ, all capped at min(⌊H_n/B⌋, C/B) — and each piece is an arc from
// the node of its first step to node n with the piece's capacity and cost
// −(savings per block). Flow on those arcs bypasses the line arcs of the
// steps it spans: it is cache occupancy. Under forced caching a pair with
// n = p+1 spans no step, its amount is fixed and its savings a constant.
//
// # Exactness and integrality (proof sketch)
//
// (1) Any admissible schedule gives a feasible flow of cost −(savings):
// route z_n through its pieces in order (the higher-saving piece first)
// and the rest of each cut on the line; the cut of step t then carries
// cap_t, and line arcs stay within [0, cap_t] because occupancy ≤ cap_t.
// Since the pieces have decreasing savings per block (B > E mod B > 0), the
// savings of z blocks filled in order are exactly max(D−ξ,0) −
// max(D−zB−ξ,0) (Instance.Savings checks this at ξ ≤ 0, fractional ξ and
// the cap z ≤ ⌊H/B⌋). (2) Conversely any feasible flow gives z_n = the
// flow on n's arcs, an occupancy ≤ cap_t at every step, hence an admissible
// schedule, whose savings are at least the flow's (filling pieces in order
// can only save more). So the min-cost flow value = −(maximum savings) and
// TEL_opt = Σ_k max(D_k − ξ, 0) − maximum savings. (3) The constraint matrix
// of a flow problem is a network matrix, totally unimodular, and all
// capacities and supplies are integers; every method here moves flow in
// whole units on integer data, so each ends at an integral optimum: whole
// blocks, at every B. (4) The compact IP's
// constraint matrix is an interval matrix in z with slack rows u + Bz ≥
// D − ξ; it is not totally unimodular once B > 1, which is why its plain
// LP relaxation can fall below this optimum (a fractional block can save a
// full B tokens per block), while the flow with pieces cannot.
//
// Costs are integers: savings per block are B tokens, or j + H tokens for
// the last piece (j whole, H = 1 − frac(ξ)), scaled by 2^s with the least s
// ≤ 30 that makes H·2^s whole. They are then multiplied by T = (C/B)·K + 1
// and each piece arc's cost is raised by the number of steps it spans: the
// total of those raises is below T for any flow, so the order of flows by
// savings is unchanged (the optimum is the same) while ties between equal
// savings are broken towards holding fewer block-steps. This removes the
// massive degeneracy of equal B-token pieces, which otherwise makes the
// shortest-path searches explore wide plateaus of zero reduced cost.
// Every path sum must stay below 2^61: when T does not fit, ties are left
// unbroken; when 2^s does not fit (or s would exceed 30), H·2^s is rounded
// at the largest s that fits and the optimum is exact to within 2^−(s+1)
// tokens per turn (Result.Detail says so).
func SolveFlow(ctx context.Context, in *Instance, opt Options) (*Result, error) {
	return solveFlow(ctx, in, opt, mcf.Windows, mcf.DefaultPlan())
}

// errFlowRelax is flow's refusal of a plain LP relaxation.
var errFlowRelax = errors.New("solver flow solves the integer program (its own LP is integral); the plain LP relaxation needs an LP solver (auto, clp or gonum)")

// tieBreak turns on the tie-breaking perturbation of the piece costs. It is
// exact but off: measured on birth–death traces it made the sweep explore
// three times more nodes (the plateaus of equal savings guide its searches
// straight to their target; spread out, they do not).
const tieBreak = false

// SolveFlowWith is SolveFlow with a chosen min-cost flow algorithm
// (mcf.Methods).
func SolveFlowWith(ctx context.Context, in *Instance, opt Options, method mcf.Method) (*Result, error) {
	return solveFlow(ctx, in, opt, method, mcf.DefaultPlan())
}

// solveFlow is SolveFlowWith with the windows of the Windows method.
func solveFlow(ctx context.Context, in *Instance, opt Options, method mcf.Method, plan mcf.Plan) (*Result, error) {
	if opt.Relax {
		return nil, errFlowRelax
	}
	start := time.Now()
	r := &Result{Formulation: Compact, Solver: "flow", Conditions: flowReadings(in)}
	h := in.FracH()
	K := in.K()
	phi := in.Blocks()
	fc := costScale(in)
	shift, tie, scale := fc.shift, fc.tie, fc.scale
	hs := int64(math.Round(math.Ldexp(h, shift)))
	weight := func(sg Segment) int64 {
		w := sg.Tokens * scale
		if sg.PlusH {
			w += hs
		}
		return w
	}
	capAt := func(t int) int64 {
		if in.Forced {
			return phi - in.MaxKeep(t)
		}
		return phi
	}
	g := mcf.NewNetwork(K + 1)
	var prev int64
	for t := 0; t < K; t++ {
		c := capAt(t)
		g.AddSupply(t, c-prev)
		prev = c
		g.AddArc(t, t+1, c, 0)
	}
	g.AddSupply(K, -prev)
	// The arcs of the pair ending at n are arcStart[n], … (arcCount[n]).
	arcStart := make([]int32, K)
	var base []int64 // unperturbed savings per block of piece arcs, scaled
	arcCount := make([]int8, K)
	fixed := make([]int64, K) // forced pairs with no step in between
	for n := 0; n < K; n++ {
		p := in.Prev[n]
		if p < 0 {
			continue
		}
		if in.Forced && n == p+1 {
			fixed[n] = in.MaxKeep(p)
			continue
		}
		a := p
		if in.Forced {
			a = p + 1
		}
		arcStart[n] = int32(g.Arcs())
		for _, sg := range in.Savings(n) {
			// With tie > 1 the cost also counts the steps held, as a
			// tie-break below one unit of savings: among optimal
			// schedules the one holding least is preferred, which
			// removes the degeneracy of equal savings.
			if tie > 1 {
				g.AddArc(a, n, sg.Blocks, -weight(sg)*tie+int64(n-a))
			} else {
				g.AddArc(a, n, sg.Blocks, -weight(sg))
			}
			base = append(base, weight(sg))
			arcCount[n]++
		}
	}
	r.Rows, r.Cols = g.Nodes(), g.Arcs()
	r.Build = time.Since(start)
	ctx, cancel := opt.Bound(ctx)
	defer cancel()
	start = time.Now()
	var flow []int64
	var stats string
	var err error
	if method == mcf.Windows {
		plan.Progress = opt.Progress
		flow, stats, err = g.SolveWindows(ctx, plan)
	} else {
		flow, stats, err = g.SolveProgress(ctx, method, opt.Progress)
	}
	r.Solve = time.Since(start)
	if err := flowStopped(r, err, string(method), stats); err != nil {
		return nil, err
	}
	if r.Status == TimeLimit {
		return r, nil
	}
	var cost int64
	for i, f := range flow[K:] {
		cost -= base[i] * f
	}
	z := make([]int64, K)
	for n := 0; n < K; n++ {
		z[n] = fixed[n]
		for e := int(arcStart[n]); e < int(arcStart[n])+int(arcCount[n]); e++ {
			z[n] += flow[e]
		}
	}
	finishFlow(r, in, z, fixed, cost, string(method), stats, fc)
	return r, nil
}

// flowStopped records in r a solve stopped by its time limit or its
// context (Status TimeLimit, TEL NaN; how names the method, stats its
// counters) and turns any other solver error into the flow solver's
// error; nil and r untouched when the solve ended.
func flowStopped(r *Result, err error, how, stats string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		r.Status, r.Detail, r.TEL = TimeLimit, fmt.Sprintf("%s stopped (%s)", how, stats), math.NaN()
		return nil
	case errors.Is(err, mcf.ErrInfeasible):
		return fmt.Errorf("flow: the step network is infeasible, which the construction rules out: %w", err)
	default:
		return fmt.Errorf("flow: %w", err)
	}
}

// finishFlow fills r from an optimal flow: z[n] is the blocks carried to
// turn n (fixed[n] of them fixed by forced caching), cost the flow's cost
// over the piece arcs without the tie-break (scaled by fc.scale). The
// schedule is replayed (its TEL and CheckSchedule), and, when the costs are
// exact, the base TEL less the flow's savings must equal the schedule's TEL
// (else Status Numerical).
func finishFlow(r *Result, in *Instance, z, fixed []int64, cost int64, how, stats string, fc flowCosts) {
	K := len(z)
	r.Status, r.Integral, r.Points = Optimal, true, true
	r.Schedule = make([]int64, K)
	for n, b := range z {
		r.Schedule[n] = b * in.BlockSize
	}
	r.ScheduleTEL = in.TEL(r.Schedule)
	r.ScheduleErr = in.CheckSchedule(r.Schedule)
	r.TEL = r.ScheduleTEL
	r.Detail = fmt.Sprintf("%s (%s), costs scaled by 2^%d", how, stats, fc.shift)
	if fc.tie > 1 {
		r.Detail += ", ties broken by steps held"
	}
	if !fc.exact {
		r.Detail += fmt.Sprintf("; frac(ξ) rounded to %d bits: optimal to within 2^-%d tokens per turn (%.3g tokens here)", fc.shift, fc.shift+1, float64(K)*math.Ldexp(1, -fc.shift-1))
	}
	// Consistency: base TEL − savings from the flow's cost (plus fixed
	// forced savings) must equal the schedule's TEL.
	saved := float64(-cost) / float64(fc.scale)
	for n := 0; n < K; n++ {
		if fixed[n] > 0 {
			saved += in.Excess(n, 0) - in.Excess(n, fixed[n]*in.BlockSize)
		}
	}
	if fc.exact {
		if d := math.Abs(in.BaseTEL() - saved - r.ScheduleTEL); d > 1e-6*math.Max(1, r.ScheduleTEL) {
			r.Status = Numerical
			r.Detail += fmt.Sprintf("; flow cost and schedule TEL differ by %g tokens", d)
		}
	}
}

func flowReadings(in *Instance) []Condition {
	c := []Condition{
		{"steps", "step t = arrival of turn t; capacity holds after each turn's update"},
		{"pieces", "carried blocks split into B-token pieces up to ⌊(D−ξ)/B⌋, one (D−ξ) mod B piece, capped at ⌊H/B⌋ and C/B"},
		{"line-network", "min-cost flow on K+1 step nodes: line arcs carry free capacity, piece arcs carry cached blocks"},
	}
	if in.Forced {
		c = append(c, Condition{"forced", "the served conversation holds min(⌊H/B⌋, C/B) blocks at its own step"})
	}
	return c
}

// costScale returns the costs' scale 2^shift, whether it makes them exact
// (H·2^shift whole, H = 1 − frac(ξ)), and the tie-breaking multiplier T (1
// when tieBreak is off or T does not fit) of the flow network of in (see
// SolveFlow): the least shift ≤ 30 that makes H·2^shift whole, lowered
// until every path sum, (K+1)·max|cost|, stays below 2^61. With in at the
// largest capacity of a curve, T = (C/B)·K + 1 exceeds the total occupancy
// (blocks·steps) at every smaller capacity too.
func costScale(in *Instance) flowCosts {
	h := in.FracH()
	K := in.K()
	need := 0
	for ; need <= 30; need++ {
		if v := math.Ldexp(h, need); v == math.Floor(v) {
			break
		}
	}
	fits := func(s int, tie int64) bool {
		return float64(K+1)*(float64(in.BlockSize)*math.Ldexp(1, s)*float64(tie)+float64(K)) < math.Ldexp(1, 61)
	}
	tie := int64(1) // see tieBreak
	if tieBreak {
		tie = in.Blocks()*int64(K) + 1 // > any total occupancy, blocks·steps
		if !fits(min(need, 30), tie) {
			tie = 1
		}
	}
	shift, exact := min(need, 30), need <= 30
	for shift > 0 && !fits(shift, tie) {
		shift, exact = shift-1, false
	}
	return flowCosts{shift: shift, exact: exact, tie: tie, scale: int64(1) << shift}
}

// PieceCosts returns the flow network's integer piece costs for in (see
// SolveFlow): a segment saving s tokens per block costs
// −(s.Tokens·scale + hs if s.PlusH) scaled units, with scale = 2^shift; exact
// says H·scale is whole (else frac(ξ) was rounded to shift bits, optimal to
// within 2^−(shift+1) tokens per turn). Other networks on the same pieces
// (lp/window's windows) use it to cost them as SolveFlow does.
func PieceCosts(in *Instance) (scale, hs int64, shift int, exact bool) {
	fc := costScale(in)
	return fc.scale, int64(math.Round(math.Ldexp(in.FracH(), fc.shift))), fc.shift, fc.exact
}

// flowCosts are the flow network's cost rules (costScale): piece costs
// are savings in tokens times scale = 2^shift, exact when H·2^shift is
// whole, and multiplied by tie (> 1 only with tieBreak) plus the steps
// held.
type flowCosts struct {
	shift int
	exact bool
	tie   int64
	scale int64
}
