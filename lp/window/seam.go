package window

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/models/instance"
)

// Restricted is a window with the optimum of its restriction (the pairs
// inside it only): TEL over its turns (tokens) and schedule (x_n, tokens).
type Restricted struct {
	W   *Window
	TEL float64
	X   []int64
}

// SolveLower returns the optimum of window w's relaxation under p: a lower
// bound on the TEL of w's turns in any admissible schedule of the whole
// trace, tokens (see the package doc).
func SolveLower(ctx context.Context, w *Window, p instance.Params) (float64, error) {
	l, err := newLocal(w, p)
	if err != nil {
		return 0, err
	}
	tel, _, err := l.solve(ctx, true, nil, 1)
	return tel, err
}

// SolveRestricted returns the optimum of window w's restriction under p,
// its schedule checked.
func SolveRestricted(ctx context.Context, w *Window, p instance.Params) (*Restricted, error) {
	l, err := newLocal(w, p)
	if err != nil {
		return nil, err
	}
	tel, x, err := l.solve(ctx, false, nil, 1)
	if err != nil {
		return nil, err
	}
	return &Restricted{W: w, TEL: tel, X: x}, nil
}

// SeamSteps returns the half-width of the seam between windows of left
// and right steps for a half-width of half steps asked: at most half of
// either window, so that the seams on a window's two sides never share a
// step.
func SeamSteps(half, left, right int) int { return max(0, min(half, left/2, right/2)) }

// Seam re-solves the seam between consecutive windows left and right
// (their restrictions solved), as a second stage of the upper bound: every
// pair whose steps lie in the seam's steps [b − h, b + h) (b right's first
// step, h = SeamSteps) and whose turn is in the seam becomes free again,
// those crossing b included, with the capacity the restrictions' other
// pairs leave at each step; the rest of the two schedules is kept. The
// restrictions' own amounts are feasible for it, so the seam's TEL can
// only fall: gain ≤ 0 tokens. It returns the gain and the two windows'
// schedules with the seam re-solved (new slices), checked together as one
// schedule of the two windows. Seams of a window's two sides share no
// step, so a step's occupancy in the stitched schedule is that of its
// windows' restrictions changed by at most one seam, which is what the
// check sees: the checks of all seams and windows check every step.
func Seam(ctx context.Context, left, right *Restricted, p instance.Params, half int) (float64, []int64, []int64, error) {
	nl, nr := left.W.Len(), right.W.Len()
	if right.W.Start != left.W.Start+nl {
		return 0, nil, nil, fmt.Errorf("window: seam between windows %d and %d that do not touch", left.W.Index, right.W.Index)
	}
	h := SeamSteps(half, nl, nr)
	xl, xr := append([]int64(nil), left.X...), append([]int64(nil), right.X...)
	if h == 0 {
		return 0, xl, xr, nil
	}
	l, err := newLocalSpan(joinSpan(left.W, right.W), p)
	if err != nil {
		return 0, nil, nil, err
	}
	x := append(append([]int64(nil), xl...), xr...)
	r0, r1 := nl-h, nl+h
	B := p.BlockSize
	occ := make([]int64, r1-r0) // blocks held at the seam's steps by the pairs kept
	var pairs []pair
	for j := range l.gp {
		gp := l.gp[j]
		if gp < l.a || l.forcedFixed(j) {
			continue // crosses the two windows' start: as the restriction left it
		}
		from := gp - l.a
		if p.Forced {
			from++
		}
		if from >= r0 && j < r1 {
			pairs = append(pairs, pair{j, from - r0, j - r0})
			continue
		}
		for t := max(from, r0); t < min(j, r1); t++ {
			occ[t-r0] += x[j] / B
		}
	}
	caps := make([]int64, r1-r0)
	for i := range caps {
		caps[i] = l.capAt(r0+i) - occ[i]
		if caps[i] < 0 {
			return 0, nil, nil, fmt.Errorf("window: seam after window %d: step %d over capacity before the re-solve (a bug)", left.W.Index, left.W.Start+r0+i)
		}
	}
	z, _, err := l.line(ctx, caps, pairs, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	gain := 0.0
	for i, pr := range pairs {
		nx := z[i] * B
		gain += l.in.Excess(pr.j+l.o, nx) - l.in.Excess(pr.j+l.o, x[pr.j])
		x[pr.j] = nx
	}
	if gain > 0 {
		return 0, nil, nil, fmt.Errorf("window: seam after window %d raised the TEL by %g tokens (a solver bug)", left.W.Index, gain)
	}
	tel := 0.0
	for j := range x {
		tel += l.in.Excess(j+l.o, x[j])
	}
	if err := l.check(x, tel); err != nil {
		return 0, nil, nil, fmt.Errorf("seam after window %d: %w", left.W.Index, err)
	}
	return gain, x[:nl], x[nl:], nil
}

// RampDenominator is the denominator of the overlap weights of
// SolveLowerOverlap: a turn's TEL counts q/RampDenominator in one window
// and the rest in the other.
const RampDenominator = 1024

// rampQ is the weight numerator, in the window after boundary b, of turn
// n ∈ [b − back, b): it rises from about 1/(back+1) to back/(back+1) of
// RampDenominator across the overlap.
func rampQ(n, b, back int) int64 {
	return int64(RampDenominator * (n - (b - back) + 1) / (back + 1))
}

// overlapWeight is the weight, over RampDenominator, with which the
// relaxation of the window of steps [start, end), widened back by got
// steps, counts turn n ∈ [start − got, end): rampQ in the overlap before
// the window (rising towards it), the rest of the ramp in its last lb
// steps (which the next window reaches back over; none when last), 1
// elsewhere. The TEL and the SLO overlaps share it, so every turn's
// weights over the windows add up to RampDenominator in both.
func overlapWeight(n, start, got, end, lb int, last bool) int64 {
	switch {
	case n < start:
		return rampQ(n, start, got)
	case !last && n >= end-lb:
		return RampDenominator - rampQ(n, end, lb)
	default:
		return RampDenominator
	}
}

// SolveLowerOverlap is SolveLower with the relaxation widened back by
// back steps into the window before (w from a Splitter whose Lookback is
// at least back, back at most the previous window's length): the pairs
// ending in the widened window, the capacity rows of its steps, and each
// turn's TEL weighted — in the overlap before w by rampQ/RampDenominator
// (rising towards w), in the last back turns of w (unless last, no window
// after) by the rest, which the next window counts. Every turn's weights
// over the windows add up to 1, and the global optimum restricted to each
// widened window is feasible for its relaxation (the package doc's
// argument, on the widened steps), so the sum of the windows' optima is
// still at most TEL_opt; the cache at the widened start is free as
// before, but the turns it serves first weigh little, which is what makes
// this bound tighter than SolveLower's.
func SolveLowerOverlap(ctx context.Context, w *Window, p instance.Params, back int, last bool) (float64, error) {
	lo, _, err := LowerAndRestricted(ctx, w, p, back, last)
	return lo, err
}

// LowerAndRestricted is SolveLowerOverlap that also returns an admissible
// schedule of w's restriction read off the relaxation's solution: the
// relaxation's amounts of the pairs inside w (the others, which cross w's
// start, dropped), feasible for the restriction since dropping pairs only
// frees capacity at w's steps. It is not the restriction's optimum — near
// w's start it lacks what the dropped pairs held, near its end (with an
// overlap) it follows the weights — but the seams re-solve both ends, and
// it saves the restriction's own solve. Its schedule is checked as
// SolveRestricted's.
func LowerAndRestricted(ctx context.Context, w *Window, p instance.Params, back int, last bool) (float64, *Restricted, error) {
	back = max(back, 0)
	e := w.extendedSpan(back)
	got := w.Start - e.start
	if got != min(back, w.Start) {
		return 0, nil, fmt.Errorf("window %d: %d steps kept before it, %d wanted (Splitter.Lookback too small)", w.Index, got, min(back, w.Start))
	}
	b, lb := w.Start+w.Len(), min(back, w.Len())
	var wt []int64 // nil: every turn weighs 1
	den := int64(1)
	if got > 0 || !last && lb > 0 {
		wt, den = make([]int64, e.n), RampDenominator
	}
	for j := range wt { // empty when wt is nil
		wt[j] = overlapWeight(e.start+j, w.Start, got, b, lb, last)
	}
	l, err := newLocalSpan(e, p)
	if err != nil {
		return 0, nil, err
	}
	tel, x, err := l.solve(ctx, true, wt, den)
	if err != nil {
		return 0, nil, err
	}
	// The restriction's schedule: the window's part, pairs crossing its
	// start dropped (forced caching's fixed pair kept).
	wl, err := newLocal(w, p)
	if err != nil {
		return 0, nil, err
	}
	xr := append([]int64(nil), x[got:]...)
	rt := 0.0
	for j := range xr {
		if gp := wl.gp[j]; gp >= 0 && gp < w.Start && !wl.forcedFixed(j) {
			xr[j] = 0
		}
		rt += wl.in.Excess(j+wl.o, xr[j])
	}
	if err := wl.check(xr, rt); err != nil {
		return 0, nil, err
	}
	return tel, &Restricted{W: w, TEL: rt, X: xr}, nil
}
