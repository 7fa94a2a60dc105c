package slo

import (
	"context"
	"fmt"
	"slices"

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
	// Probes is the number of SLO problems solved; Undecided those whose
	// interval straddled MaxExceeding.
	Probes, Undecided int
	// Detail says why the answer is not proven, when it is not.
	Detail string
}

// Percentile bounds the lowest Q-th nearest-rank percentile (Q in
// (0, 100), percent) of uncached tokens over all admissible schedules of
// in, by a search over τ on the SLO problem: P_Q ≤ τ iff at most K −
// objective.Rank(K, Q) turns exceed τ. The fewest violations V(τ) is
// non-increasing in τ, so an SLO answer whose upper bound is ≤ K − Rank
// proves P_Q ≤ τ (its schedule shows it) and one whose lower bound exceeds
// it proves P_Q > τ and so P_Q > τ' for every τ' ≤ τ. The search bisects
// between the largest τ proven too low and the smallest proven
// achievable; a probe that proves neither splits the search in two.
func Percentile(ctx context.Context, in *lp.Instance, q float64, opt Options) (*PercentileResult, error) {
	K := in.K()
	if K == 0 {
		return nil, fmt.Errorf("slo: percentile of an empty trace")
	}
	if !(q > 0 && q < 100) {
		return nil, fmt.Errorf("slo: percentile %v is not in (0, 100)", q)
	}
	rank := objective.Rank(K, q)
	M := K - rank
	r := &PercentileResult{Q: q, Rank: rank, MaxExceeding: M}
	var maxD int64
	for k := range in.Turns {
		maxD = max(maxD, in.Load(k))
	}
	// lo: largest τ proven too low (−1: b ≥ 0 always); hi: smallest τ
	// proven achievable, with its schedule (nothing cached achieves maxD).
	lo, hi := int64(-1), maxD
	// Narrow by bounds before any probe: no schedule gives turn k fewer
	// uncached tokens than its least possible b_k (D_k on a first turn,
	// D_k less all its conversation's previous context the cache can
	// hold), so the rank-th smallest of those is ≤ P_Q of every schedule
	// (issue 32).
	lo = max(lo, leastPossible(in, rank)-1)
	best := make([]int64, K)
	if in.Forced {
		// forced pairs with nothing in between keep what they must
		res, err := Violations(ctx, in, maxD, opt)
		if err != nil {
			return nil, err
		}
		r.Probes++
		best = res.Schedule
	}
	// A probe first runs on the bounds alone, and again with the
	// integer programs only when they do not decide it. Each starts from
	// the previous probe's schedule and state (Warm), and stops improving
	// its schedule once it shows τ achievable (StopAt).
	bounds := opt
	bounds.Backend = nil
	bounds.StopAt = M // 0 (M = 0): no target, improve fully
	full := opt
	full.StopAt = bounds.StopAt
	var warm *Warm
	probe := func(tau int64) (*Result, error) {
		r.Probes++
		o := bounds
		o.Warm = warm
		res, err := Violations(ctx, in, tau, o)
		if err != nil {
			return nil, err
		}
		warm = res.Warm
		if opt.Backend == nil || res.Upper <= M || res.Lower > M {
			return res, nil
		}
		o = full
		o.Warm = warm
		if res, err = Violations(ctx, in, tau, o); err == nil {
			warm = res.Warm
		}
		return res, err
	}
	// Bisect (lo, hi). A probe that decides neither way splits the
	// search: below it only proofs of P_Q > τ are still to be found (a
	// τ under an undecided one is no easier to achieve), above it only
	// schedules achieving τ (a τ above it is no easier to rule out).
	const (
		both = iota
		proofs
		schedules
	)
	type span struct {
		a, b int64 // open interval of τ still to decide
		mode int
	}
	work := []span{{lo, hi, both}}
	for len(work) > 0 && ctx.Err() == nil {
		sp := work[len(work)-1]
		work = work[:len(work)-1]
		a, b := max(sp.a, lo), min(sp.b, hi)
		if b-a <= 1 {
			continue
		}
		mid := a + (b-a)/2
		res, err := probe(mid)
		if err != nil {
			return nil, err
		}
		switch {
		case res.Upper <= M:
			// the schedule's own percentile may be below τ
			hi = min(mid, Quantile(in, res.Schedule, rank))
			best = res.Schedule
			work = append(work, span{a, mid, sp.mode})
		case res.Lower > M:
			lo = mid
			work = append(work, span{mid, b, sp.mode})
		default:
			r.Undecided++
			switch sp.mode {
			case both:
				work = append(work, span{a, mid, proofs}, span{mid, b, schedules})
			case proofs:
				work = append(work, span{a, mid, proofs})
			case schedules:
				work = append(work, span{mid, b, schedules})
			}
		}
	}
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
