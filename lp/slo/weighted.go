package slo

import (
	"context"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/lp"
)

// MaxWeightDenominator is the largest common denominator of the weights
// WeightedLower takes (2^20): it keeps every sum of its certificate
// inside 128 bits.
const MaxWeightDenominator = 1 << 20

// WeightedBound is a certified lower bound on the weighted SLO violations
// of an instance: in every admissible schedule Σ_n ω_n·[turn n has more
// than SLOTokens uncached tokens] ≥ Num/Den, turns, ω_n = wt_n/Den the
// weights given.
type WeightedBound struct {
	SLOTokens int64
	// Num over Den is the bound, turns (exact: a fraction, Den the
	// weights' common denominator).
	Num, Den int64
	// LP is the LP relaxation's weighted violations before rounding,
	// turns (NaN when the flow was cut short; Num/Den is then the weak
	// dual of the prices reached).
	LP float64
	// Complete says the LP was solved to optimality.
	Complete bool
}

// Value is Num/Den, turns.
func (b *WeightedBound) Value() float64 { return float64(b.Num) / float64(b.Den) }

// WeightedLower bounds from below the weighted SLO violations of in over
// every admissible schedule, turn n weighing wt[n]/den (integers, 0 ≤
// wt[n] ≤ den ≤ MaxWeightDenominator: any rational weights in [0, 1]
// over a common denominator, dyadic ones of lp/window's overlap among
// them). It is the LP relaxation of Violations weighted, certified as
// Violations' own:
//
//	maximize Σ_n ω_n y_n  subject to  Σ_{n spans t} d_n y_n ≤ cap_t, 0 ≤ y ≤ 1,
//
// over the candidates that compete (Violations' reduction holds for any
// weights ≥ 0: a turn meeting the SLO whatever the schedule, or a pair
// spanning no binding step, is served in some optimum and weighs nothing
// among the violations; a turn that can never meet it counts its weight).
// The bound is Σ over the turns not always served of wt − Σ over the
// components of a certified upper bound on their served weight: the
// least of the min-cost flow's value with costs ⌊wt·2^S/(den·d)⌋ per
// block plus its rounding term, and the weak dual of the flow's prices
// (dualBound: valid for any prices, so also when ctx or opt.TimeLimit
// cuts the flow short), each in whole numbers and floored to a multiple
// of the greatest common divisor of the component's weights (what a
// schedule's served weight can be). With every weight den it is den
// times Violations' LP bound, exactly.
//
// Of opt only TimeLimit and Reserved are used: the bound is the LP's
// alone (no cuts, search or integer program).
func WeightedLower(ctx context.Context, in *lp.Instance, s int64, wt []int64, den int64, opt Options) (*WeightedBound, error) {
	if len(wt) != in.K() {
		return nil, fmt.Errorf("slo: %d weights for %d turns", len(wt), in.K())
	}
	if den < 1 || den > MaxWeightDenominator {
		return nil, fmt.Errorf("slo: weight denominator %d outside [1, %d]", den, MaxWeightDenominator)
	}
	for n, w := range wt {
		if w < 0 || w > den {
			return nil, fmt.Errorf("slo: turn %d: weight %d/%d outside [0, 1]", n, w, den)
		}
	}
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	pr, err := reduceChecked(in, s, opt.Reserved)
	if err != nil {
		return nil, err
	}
	pr.wt, pr.den = wt, den
	b := &WeightedBound{SLOTokens: s, Den: den, LP: math.NaN(), Complete: true}
	for n, m := range pr.meets {
		if !m {
			b.Num += wt[n]
		}
	}
	if len(pr.cands) == 0 {
		b.LP = float64(b.Num) / float64(den)
		return b, nil
	}
	_, ub, total, complete, err := pr.lpBound(ctx)
	if err != nil {
		return nil, err
	}
	served := int64(0)
	for _, u := range ub {
		served += int64(u)
	}
	if complete {
		b.LP = (float64(b.Num) - total) / float64(den)
	}
	b.Num -= served
	b.Complete = complete
	if b.Num < 0 {
		return nil, fmt.Errorf("slo: internal error: weighted lower bound %d/%d below 0", b.Num, den)
	}
	return b, nil
}

// reduceChecked is reduceReserved once Options.Reserved is checked
// against in: one entry per step, each within the step's capacity,
// blocks (nil: none).
func reduceChecked(in *lp.Instance, s int64, reserved []int64) (*problem, error) {
	if reserved != nil {
		if len(reserved) != in.K() {
			return nil, fmt.Errorf("slo: %d reserved capacities for %d steps", len(reserved), in.K())
		}
		for t, v := range reserved {
			if v < 0 || v > capAt(in, t) {
				return nil, fmt.Errorf("slo: step %d: %d blocks reserved, capacity %d blocks", t, v, capAt(in, t))
			}
		}
	}
	return reduceReserved(in, s, reserved), nil
}
