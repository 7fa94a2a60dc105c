package slo

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/objective"
)

// PercentileResult is the answer for one percentile.
type PercentileResult struct {
	// Q is the percentile, percent; Rank its nearest rank among the K
	// turns and MaxExceeding = K − Rank the turns allowed above it.
	Q                  float64
	Rank, MaxExceeding int
	// Lower and Upper bound the lowest achievable Q-th percentile of
	// uncached tokens, tokens; Proven when equal.
	Lower, Upper int64
	Proven       bool
	// Schedule attains Upper: its Q-th percentile of uncached tokens is
	// Upper.
	Schedule []int64
	// Probes is the number of thresholds probed (an LP, a stretches'
	// bound, a search for a schedule, an SLO problem); Undecided those
	// SLO problems of the search with a Backend whose interval straddled
	// MaxExceeding.
	Probes, Undecided int
	// Detail says why the answer is not proven, when it is not.
	Detail string
}

// probeLNSWindows is the search's budget of windows per probe of
// Percentile before any probe is undecided (a quarter of one SLO solve's:
// a probe the search does not decide is left to the next probes); the
// probes that only search for schedules get a whole SLO solve's.
const probeLNSWindows = DefaultLNSWindows / 4

// Percentile bounds the lowest Q-th nearest-rank percentile (Q in
// (0, 100), percent) of uncached tokens over all admissible schedules of
// in, by a search over τ on the SLO problem: P_Q ≤ τ iff at most K −
// objective.Rank(K, Q) turns exceed τ. The fewest violations V(τ) is
// non-increasing in τ, so an SLO answer whose upper bound is ≤ K − Rank
// proves P_Q ≤ τ (its schedule shows it) and one whose lower bound exceeds
// it proves P_Q > τ and so P_Q > τ' for every τ' ≤ τ. The search narrows
// the interval between the largest τ proven too low and the smallest
// proven achievable; a probe that proves neither splits the search in two.
//
// It costs a small multiple of one SLO solve (issue 32): the two ends
// are searched apart (percentile_sides.go), the lower one by a few flow
// LPs at the estimated crossing of their bound with K − Rank, each
// followed by the weak dual of its prices on the thresholds beside it,
// and with a Backend by the stretches' bound just above it; the upper one
// by the greedy fill bisected over τ and the large-neighbourhood search
// one token below the best schedule's own percentile, stopped as soon as
// it serves enough pairs. With a deadline the two run at once, the
// stretches are the SLO solve's at scale (the LP's split and steps on the
// shares) and the search, once a probe fails, its wide stage on every
// core, started again from the LP's rounding when it stalls.
func Percentile(ctx context.Context, in *lp.Instance, q float64, opt Options) (*PercentileResult, error) {
	return PercentileOf(ctx, in, objective.Objective{Kind: objective.Percentile, Q: q}, opt)
}

// PercentileOf is Percentile of objective o (a percentile, as
// objective.Parse reads it), its rank from o's decimal exactly
// (Objective.Rank), also when float64 cannot hold that decimal.
//
// With a Backend, the two sides use the stretches, and when they end
// before the deadline without meeting (on small instances their LP and
// search can leave a gap the integer programs close) the earlier τ search
// with the Backend in every undecided probe continues from their interval
// and schedule (percentileSearch). Each only narrows the certified
// interval it starts from.
func PercentileOf(ctx context.Context, in *lp.Instance, o objective.Objective, opt Options) (*PercentileResult, error) {
	// The long stretches solved beside the search (stretchmip.go) are
	// not measured inside the τ search: each probe would spend its time
	// on them. Off; the split side (percentile_sides.go) has its own.
	opt.LongStretchRows = -1
	first, err := percentileTwoSided(ctx, in, o, opt)
	if err != nil {
		return nil, err
	}
	if opt.Backend == nil || first.Proven || ctx.Err() != nil {
		return first, nil
	}
	return percentileSearch(ctx, in, o, opt, first)
}

// Settings of percentileTwoSided's sides.
const (
	// percentileStretchIter bounds the steps of a stretch run of the
	// lower side without a deadline.
	percentileStretchIter = 10
	// percentileFails: schedule probes failing in a row before the upper
	// side stops, without a deadline and with one (each failure doubles
	// the windows: 1,000, 2,000 and 4,000 without one, the last an SLO
	// solve's whole budget, as the search with a Backend gives a probe
	// that only searches for schedules).
	percentileFails         = 3
	percentileFailsDeadline = 6
)

// newPercentileResult checks the percentile o against the instance and
// returns its answer before any probe (Q, rank and the turns that may
// exceed it set) and maxD, the largest load in tokens: every schedule's
// P_Q is at most maxD.
func newPercentileResult(in *lp.Instance, o objective.Objective) (*PercentileResult, int64, error) {
	K, q := in.K(), o.Q
	if K == 0 {
		return nil, 0, fmt.Errorf("slo: percentile of an empty trace")
	}
	if o.Kind != objective.Percentile || !(q > 0 && q < 100) {
		return nil, 0, fmt.Errorf("slo: percentile %v is not in (0, 100)", q)
	}
	rank := o.Rank(K)
	var maxD int64
	for k := range in.Turns {
		maxD = max(maxD, in.Load(k))
	}
	return &PercentileResult{Q: q, Rank: rank, MaxExceeding: K - rank}, maxD, nil
}

// percentileTwoSided is the τ search by its two sides
// (percentile_sides.go): from the bound needing no probe and the greedy
// schedule with nothing above the largest load, the lower side's LPs,
// dual sweeps and (with a Backend) stretches against the upper side's
// searches for schedules.
func percentileTwoSided(ctx context.Context, in *lp.Instance, o objective.Objective, opt Options) (*PercentileResult, error) {
	r, maxD, err := newPercentileResult(in, o)
	if err != nil {
		return nil, err
	}
	q, rank, M := r.Q, r.Rank, r.MaxExceeding
	// every schedule has P_Q ≤ maxD; the greedy fill's is one
	best, _, err := scheduleAt(ctx, in, maxD, M, nil, nil, lnsOptions{})
	if err != nil {
		return nil, err
	}
	hi := Quantile(in, best, rank)
	lo := leastPossible(in, rank) - 1
	so := sideOptions{stretches: opt.Backend != nil, stretchIter: percentileStretchIter,
		windows: opt.LNSWindows, maxFails: percentileFails}
	if so.windows == 0 {
		so.windows = probeLNSWindows
	}
	if _, ok := ctx.Deadline(); ok {
		// the deadline stops the schedules' probes
		so.maxFails = percentileFailsDeadline
		// and the lower side's probes are the SLO solve's stretches at
		// scale, each with a share of the time left
		so.split = true
		// and the schedules' probes, once one fails, the wide stage, as
		// the SLO solve's search under a time limit
		so.wide = true
	}
	var progress func(lo, hi int64, probes int)
	if opt.Progress != nil {
		progress = func(lo, hi int64, probes int) {
			opt.Progress.Report(probeLine(q, lo+1, hi), int64(probes), 0)
		}
	}
	lo, hi, best, r.Probes, err = percentileSides(ctx, in, M, rank, lo, hi, best, so, progress)
	if err != nil {
		return nil, err
	}
	r.Lower, r.Upper, r.Schedule = lo+1, hi, best
	if got := Quantile(in, best, rank); got != r.Upper {
		return nil, fmt.Errorf("slo: internal error: the schedule's percentile %d is not the bound %d", got, r.Upper)
	}
	if r.Lower > r.Upper {
		return nil, fmt.Errorf("slo: internal error: percentile bounds %d > %d", r.Lower, r.Upper)
	}
	r.Proven = r.Lower == r.Upper
	if !r.Proven {
		r.Detail = "the lower bounds and the schedules found leave it open"
		if ctx.Err() != nil {
			r.Detail = "stopped by the time limit"
		}
	}
	return r, nil
}

// percentileSearch is PercentileOf's τ search with opt as given; from
// (nil: none) is a previous search's answer on the same instance and
// percentile, whose interval and schedule it starts from (so its answer
// lies within from's interval) and whose probes it counts.
func percentileSearch(ctx context.Context, in *lp.Instance, o objective.Objective, opt Options, from *PercentileResult) (*PercentileResult, error) {
	r, maxD, err := newPercentileResult(in, o)
	if err != nil {
		return nil, err
	}
	q, rank, M := r.Q, r.Rank, r.MaxExceeding
	// lo: largest τ proven too low (−1: b ≥ 0 always); hi: smallest τ
	// proven achievable, with its schedule (nothing cached achieves maxD).
	lo, hi := int64(-1), maxD
	// Narrow by bounds before any probe: no schedule gives turn k fewer
	// uncached tokens than its least possible b_k (D_k on a first turn,
	// D_k less all its conversation's previous context the cache can
	// hold), so the rank-th smallest of those is ≤ P_Q of every schedule
	// (issue 32).
	lo = max(lo, leastPossible(in, rank)-1)
	best := make([]int64, in.K())
	if from != nil {
		// from's interval is certified: P_Q > from.Lower − 1, and its
		// schedule's percentile is from.Upper
		lo, hi = max(lo, from.Lower-1), min(hi, from.Upper)
		best = slices.Clone(from.Schedule)
		r.Probes, r.Undecided = from.Probes, from.Undecided
	} else if in.Forced {
		// forced pairs with nothing in between keep what they must
		res, err := Violations(ctx, in, maxD, opt)
		if err != nil {
			return nil, err
		}
		r.Probes++
		best = res.Schedule
	}
	// A probe first tries the greedy schedule alone (no LP: a fraction of
	// its cost), which decides every τ it achieves; then the bounds; and
	// again with the integer programs only when those do not decide it.
	// Each starts from the previous probe's schedule and state (Warm),
	// and stops improving its schedule once it shows τ achievable
	// (StopAt).
	greedy := opt
	greedy.Backend, greedy.NoLP, greedy.NoLNS = nil, true, true
	greedy.StopAt = M
	bounds := opt
	bounds.Backend = nil
	bounds.StopAt = M // 0 (M = 0): no target, improve fully
	if bounds.LNSWindows == 0 {
		bounds.LNSWindows = probeLNSWindows
	}
	// the rerun with integer programs starts from the first run's
	// schedule (Warm) and does not search again
	full := opt
	full.StopAt = bounds.StopAt
	full.NoLNS = true
	// What a probe is for (see the search below): both ways, only proofs
	// of P_Q > τ (the LP and integer programs, no search for a schedule)
	// or only schedules (greedy and search, no LP).
	const (
		both      = objective.EitherWay
		proofs    = objective.ProofsOnly
		schedules = objective.SchedulesOnly
	)
	var warm *Warm
	probe := func(tau int64, mode objective.ProbeMode) (*Result, error) {
		r.Probes++
		o := greedy
		o.Warm = warm
		if mode == schedules {
			// only a schedule can decide these: the search's whole
			// budget of an SLO solve
			o.NoLNS, o.LNSWindows = false, opt.LNSWindows
		}
		res, err := Violations(ctx, in, tau, o)
		if err != nil {
			return nil, err
		}
		warm = res.Warm
		if res.Upper <= M || mode == schedules {
			return res, nil
		}
		o = bounds
		o.Warm = warm
		o.NoLNS = mode == proofs
		if res, err = Violations(ctx, in, tau, o); err != nil {
			return nil, err
		}
		warm = res.Warm
		if opt.Backend == nil || res.Upper <= M || res.Lower > M {
			return res, nil
		}
		o = probeSearch(ctx, full)
		o.Warm = warm
		if res, err = Violations(ctx, in, tau, o); err == nil {
			warm = res.Warm
		}
		return res, err
	}
	// Bisect (lo, hi) (objective.TauSearch): a probe that decides
	// neither way splits the search — below it only proofs of P_Q > τ are
	// still to be found (a τ under an undecided one is no easier to
	// achieve), above it only schedules achieving τ (a τ above it is no
	// easier to rule out).
	// seen holds each probed τ's bounds on violations, for pick.
	seen := map[int64][2]int{}
	steps := 0
	// pick chooses the next τ in (a, b): where the line through the
	// bounds at a and b (the lower bound's in a search for proofs, the
	// upper's in one for schedules, their mean in both) crosses M + ½,
	// on every other step when both ends were probed — the bounds of
	// thousands of turns move almost linearly in τ over a narrow
	// interval — and the midpoint otherwise, so that the interval at
	// least halves every two steps.
	pick := func(a, b int64, mode objective.ProbeMode) int64 {
		mid := a + (b-a)/2
		steps++
		if steps%2 == 0 {
			return mid
		}
		// two probed points: the ends, or when only one end was probed
		// (the first bounds are not), it and the nearest probe beyond it
		nearest := func(beyond int64, below bool) (int64, bool) {
			var n int64
			found := false
			for t := range seen {
				if below && t < beyond && (!found || t > n) || !below && t > beyond && (!found || t < n) {
					n, found = t, true
				}
			}
			return n, found
		}
		p, q := a, b
		_, okp := seen[p]
		_, okq := seen[q]
		switch {
		case okp && okq:
		case okp:
			if q, okq = nearest(a, true); !okq {
				return mid
			}
		case okq:
			if p, okp = nearest(b, false); !okp {
				return mid
			}
		default:
			return mid
		}
		if p > q {
			p, q = q, p
		}
		val := func(f [2]int) float64 {
			switch mode {
			case proofs:
				return float64(f[0])
			case schedules:
				return float64(f[1])
			}
			return float64(f[0]+f[1]) / 2
		}
		// interpolate only: the crossing must lie between the two
		target := float64(M) + 0.5
		vp, vq := val(seen[p]), val(seen[q])
		if !(vp > target && target > vq) {
			return mid
		}
		t := float64(p) + (vp-target)/(vp-vq)*float64(q-p)
		return min(max(int64(math.Round(t)), a+1), b-1)
	}
	ts := objective.TauSearch[int64]{Lo: lo, Hi: hi}
	err = ts.Run(ctx, pick, func(mid int64, mode objective.ProbeMode) (objective.Verdict, error) {
		opt.Progress.Report(probeLine(q, ts.Lo+1, ts.Hi), int64(r.Probes), 0)
		res, err := probe(mid, mode)
		if err != nil && ctx.Err() != nil {
			// the time limit stopped it inside a stage that does not
			// keep a partial answer: nothing decided
			return objective.Undecided, nil
		}
		if err != nil {
			return objective.Undecided, err
		}
		seen[mid] = [2]int{res.Lower, res.Upper}
		switch {
		case res.Upper <= M:
			// the schedule's own percentile may be below τ: its
			// violations at that τ are counted, its lower bound is
			// the one at mid (a guide for pick, not a bound)
			q := Quantile(in, res.Schedule, rank)
			if q < mid {
				seen[q] = [2]int{res.Lower, Count(in, res.Schedule, q)}
			}
			ts.Hi = min(mid, q)
			best = res.Schedule
			return objective.Achieved, nil
		case res.Lower > M:
			return objective.TooLow, nil
		}
		return objective.Undecided, nil
	})
	if err != nil {
		return nil, err
	}
	lo, hi = ts.Lo, ts.Hi
	r.Undecided += ts.Undecided
	r.Lower, r.Upper = lo+1, hi
	r.Schedule = best
	if got := Quantile(in, best, rank); got > r.Upper {
		return nil, fmt.Errorf("slo: internal error: the schedule's percentile %d is above the bound %d", got, r.Upper)
	} else {
		r.Upper = got
	}
	r.Proven = r.Lower == r.Upper
	if !r.Proven {
		r.Detail = fmt.Sprintf("%d SLO probes undecided", r.Undecided)
		if ctx.Err() != nil {
			r.Detail = "stopped by the time limit"
		}
	}
	if r.Lower > r.Upper {
		return nil, fmt.Errorf("slo: internal error: percentile bounds %d > %d", r.Lower, r.Upper)
	}
	return r, nil
}

// probeLine is the progress line of Percentile's τ search: the interval
// [lo, hi] of P_q still open, tokens, and about how many probes a
// bisection of it takes (the count of a progress line is the probes done;
// an undecided probe can add more).
func probeLine(q float64, lo, hi int64) string {
	return fmt.Sprintf("τ probes: P%g in [%d, %d] tokens, ≈%d more", q, lo, hi, bits.Len64(uint64(max(hi-lo, 0))))
}

// Quantile returns the rank-th smallest uncached count (tokens) of in
// under schedule x (tokens cached per turn).
func Quantile(in *lp.Instance, x []int64, rank int) int64 {
	b := make([]int64, in.K())
	for k := range b {
		b[k] = in.Load(k) - x[k]
	}
	slices.Sort(b)
	return b[rank-1]
}

// probeSearch gives an undecided probe's branch and bound (search.go) an
// eighth of the time left, so that one probe does not take the whole
// search's time, unless opt already bounds it.
func probeSearch(ctx context.Context, opt Options) Options {
	if dl, ok := ctx.Deadline(); ok && opt.SearchTimeLimit == 0 {
		opt.SearchTimeLimit = max(time.Until(dl)/8, time.Millisecond)
	}
	return opt
}

// leastPossible is the rank-th smallest over the turns of in of the
// fewest uncached tokens any schedule gives the turn: D_k for a first
// turn, D_k − B·min(⌊H/B⌋, C/B) blocks carried from its conversation's
// previous turn (at least 0) otherwise.
func leastPossible(in *lp.Instance, rank int) int64 {
	b := make([]int64, in.K())
	for k := range b {
		b[k] = in.Load(k)
		if p := in.Prev[k]; p >= 0 {
			b[k] = max(0, b[k]-in.MaxKeep(p)*in.BlockSize)
		}
	}
	slices.Sort(b)
	return b[rank-1]
}
