// Package slo computes hindsight bounds on the tail metrics the papers
// report (SPEC §3b): the fewest SLO violations over all admissible
// schedules of an lp.Instance, and from it the lowest achievable Q-th
// percentile of uncached tokens. Every answer is an interval [lower, upper]
// with a schedule attaining upper, and says whether it is proven optimal.
//
// # The problem
//
// With an SLO of s uncached tokens (a whole number; a turn meets it iff
// b_k ≤ s), a conversation's first turn meets it iff D_k ≤ s. A later turn
// n, whose conversation's previous turn is p, meets it iff the blocks z_n
// carried from p to n are at least d_n = ⌈(D_n − s)/B⌉. Carrying more than
// d_n never helps, so a schedule is a set S of served pairs, each holding
// d_n blocks over its steps (p..n−1 optional; p+1..n−1 forced, where the
// conversation just served holds F_t = min(⌊H/B⌋, C/B) blocks at its own
// step t and the step's capacity is C/B − F_t), and the problem is
//
//	maximize |S|   subject to   Σ_{n∈S, n spans t} d_n ≤ cap_t  for every step t,
//
// a cardinality unsplittable-flow problem on a path (NP-hard in general;
// exact here by branch and bound on small parts). Pairs with d_n ≤ 0 meet
// the SLO for free; pairs with d_n > min(⌊H_n/B⌋, C/B) or d_n above the
// capacity of one of their steps never can; under forced caching a pair
// with n = p+1 carries exactly F_p and meets the SLO iff F_p ≥ d_n.
//
// # Method
//
// Let L_t be the load of step t if every remaining candidate pair were
// served. A step is binding when L_t > cap_t. A candidate spanning no
// binding step is served in every optimum (adding it never breaks a row).
// The others fall into components: two candidates are linked when they
// span a common binding step, and components share no binding step, so the
// problem separates into one independent problem per component.
//
//   - Lower bound on violations (upper bound on served pairs): the LP
//     relaxation y ∈ [0, 1], solved as a min-cost flow on the line of
//     lp.SolveFlow (pair n's arc has capacity d_n blocks and cost −1/d_n per
//     block, scaled to integers: see lpBound for the rounding, which only
//     loosens the bound by less than one pair per component), and the weak
//     dual of the flow's prices (dual.go), valid for any prices: when the
//     time limit stops the flow, the prices its windows reached still
//     certify a bound. A percentile probe's flow starts from the previous
//     probe's prices (Warm).
//   - Upper bound (a feasible schedule): the LP's fully served pairs, then
//     every other candidate that still fits, smallest demand first
//     (greedy), then a pass of one-out-two-in exchanges, then a
//     large-neighbourhood search (lns.go: windows of a few tens of pairs
//     solved exactly with the rest fixed; a window budget, or most of the
//     time limit). A previous solve's schedule (Options.Warm) is a third
//     start beside the LP's rounding and the empty set.
//   - Tighter lower bound (on open components, at the root of the pure-Go
//     branch and bound): valid inequalities of single rows moved into the
//     flow's costs by Lagrange multipliers (cuts.go, lagrange.go), then a
//     Lagrangian decomposition into windows of two rows, each window's
//     0/1 program solved exactly by dynamic programming and the flow
//     keeping the rest of each pair's profit (decomp.go). Every such bound
//     is certified in whole-number arithmetic, whatever the multipliers.
//     On a component too large for the branch and bound (10^5 turns and
//     beyond: one component of millions of incidences) the Lagrangian
//     decomposition into long stretches of rows (stretch.go) runs on its
//     own, from the LP's prices, before the search (scalebound.go).
//   - Exact: a component whose two bounds differ is solved as a 0/1 integer
//     program (one binary per pair, one row per distinct binding step) by
//     the lp.Backend given (gonum's branch and bound in pure Go, CBC with
//     the coin build tag), when it fits and within the time limit.
package slo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp"
)

// Options bound a solve.
type Options struct {
	// Backend solves the components the bounds leave open as integer
	// programs; nil leaves them as intervals.
	Backend lp.Backend
	// TimeLimit bounds the whole solve (0: none). When it runs out the
	// answer is the interval reached so far (still certified).
	TimeLimit time.Duration
	// MaxRows skips the integer program of a component with more rows
	// than this (0: no limit of its own; the backend may refuse with
	// lp.TooLarge).
	MaxRows int
	// NoImprove skips the greedy fill and the exchanges (the upper bound is
	// then the LP's rounding alone); for measuring them.
	NoImprove bool
	// MaxNonZeros skips the integer program of a component whose rows
	// would hold more non-zeros than this (0: DefaultMaxNonZeros), so a
	// giant component never builds a program larger than memory allows.
	MaxNonZeros int
	// ComponentTimeLimit bounds each component's integer program (0:
	// only TimeLimit).
	ComponentTimeLimit time.Duration
	// NoLP skips the LP relaxation: every component is then open and goes
	// to Backend alone (for checking the integer program by itself).
	NoLP bool
	// NoSearch skips the pure-Go branch and bound with cuts (bnb.go) that
	// otherwise runs on each open component before Backend, whenever
	// Backend is set.
	NoSearch bool
	// SearchTimeLimit bounds the branch and bound of each open component
	// (0: ComponentTimeLimit, else what is left of TimeLimit, else 10 s).
	SearchTimeLimit time.Duration
	// NoLNS skips the large-neighbourhood search after the greedy stages
	// (lns.go); for measuring it.
	NoLNS bool
	// LNSWindows is the search's budget of windows without a time limit
	// (0: DefaultLNSWindows); under a time limit it searches until 3/4
	// of the time is used or it stalls.
	LNSWindows int
	// StopAt (> 0) stops improving the schedule once it has at most this
	// many violations (a percentile probe needs no fewer); 0: improve as
	// far as the search goes.
	StopAt int
	// Warm (nil: none) starts the schedule from a previous solve's (warm.go);
	// the answer is never worse than without it.
	Warm *Warm
	// Reserved (nil: none), when given, holds one entry per step of the
	// instance: blocks already held at that step by pairs outside the
	// instance, taken off the step's capacity (lp/window re-solves a seam
	// between two windows on what the rest of the schedule leaves). The
	// schedule returned then fits in the capacity less Reserved.
	Reserved []int64
	// Progress (nil: none) is told each τ probe of Percentile and each
	// window of lp/window.RunSLO.
	Progress progress.Func
	// LongStretchRows is the span, in rows, of the long stretches solved
	// exactly beside the search under a time limit (by the flow LP's
	// branch and bound, stretchflow.go and stretchmip.go; 0:
	// DefaultLongStretchRows, < 0: none). A component with fewer than
	// four stretches' rows is left to the integer program whole.
	LongStretchRows int
}

// DefaultMaxNonZeros is Options.MaxNonZeros's default: 2·10^6 entries.
const DefaultMaxNonZeros = 2_000_000

// Result is the answer for one SLO.
type Result struct {
	// SLOTokens is s: a turn violates the SLO iff b > s.
	SLOTokens int64
	// Lower and Upper bound the fewest violations; Proven when equal.
	Lower, Upper int
	Proven       bool
	// LP is the LP relaxation's lower bound on violations before
	// rounding up (turns − LP's served pairs, fractional); NaN when the
	// flow was not solved.
	LP float64
	// Schedule is x_k, tokens cached at each turn's arrival, attaining
	// Upper; admissible (lp.Instance.CheckSchedule).
	Schedule []int64
	// Sizes: turns, pairs that are candidates (can meet the SLO only
	// with capacity), those served in every optimum, components, and
	// components proven by the bounds and by the integer program.
	Turns, Candidates, Free, Components, ProvenByBounds, ProvenByIP int
	// Detail names what was not proven and why.
	Detail string
	// ProvenBySearch counts the components of ProvenByIP proven by the
	// pure-Go branch and bound; CutBound is the lower bound on violations
	// from the Lagrangian bound with cuts of the open components
	// (fractional, as LP; NaN when it did not run).
	ProvenBySearch int
	CutBound       float64
	// Build, LPTime, Improve and IP are wall times of the stages.
	Build, LPTime, Improve, IP time.Duration
	// LNSWindows, LNSExact and LNSGained: windows the large-neighbourhood
	// search solved, those it solved exactly, and the pairs it gained
	// (part of Improve).
	LNSWindows, LNSExact, LNSGained int
	// Warm is what a next solve at another SLO can start from.
	Warm *Warm
}

// pair is a candidate: turn n's carried blocks d over steps a..n−1.
type pair struct {
	n, a int
	d    int64
}

// problem is the reduced instance: capacities per step after the free
// candidates, and the candidates that compete.
type problem struct {
	in  *lp.Instance
	s   int64
	cap []int64 // capacity of each step, blocks, after free pairs
	// capTree answers range minima of cap (built on first use)
	capTree *minTree
	meets   []bool  // turn meets the SLO in the schedule being built
	x       []int64 // schedule, tokens
	cands   []pair  // competing candidates
	comp    []int   // component of each candidate
	ncomp   int
	free    int
	always  int // turns meeting the SLO whatever the schedule
	// lpY is the LP relaxation's y_n per candidate (nil before it is
	// solved); the LNS of lns.go picks its windows by it.
	lpY []float64
	// prices are the LP relaxation's last prices (nil before it ran).
	prices *lpPrices
	// learned holds, per component, the cuts the pure-Go search
	// separated, handed to the backend's program (ip.go); ipNotes says
	// what the backend did with the components it did not close.
	learned map[int][]cut
	ipNotes []string
	// wt, when not nil, weighs each turn's pair in the LP relaxation
	// (WeightedLower, weighted.go): turn n counts wt[n]/den, 0 ≤ wt[n] ≤
	// den; nil: every pair counts 1 (every other solve).
	wt  []int64
	den int64
}

// limits are, per component, the most any bound on it can say (its
// pairs; weighted, the sum of their wt) and the step between the values
// a schedule's served pairs can take (1; weighted, the greatest common
// divisor of their wt, 1 when all are 0).
func (pr *problem) limits() (size, g []int) {
	size, g = make([]int, pr.ncomp), make([]int, pr.ncomp)
	for i, c := range pr.comp {
		if pr.wt == nil {
			size[c]++
			g[c] = 1
			continue
		}
		w := int(pr.wt[pr.cands[i].n])
		size[c] += w
		g[c] = gcd(g[c], w)
	}
	for c := range g {
		g[c] = max(g[c], 1)
	}
	return size, g
}

// gcd is the greatest common divisor of a, b ≥ 0 (gcd(0, b) = b).
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Violations bounds the fewest turns with more than s uncached tokens
// over every admissible schedule of in.
func Violations(ctx context.Context, in *lp.Instance, s int64, opt Options) (*Result, error) {
	start := time.Now()
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	pr, err := reduceChecked(in, s, opt.Reserved)
	if err != nil {
		return nil, err
	}
	r := &Result{SLOTokens: s, Turns: in.K(), Candidates: len(pr.cands) + pr.free, Free: pr.free,
		Components: pr.ncomp, LP: math.NaN(), CutBound: math.NaN()}
	r.Build = time.Since(start)

	// LP bound per component and its rounding.
	start = time.Now()
	served := make([]bool, len(pr.cands))
	ubComp := make([]int, pr.ncomp) // most pairs served, per component
	for c := range ubComp {
		ubComp[c] = -1
	}
	if len(pr.cands) > 0 && !opt.NoLP {
		// The LP may take the whole time: cut short it still gives a
		// certified bound, and the greedy stages after it run to the end
		// at least once (their fill does not stop at the deadline). An
		// earlier cut at 80 % of the time left, to leave the search the
		// rest, cost more than it gained: on the embedded workload at load
		// 50 the LP then stopped short where it would have finished
		// ([1,645, 2,201] against [2,036, 2,135], 2026-11-29).
		var warm *lpPrices
		if opt.Warm != nil {
			warm = opt.Warm.lp
		}
		lpServed, ub, lpv, complete, err := pr.lpBoundFrom(ctx, warm)
		switch {
		case err != nil:
			return nil, err
		case !complete:
			ubComp = ub
			r.Detail = "LP relaxation cut short by the time limit: its bound is the weak dual of the prices reached"
		default:
			served, ubComp = lpServed, ub
			r.LP = float64(in.K()-pr.always) - lpv
		}
	}
	r.LPTime = time.Since(start)

	start = time.Now()
	if !opt.NoImprove {
		// Improve the LP's rounding, and a greedy start from nothing;
		// keep whichever serves more.
		fresh := make([]bool, len(served))
		pr.improve(ctx, served)
		pr.improve(ctx, fresh)
		if count(fresh) > count(served) {
			served = fresh
		}
		if w := pr.warmServed(ctx, opt.Warm); count(w) > count(served) {
			served = w
		}
	}
	pr.warmLP(opt.Warm)
	// Under a time limit, long stretches solved exactly beside the
	// search (stretchmip.go, stretchflow.go).
	mipStretches := pr.startMIPStretches(ctx, served, ubComp, opt, r)
	// On components too large for the branch and bound, the stretches'
	// bound at the LP's split first, then the search, then steps on the
	// stretches' shares in the time the search leaves (scalebound.go).
	scaleSteps := pr.scaleStage(ctx, served, ubComp, opt, r)
	pr.improveLNS(ctx, served, ubComp, opt, r)
	scaleSteps()
	mipStretches()
	r.Improve = time.Since(start)

	// Components left open: integer program.
	start = time.Now()
	count := make([]int, pr.ncomp)
	size := make([]int, pr.ncomp)
	for i, c := range pr.comp {
		size[c]++
		if served[i] {
			count[c]++
		}
	}
	var open []int
	for c := 0; c < pr.ncomp; c++ {
		if ubComp[c] < 0 {
			ubComp[c] = size[c]
		}
		if count[c] >= ubComp[c] {
			r.ProvenByBounds++
		} else {
			open = append(open, c)
		}
	}
	if opt.Backend != nil && len(open) > 0 {
		members := pr.members()
		skipped := 0
		for _, c := range open {
			if ctx.Err() != nil {
				break
			}
			if !opt.NoSearch {
				// Pure-Go branch and bound with cuts first (search.go).
				proven, err := pr.search(ctx, members[c], served, ubComp, c, r, opt)
				if err != nil {
					return nil, err
				}
				if proven {
					continue
				}
			}
			got, ok, err := pr.solveIP(ctx, c, members[c], served, ubComp, opt)
			if err != nil {
				return nil, err
			}
			if ok {
				ubComp[c] = got
				r.ProvenByIP++
			} else {
				skipped++
			}
		}
		if skipped > 0 || ctx.Err() != nil {
			r.Detail = joinDetail(r.Detail, fmt.Sprintf("%d of %d open components not solved by %s", len(open)-r.ProvenByIP, len(open), opt.Backend.Name()))
			for _, n := range pr.ipNotes {
				r.Detail = joinDetail(r.Detail, n)
			}
		}
	} else if len(open) > 0 {
		r.Detail = joinDetail(r.Detail, fmt.Sprintf("%d components left open (no integer-program backend)", len(open)))
	}
	r.IP = time.Since(start)

	// Assemble.
	total, best := 0, 0
	for i, c := range pr.comp {
		_ = c
		if served[i] {
			total++
			p := pr.cands[i]
			pr.meets[p.n] = true
			pr.x[p.n] = p.d * in.BlockSize
		}
	}
	for _, u := range ubComp {
		best += u
	}
	r.Upper = in.K() - pr.always - total
	r.Lower = in.K() - pr.always - best
	r.Proven = r.Lower == r.Upper
	r.Schedule = pr.x
	r.Warm = &Warm{Schedule: r.Schedule, LPServe: pr.lpServe(opt.Warm), lp: pr.lpWarm(opt.Warm)}
	if err := in.CheckSchedule(r.Schedule); err != nil {
		return nil, fmt.Errorf("slo: internal error: the schedule is not admissible: %w", err)
	}
	if v := Count(in, r.Schedule, s); v != r.Upper {
		return nil, fmt.Errorf("slo: internal error: the schedule has %d violations, the bound says %d", v, r.Upper)
	}
	if r.Lower > r.Upper {
		return nil, fmt.Errorf("slo: internal error: lower bound %d above upper bound %d", r.Lower, r.Upper)
	}
	return r, nil
}

// count is the number of true values.
func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Count returns the number of turns of in whose uncached tokens exceed s
// when x (tokens per turn) is cached.
func Count(in *lp.Instance, x []int64, s int64) int {
	v := 0
	for k := range in.Turns {
		if in.Load(k)-x[k] > s {
			v++
		}
	}
	return v
}

// capAt is step t's capacity in blocks before any pair is carried.
func capAt(in *lp.Instance, t int) int64 {
	if in.Forced {
		return in.Blocks() - in.MaxKeep(t)
	}
	return in.Blocks()
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// reduce classifies every turn and splits the candidates into components.
func reduce(in *lp.Instance, s int64) *problem { return reduceReserved(in, s, nil) }

// membersServed is members, with how many of each component's candidates
// served marks.
func (pr *problem) membersServed(served []bool) (members [][]int, cnt []int) {
	members = pr.members()
	cnt = make([]int, pr.ncomp)
	for i, c := range pr.comp {
		if served[i] {
			cnt[c]++
		}
	}
	return members, cnt
}

// members lists each component's candidates (indices into pr.cands), in
// increasing order.
func (pr *problem) members() [][]int {
	members := make([][]int, pr.ncomp)
	for i, c := range pr.comp {
		members[c] = append(members[c], i)
	}
	return members
}

// reduceReserved is reduce with reserved[t] blocks (nil: none) taken off
// each step's capacity (Options.Reserved, checked by the caller).
func reduceReserved(in *lp.Instance, s int64, reserved []int64) *problem {
	K := in.K()
	B := in.BlockSize
	pr := &problem{in: in, s: s, cap: make([]int64, K), meets: make([]bool, K), x: make([]int64, K)}
	for t := 0; t < K; t++ {
		pr.cap[t] = capAt(in, t)
		if reserved != nil {
			pr.cap[t] -= reserved[t]
		}
	}
	// min capacity over an interval: sparse enough to do by a sparse
	// table only when the capacity varies (forced caching, reserved
	// blocks); otherwise it is uniform.
	var mt *minTree
	varying := in.Forced || reserved != nil
	if varying {
		mt = newMinTree(pr.cap)
	}
	var all []pair
	for n := 0; n < K; n++ {
		D := in.Load(n)
		p := in.Prev[n]
		if p < 0 {
			if D <= s {
				pr.meets[n] = true
				pr.always++
			}
			continue
		}
		zmax := in.MaxKeep(p)
		need := D - s
		fixedPair := in.Forced && n == p+1
		if fixedPair {
			pr.x[n] = zmax * B
			if zmax*B >= need {
				pr.meets[n] = true
				pr.always++
			}
			continue
		}
		if need <= 0 {
			pr.meets[n] = true
			pr.always++
			continue
		}
		d := ceilDiv(need, B)
		a := p
		if in.Forced {
			a = p + 1
		}
		if d > zmax {
			continue
		}
		if varying && mt.min(a, n-1) < d || !varying && d > in.Blocks() {
			continue
		}
		all = append(all, pair{n: n, a: a, d: d})
	}
	// Loads if all were served; binding steps.
	diff := make([]int64, K+1)
	for _, c := range all {
		diff[c.a] += c.d
		diff[c.n] -= c.d
	}
	bindIdx := make([]int, K+1) // number of binding steps before t
	var load int64
	for t := 0; t < K; t++ {
		load += diff[t]
		bindIdx[t+1] = bindIdx[t]
		if load > pr.cap[t] {
			bindIdx[t+1]++
		}
	}
	// Free candidates leave capacity; the others get their binding range.
	type ranged struct {
		pair
		lo, hi int // binding-step indices spanned, [lo, hi)
	}
	var rest []ranged
	clear(diff)
	for _, c := range all {
		lo, hi := bindIdx[c.a], bindIdx[c.n]
		if lo == hi {
			pr.free++
			pr.always++
			pr.meets[c.n] = true
			pr.x[c.n] = c.d * B
			diff[c.a] += c.d
			diff[c.n] -= c.d
			continue
		}
		rest = append(rest, ranged{c, lo, hi})
	}
	load = 0
	for t := 0; t < K; t++ {
		load += diff[t]
		pr.cap[t] -= load
	}
	slices.SortStableFunc(rest, func(u, v ranged) int { return u.lo - v.lo })
	pr.cands = make([]pair, len(rest))
	pr.comp = make([]int, len(rest))
	reach := -1
	for i, c := range rest {
		if c.lo >= reach {
			pr.ncomp++
		}
		reach = max(reach, c.hi)
		pr.cands[i] = c.pair
		pr.comp[i] = pr.ncomp - 1
	}
	return pr
}
