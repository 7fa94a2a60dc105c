package slo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
)

// The two sides of a percentile search (issue 32, deliverable 4). P_Q ≤ τ
// iff the fewest violations V(τ) at SLO τ are at most M = K − rank, and
// V never increases with τ. So the search is two independent searches
// that meet in the middle:
//
//   - the lower side looks for the largest τ some certified lower bound on
//     V(τ) puts above M (then P_Q > τ): flow LPs started from the previous
//     LP's prices, each followed by a sweep of the weak-dual bound of its
//     prices over the thresholds next to it (dualBound holds for any
//     prices, and at ±6 tokens it is within a violation or two of the LP
//     there, for about 1/1000 of an LP's time), so that a few LPs find
//     the LP's crossing to the token; then, with a Backend (the stretches
//     belong to the integer-program solvers), the stretches' bound on
//     thresholds just above it: with a deadline the SLO solve's own at
//     scale, the stretches at the LP's split with steps on their shares
//     (splitSide), without one the Lagrangian stretches of
//     StretchBoundWith, a fixed number of steps (stretchSide);
//   - the upper side looks for the smallest τ a checked schedule achieves
//     (at most M violations at τ; its own percentile is then an upper end):
//     the greedy fill bisected over τ for a start, then the
//     large-neighbourhood search at one token below the best schedule's
//     own percentile, stopped as soon as it serves enough pairs (a
//     decision, not a full solve), from the best schedule so far and
//     steered by the lower side's latest LP values; with a deadline, once
//     a probe fails, the SLO solve's wide stage instead (on every core),
//     which starts again from the LP's rounding at the probe's threshold
//     when the search from the best schedule stalls (wideScheduleAt).
//
// Neither side needs the other to be right; each only narrows the
// interval, so with a deadline they run at once, and without one
// (deterministic output) one after the other. With a deadline the upper
// side's probes use every core, so when the lower side ends first its
// core goes to them.

// sideState is the interval the two sides share: lo the largest τ proven
// too low, hi the smallest proven achievable with best attaining it.
type sideState struct {
	mu      sync.Mutex
	lo, hi  int64
	best    []int64
	lpServe []float64 // the lower side's latest LP values by turn
	prices  *lpPrices // the lower side's latest LP prices (nil: none yet)
	slope   float64   // violations per token near the crossing (LP secant), 0: unknown
	// dualSlope is the dual sweep's violations per token below an LP
	// that did not prove, 0: unknown
	dualSlope float64
	probes    int
	progress  func(lo, hi int64, probes int)
	done      context.CancelFunc // ends both sides once the ends meet
	// firstLP is closed when the lower side's first LP is solved or the
	// side ends: the upper side's search waits for its values to steer
	// by, and leaves the LP the whole process meanwhile (on a loaded
	// machine the LP is what a 2-minute limit can otherwise not finish)
	firstLP   chan struct{}
	firstOnce sync.Once
}

// lpDone closes s.firstLP once.
func (s *sideState) lpDone() { s.firstOnce.Do(func() { close(s.firstLP) }) }

func (s *sideState) get() (lo, hi int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lo, s.hi
}

// proveAbove records P_Q > tau.
func (s *sideState) proveAbove(tau int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tau > s.lo {
		s.lo = tau
	}
	s.report()
}

// achieve records schedule x with percentile q.
func (s *sideState) achieve(q int64, x []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q < s.hi {
		s.hi, s.best = q, x
	}
	s.report()
}

func (s *sideState) count() {
	s.mu.Lock()
	s.probes++
	s.mu.Unlock()
}

// report is called with mu held.
func (s *sideState) report() {
	if s.progress != nil {
		s.progress(s.lo, s.hi, s.probes)
	}
	if s.hi <= s.lo+1 && s.done != nil {
		s.done()
	}
}

// sideOptions set how much each side may do.
type sideOptions struct {
	// stretches runs the stretches' bound on the lower side.
	stretches bool
	// stretchIter bounds the steps of each stretch run of stretchSide.
	stretchIter int
	// split bounds the lower side's probes by the stretches at the LP's
	// split and steps on their shares (splitSide) instead of stretchSide;
	// needs a deadline (each probe takes a share of the time left).
	split bool
	// windows is the first schedule probe's budget of windows; a probe
	// that does not decide doubles it, up to maxFails failures in a row.
	windows, maxFails int
	// seed is the first schedule probe's seed of windows (each probe
	// takes the next).
	seed uint64
	// wide: after the first schedule probe that fails, the probes search
	// by the wide stage (wideScheduleAt); needs a deadline.
	wide bool
}

// percentileSides narrows (lo, hi] — lo proven too low, hi achieved by
// best (nil: none yet) — by the two sides, concurrently when ctx has a
// deadline. It returns the interval reached, a schedule attaining hi, and
// the probes made.
func percentileSides(ctx context.Context, in *lp.Instance, M int, rank int, lo, hi int64, best []int64, so sideOptions, progress func(lo, hi int64, probes int)) (int64, int64, []int64, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &sideState{lo: lo, hi: hi, best: best, progress: progress, done: cancel, firstLP: make(chan struct{})}
	if best == nil || Quantile(in, best, rank) > hi {
		return 0, 0, nil, 0, fmt.Errorf("slo: internal error: the percentile search starts without a schedule attaining %d", hi)
	}
	if err := greedyBisect(ctx, in, M, rank, s); err != nil {
		return 0, 0, nil, 0, err
	}
	var errLo, errHi error
	if _, ok := ctx.Deadline(); ok {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			errLo = lowerSide(ctx, in, M, rank, s, so)
			s.lpDone()
		}()
		errHi = upperSide(ctx, in, M, rank, s, so)
		wg.Wait()
	} else {
		errLo = lowerSide(ctx, in, M, rank, s, so)
		s.lpDone()
		if errLo == nil {
			errHi = upperSide(ctx, in, M, rank, s, so)
		}
	}
	if errLo != nil {
		return 0, 0, nil, 0, errLo
	}
	if errHi != nil {
		return 0, 0, nil, 0, errHi
	}
	return s.lo, s.hi, s.best, s.probes, nil
}

// lowerAt is a certified lower bound on V(tau) and, when lpOK, the LP
// relaxation's value (fractional violations) and final prices.
type lowerAt struct {
	tau    int64
	lower  int
	lp     float64
	prices *lpPrices
	serve  []float64
	// exact: no candidates, lower is V(tau) itself
	exact bool
	// schedule is the LP's rounding, filled greedily (nil: not solved)
	schedule []int64
}

// lpProbe reduces in at tau and solves its flow LP from warm's prices
// (nil: cold): the problem, r with the LP's certified bound and, when the
// LP finished, its value and prices (r.lp NaN otherwise), and the LP's
// rounding and bounds per component; with no candidates r.exact, and
// r.lower is V(tau) itself.
func lpProbe(ctx context.Context, in *lp.Instance, tau int64, warm *lpPrices) (*problem, lowerAt, []bool, []int, error) {
	pr := reduce(in, tau)
	r := lowerAt{tau: tau, lp: math.NaN()}
	if len(pr.cands) == 0 {
		r.lower = in.K() - pr.always
		r.lp, r.exact = float64(r.lower), true
		return pr, r, nil, nil, nil
	}
	served, ub, total, complete, err := pr.lpBoundFrom(ctx, warm)
	if err != nil {
		return nil, r, nil, nil, err
	}
	if complete {
		r.lp = float64(in.K()-pr.always) - total
		r.prices = pr.prices
	}
	r.lower = in.K() - pr.always - sum(ub)
	return pr, r, served, ub, nil
}

// lpLower solves the flow LP at tau from warm's prices (nil: cold), and
// when it finishes fills its rounding greedily: a schedule for the upper
// side.
func lpLower(ctx context.Context, in *lp.Instance, tau int64, warm *lpPrices) (lowerAt, error) {
	pr, r, served, _, err := lpProbe(ctx, in, tau, warm)
	if err != nil || r.exact || math.IsNaN(r.lp) {
		return r, err
	}
	pr.improve(ctx, served)
	if r.schedule, _, err = pr.checkedSchedule(served); err != nil {
		return r, err
	}
	r.serve = pr.lpServe(nil)
	return r, nil
}

// dualLower is the weak-dual bound on V(tau) of prices p (any prices:
// dualBound needs no optimality), certified.
func dualLower(in *lp.Instance, tau int64, p *lpPrices) int {
	pr := reduce(in, tau)
	if len(pr.cands) == 0 {
		return in.K() - pr.always
	}
	S := pr.lpScale(mcf.DefaultPlan())
	pi := p.at(S, in.K())
	if pi == nil {
		return 0
	}
	ub, _ := pr.dualBound(pi, S)
	most := 0
	for _, u := range ub {
		most += u
	}
	return in.K() - pr.always - most
}

// dualSweep is how far either way of an LP's τ the lower side tries its
// prices' dual bound (tokens).
const dualSweep = 64

// lowerSide raises s.lo: LPs at the estimated crossing of the LP's value
// with M + ½, each followed by a sweep of its prices' dual bound, until
// the LP at lo + 1 is solved and does not prove it; then stretches above.
func lowerSide(ctx context.Context, in *lp.Instance, M, rank int, s *sideState, so sideOptions) error {
	var warm *lpPrices
	var pts []lowerAt // LPs solved to the end, by τ
	for ctx.Err() == nil {
		lo, hi := s.get()
		if hi-lo <= 1 {
			return nil
		}
		s.mu.Lock()
		slope := s.dualSlope
		s.mu.Unlock()
		tau, settled := nextLPTau(pts, lo, hi, M, slope)
		if settled {
			break
		}
		s.count()
		r, err := lpLower(ctx, in, tau, warm)
		if err != nil {
			return err
		}
		if r.lower > M {
			s.proveAbove(tau)
		}
		if r.schedule != nil {
			s.achieve(Quantile(in, r.schedule, rank), r.schedule)
		}
		if r.prices == nil && !r.exact {
			// cut short by ctx: its bound is recorded, nothing to steer by
			return nil
		}
		pts = insertLower(pts, r)
		if r.exact {
			// no candidates: V(tau) itself, nothing to sweep
			s.setSlope(pts)
			continue
		}
		warm = r.prices
		s.setSlope(pts)
		s.mu.Lock()
		s.lpServe, s.prices = r.serve, r.prices
		s.mu.Unlock()
		s.lpDone()
		// the dual bound of these prices on the thresholds around tau:
		// upward while it proves; downward to the first it proves, its
		// slope (violations per token) a guide for the next LP when none
		// proves
		if r.lower > M {
			t := tau + 1
			for ; t < tau+dualSweep && ctx.Err() == nil; t++ {
				if _, hi := s.get(); t >= hi {
					break
				}
				if dualLower(in, t, r.prices) <= M {
					break
				}
				s.proveAbove(t)
			}
			if so.stretches && t < tau+dualSweep/4 {
				// the dual bound of prices this near is within a violation
				// or two of the LP there: the stretches (whose own LP
				// starts them) gain more than another LP would
				break
			}
		} else {
			d0 := dualLower(in, tau, r.prices)
			for t := tau - 1; t > tau-dualSweep && ctx.Err() == nil; t-- {
				if lo, _ := s.get(); t <= lo {
					break
				}
				d := dualLower(in, t, r.prices)
				if d > M {
					s.proveAbove(t)
					break
				}
				if k := tau - t; k >= 8 && (k&(k-1)) == 0 {
					// at 8, 16, 32 tokens: the sweep's slope
					s.mu.Lock()
					s.dualSlope = float64(d-d0) / float64(k)
					s.mu.Unlock()
				}
			}
		}
	}
	switch {
	case !so.stretches:
		return nil
	case so.split:
		return splitSide(ctx, in, M, s, pts)
	}
	return stretchSide(ctx, in, M, s, so)
}

// setSlope records the LP's violations per token near the crossing: the
// secant of the two LPs nearest it.
func (s *sideState) setSlope(pts []lowerAt) {
	if len(pts) < 2 {
		return
	}
	// the two adjacent points straddling (or nearest) M
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.tau > a.tau && a.lp > b.lp {
			s.slope = (a.lp - b.lp) / float64(b.tau-a.tau)
		}
	}
}

// insertLower keeps pts sorted by τ.
func insertLower(pts []lowerAt, r lowerAt) []lowerAt {
	i, _ := slices.BinarySearchFunc(pts, r.tau, func(p lowerAt, t int64) int {
		switch {
		case p.tau < t:
			return -1
		case p.tau > t:
			return 1
		}
		return 0
	})
	return slices.Insert(pts, i, r)
}

// nextLPTau is where the lower side solves its next LP in (lo, hi), or
// settled when the LP at lo + 1 was solved and does not prove it (no LP
// at a larger τ can: the LP's bound never increases with τ). Between the
// LP proving too low nearest below the crossing with M + ½ and the one
// not proving nearest above it, the line through their values (the LP's
// value moves almost linearly in τ over tens of tokens); from one side
// only, a step of its gap at slope violations per token (the dual
// sweep's; 1 when unknown), upward at least half the dual sweep; else
// the midpoint. Each LP is followed by the dual sweep,
// so a guess within dualSweep of the crossing decides it to the token.
func nextLPTau(pts []lowerAt, lo, hi int64, M int, slope float64) (tau int64, settled bool) {
	if slope <= 0 {
		slope = 1
	}
	target := float64(M) + 0.5
	var below, above *lowerAt
	for i := range pts {
		p := &pts[i]
		if p.lower > M && (below == nil || p.tau > below.tau) {
			below = p
		}
		if p.lower <= M && (above == nil || p.tau < above.tau) {
			above = p
		}
	}
	// candidates: (a, b), a the largest τ known too low, b the smallest
	// an LP left open
	a, b := lo, hi
	if above != nil {
		b = min(b, above.tau)
	}
	if b-a <= 1 {
		return 0, above != nil && above.tau == a+1
	}
	if len(pts) == 0 {
		// at the greedy schedule's crossing
		return b - 1, false
	}
	guess := float64(a + (b-a)/2)
	switch {
	case below != nil && above != nil && below.lp > above.lp:
		guess = float64(below.tau) + math.Ceil((below.lp-target)/(below.lp-above.lp)*float64(above.tau-below.tau))
	case below != nil && above == nil:
		guess = float64(a) + max((below.lp-target)/slope, dualSweep/2)
	case above != nil && below == nil:
		guess = float64(above.tau) - (target-above.lp)/slope
	}
	if math.IsNaN(guess) {
		guess = float64(a + (b-a)/2)
	}
	return min(max(int64(guess), a+1), b-1), false
}

// stretchGainGuess is what the lower side expects the stretches to add to
// the LP's bound on violations at its first stretch run (a guess: a run
// that does not prove is followed by one at lo + 1).
const stretchGainGuess = 8

// stretchSide tries the Lagrangian stretches' bound (StretchBoundWith, at
// most so.stretchIter steps) at thresholds above lo, while the context
// lasts: first stretchGainGuess violations' worth of tokens above lo at
// the LP's slope, then each proof moves it up by the margin it had; a
// failure comes back to lo + 1, and one there ends the side. It is the
// side without a deadline (splitSide has it with one).
func stretchSide(ctx context.Context, in *lp.Instance, M int, s *sideState, so sideOptions) error {
	s.mu.Lock()
	slope := s.slope
	s.mu.Unlock()
	step := int64(1)
	if slope > 0 {
		// the stretches took 10–14 violations off the LP's bound near the
		// embedded workload's p90 crossing (0–8 steps; 13 at SLO 1,900)
		step = 1 + int64(stretchGainGuess/slope)
	}
	for ctx.Err() == nil {
		lo, hi := s.get()
		tau := min(lo+step, hi-1)
		if tau <= lo {
			return nil
		}
		s.count()
		b, err := StretchBoundWith(ctx, in, tau, StretchOptions{Iterations: so.stretchIter})
		if err != nil {
			if ctx.Err() != nil {
				// stopped inside its LP: no bound
				return nil
			}
			return err
		}
		switch {
		case b > M:
			// the bound falls by about slope per token above tau
			s.proveAbove(tau)
			step = 1
			if slope > 0 {
				step = max(1, int64((float64(b-M)-0.5)/slope))
			}
		case tau > lo+1:
			step = 1
		default:
			return nil
		}
	}
	return nil
}

// greedyBisect lowers s.hi by the greedy fill alone (no LP, no search: a
// tenth of a second at 36,392 turns) bisected over τ: a start for both
// sides (the lower side's first LP is at its crossing).
func greedyBisect(ctx context.Context, in *lp.Instance, M, rank int, s *sideState) error {
	glo, _ := s.get()
	for ctx.Err() == nil {
		_, hi := s.get()
		if hi-glo <= 1 {
			return nil
		}
		tau := glo + (hi-glo)/2
		s.count()
		x, v, err := scheduleAt(ctx, in, tau, M, nil, nil, lnsOptions{})
		if err != nil {
			return err
		}
		if v <= M {
			s.achieve(Quantile(in, x, rank), x)
		} else {
			glo = tau
		}
	}
	return nil
}

// upperSide lowers s.hi by the
// large-neighbourhood search at one token below the best schedule's
// percentile until it fails so.maxFails times in a row (each failure
// doubles its budget of windows, each success halves it). Once a probe
// has failed (so.wide: the wide stage from then on), the thresholds come
// from descent: a jump further below starts from the LP's rounding there
// for a bounded time, and one that misses is not counted as a failure.
func upperSide(ctx context.Context, in *lp.Instance, M, rank int, s *sideState, so sideOptions) error {
	select {
	case <-s.firstLP:
	case <-ctx.Done():
	}
	windows, fails := so.windows, 0
	wide := false          // a probe has failed: the wide stage from then on
	var last time.Duration // the last wide probe's wall time that met its target
	lpFirst := false       // a wide probe met it from the LP's rounding: the next start there
	d := descent{jump: 1}  // the wide stage's thresholds
	// near is the last missed jump's schedule: its violations at any
	// threshold above the jump's are at most the few it missed by, so it
	// is the start wherever it has fewer violations than the best
	// schedule (at its own threshold, after the best has come down to
	// one token above it, too)
	var near []int64
	for seed := so.seed + 1; ctx.Err() == nil && fails < so.maxFails; seed++ {
		lo, hi := s.get()
		if hi-lo <= 1 {
			return nil
		}
		tau := hi - 1
		s.mu.Lock()
		start, serve, prices := s.best, s.lpServe, s.prices
		s.mu.Unlock()
		s.count()
		t0 := time.Now()
		var x []int64
		var v int
		var err error
		wide = wide || so.wide && fails > 0
		jumped := false
		if wide && prices != nil {
			tau = d.next(lo, hi)
			jumped = tau < hi-1
		}
		fromNear := near != nil && (start == nil || Count(in, near, tau) < Count(in, start, tau))
		if fromNear {
			start = near
		}
		if jumped {
			// from the LP's rounding at tau (from near first, when it
			// is the start), for at most the time a probe at hi − 1
			// searches from the best schedule before the LP
			var stuck time.Duration
			if fromNear {
				stuck = max(upperStuck, 2*last)
			}
			jctx, cancel := context.WithTimeout(ctx, max(upperStuck, 2*last))
			x, v, _, err = wideScheduleAt(jctx, in, tau, M, start, serve, prices, stuck, seed)
			cancel()
		} else if wide {
			stuck := max(upperStuck, 2*last)
			if lpFirst && !fromNear {
				stuck = 0
			}
			var fromLP bool
			x, v, fromLP, err = wideScheduleAt(ctx, in, tau, M, start, serve, prices, stuck, seed)
			lpFirst = lpFirst || fromLP && v <= M
		} else {
			opt := defaultLNS()
			opt.windows, opt.stall, opt.seed = windows, max(windows/4, 1), seed
			x, v, err = scheduleAt(ctx, in, tau, M, start, serve, opt)
		}
		if err != nil {
			return err
		}
		if v <= M {
			if wide {
				last = time.Since(t0)
				d.met()
			}
			s.achieve(Quantile(in, x, rank), x)
			fails, windows = 0, max(so.windows, windows/2)
			continue
		}
		if jumped {
			// not a failure of the side: the next probe is nearer hi
			d.miss(tau)
			near = x
			continue
		}
		// at most so.windows·2^(maxFails−1): failures and successes in
		// turn would otherwise double it without end
		fails++
		windows = min(2*windows, so.windows<<max(so.maxFails-1, 0))
	}
	return nil
}

// descent chooses the thresholds of the upper side's wide probes: an
// exponential search below the best schedule's percentile hi, then a
// binary one. The first wide probe is at hi − 1; each that meets its
// target doubles the distance of the next below the new hi, until a
// jump (a probe more than one token below hi) misses, which halves it;
// from then on it only halves, down to the walk one token at a time. A
// jump starts from the flow LP's rounding at its threshold, whose search
// time does not grow with the distance from hi: on the embedded workload
// from the LP's rounding at 1,284, 1,282 and 1,280 tokens, alone on both
// cores, the wide stage met its target in 4.2–4.7, 5.8–7.0 and 11.7–13.4 s
// (BenchmarkPercentileJump, three seeds each), where the walk from 1,291
// took 18–21 s to 1,284 and 61–71 s to 1,280 in two whole solves beside
// the lower side (docs/tail-bounds.md, "The upper side jumps").
type descent struct {
	jump   int64 // the next probe's distance below hi, tokens (≥ 1)
	missed bool  // a jump has missed: jump no longer doubles
	// floor is the highest threshold a jump missed at (0: none): a jump
	// that would reach it goes halfway instead, since the search would
	// most likely miss there again
	floor int64
}

// next is the next probe's threshold: jump below hi when that is above
// lo and floor, else halfway from floor to hi when that is above lo and
// below hi − 1, else hi − 1 (hi − lo ≥ 2).
func (d *descent) next(lo, hi int64) int64 {
	if t := hi - d.jump; t > lo && t > d.floor {
		return t
	}
	if t := d.floor + (hi-d.floor)/2; d.floor > 0 && t > lo && t < hi-1 {
		return t
	}
	return hi - 1
}

// met records a probe that met its target. The distance stops doubling
// at maxJump, far beyond any spread of thresholds, so that a long walk
// (every jump below lo) cannot overflow it.
func (d *descent) met() {
	if !d.missed {
		d.jump = min(2*d.jump, maxJump)
	}
}

// maxJump is the largest distance descent jumps, tokens.
const maxJump = 1 << 40

// miss records a jump to tau that missed its target.
func (d *descent) miss(tau int64) {
	d.jump, d.missed, d.floor = max(1, d.jump/2), true, max(d.floor, tau)
}

// upperStuck is the least time a wide probe of the upper side searches
// from the best schedule before it starts again from the LP's rounding
// at its threshold; twice the last probe's time that met its target when
// that is longer. Near the end the search from the best schedule stalls a
// pair or two short: on the embedded workload the probe at 1,280 tokens
// came within a pair of its target after 45 s and stood there for its
// last 27 s of 72, where from the LP's rounding at 1,279 the stage met
// the target in 36 s (docs/tail-bounds.md, "The percentile's upper side
// starts again from the LP").
const upperStuck = 10 * time.Second

// scheduleAt is a checked schedule at SLO tau and its violations: the
// candidates start (nil: none) serves at tau, repaired and filled
// greedily, then (opt.windows > 0) the large-neighbourhood search steered
// by serve (the LP's values by turn, nil: none) until at most M
// violations.
func scheduleAt(ctx context.Context, in *lp.Instance, tau int64, M int, start []int64, serve []float64, opt lnsOptions) ([]int64, int, error) {
	pr, served, target := startAt(ctx, in, tau, M, start)
	if opt.windows > 0 && count(served) < target && len(pr.cands) > 0 {
		pr.warmLP(&Warm{LPServe: serve})
		opt.target = target
		pr.lns(ctx, served, nil, nil, opt)
	}
	return pr.checkedSchedule(served)
}

// startAt is a schedule probe's start at SLO tau: the problem, the
// candidates start (nil: none) serves there, repaired and filled
// greedily, and the candidates a schedule with at most M violations
// serves.
func startAt(ctx context.Context, in *lp.Instance, tau int64, M int, start []int64) (*problem, []bool, int) {
	pr := reduce(in, tau)
	served := pr.fromSchedule(start)
	pr.improve(ctx, served)
	return pr, served, in.K() - pr.always - M
}

// wideScheduleAt is scheduleAt by the wide stage (lns_wide.go: the
// narrow search and wide windows solved exactly, in turn, on every core)
// instead of the narrow search alone, until at most M violations, ctx
// (which must have a deadline) ends, or both neighbourhoods stall. With
// warm (LP prices, nil: none), a search from start that has not met the
// target within stuck (at most half the time left; 0: no such search)
// starts again from the rounding of the flow LP at tau, solved from warm
// and steering the search by its values, for the time left. It returns
// the schedule that serves more, its violations, and whether it came
// from the LP's rounding.
func wideScheduleAt(ctx context.Context, in *lp.Instance, tau int64, M int, start []int64, serve []float64, warm *lpPrices, stuck time.Duration, seed uint64) ([]int64, int, bool, error) {
	pr, served, target := startAt(ctx, in, tau, M, start)
	opt := defaultLNS()
	opt.windows, opt.stall = 0, max(opt.stall, 4*len(pr.cands))
	opt.seed, opt.target = seed, target
	if count(served) < target && len(pr.cands) > 0 && (warm == nil || stuck > 0) {
		pr.warmLP(&Warm{LPServe: serve})
		sctx := ctx
		if warm != nil {
			dl, _ := ctx.Deadline()
			var cancel context.CancelFunc
			sctx, cancel = context.WithTimeout(ctx, min(stuck, time.Until(dl)/2))
			defer cancel()
		}
		pr.wideStage(sctx, served, nil, opt)
	}
	if count(served) >= target || len(pr.cands) == 0 || warm == nil || ctx.Err() != nil {
		x, v, err := pr.checkedSchedule(served)
		return x, v, false, err
	}
	q, r, rounded, _, err := lpProbe(ctx, in, tau, warm)
	if err != nil {
		return nil, 0, false, err
	}
	fromLP := false
	if !math.IsNaN(r.lp) && !r.exact && rounded != nil {
		q.improve(ctx, rounded)
		opt.seed++
		q.wideStage(ctx, rounded, nil, opt)
		if fromLP = count(rounded) > count(served); fromLP {
			pr, served = q, rounded
		}
	}
	x, v, err := pr.checkedSchedule(served)
	return x, v, fromLP, err
}

// checkedSchedule is the schedule serving the candidates served (and
// everything pr settled), checked admissible, and its violations,
// checked against the count served says.
func (pr *problem) checkedSchedule(served []bool) ([]int64, int, error) {
	in := pr.in
	x := slices.Clone(pr.x)
	for i, c := range pr.cands {
		if served[i] {
			x[c.n] = c.d * in.BlockSize
		}
	}
	if err := in.CheckSchedule(x); err != nil {
		return nil, 0, fmt.Errorf("slo: internal error: a percentile probe's schedule is not admissible: %w", err)
	}
	v := Count(in, x, pr.s)
	if want := in.K() - pr.always - count(served); v != want {
		return nil, 0, fmt.Errorf("slo: internal error: a percentile probe's schedule has %d violations at %d tokens, its pairs say %d", v, pr.s, want)
	}
	return x, v, nil
}

// splitGainShare is what the lower side expects the stretches at the
// LP's split to add to the LP's bound on violations at its first split
// probe, before one has been measured, as a share of the LP's value (a
// guess: a probe that does not prove is followed by one lower). The
// split's gain grows with the instance, so a share of the LP carries
// from one size to another better than a count: it added 1.62 % on the
// embedded workload (58.0 at 1,265 tokens), 1.46 % at 10^5 turns (145 at
// 1,249 and 144 at 1,259) and 1.35 % at 10^4 turns (13.3 at 1,002 and
// 1,005), all at C = 131,072 tokens, B = 16. The guess is the largest
// of these, rounded: the first split then proves where it is right and
// costs one split that does not where it errs high (docs/tail-bounds.md,
// "The percentile's upper side starts again from the LP").
const splitGainShare = 0.016

// splitGainSpread is how much more than the last split's gain over its
// LP the next might add, violations: on the embedded workload the split
// alone added 58.5, 58.0, 57.1 and 57.7 at 1,264–1,267 tokens (the first
// three printed from p90 runs while this was written, the last
// BenchmarkPercentileSplit's span 333).
const splitGainSpread = 2

// splitSide raises s.lo by the stretches' bound at the LP's split
// (splitLower) while the context lasts. Each probe is at the largest τ
// in (lo, hi) whose LP value, plus the gain the last split had over its
// LP (splitGainShare of the LP before any), exceeds M, found by a
// search over the LPs that guesses by a line (splitGuess; an LP is cheap
// beside a split), and the split starts from that LP when this round
// solved it; so a proof moves on by the margin it had and a failure
// comes back below it. A failure at lo + 1 ends the side.
func splitSide(ctx context.Context, in *lp.Instance, M int, s *sideState, pts []lowerAt) error {
	var gain float64 // the last split's gain over its LP, once measured
	measured := false
	// expect is the gain expected over an LP of value v
	expect := func(v float64) float64 {
		if measured {
			return gain
		}
		return splitGainShare * v
	}
	// last is the last probe's wall time (its split and steps), lastSplit
	// its split's alone
	var last, lastSplit time.Duration
	for ctx.Err() == nil {
		lo, hi := s.get()
		if hi-lo <= 1 {
			return nil
		}
		// round holds the LPs this round solves, by τ: the split starts
		// from the one at its τ instead of solving it again
		round := make(map[int64]*solvedLP)
		lpRound := func(tau int64) (lowerAt, error) {
			p, sol, err := lpAt(ctx, in, tau, &pts)
			if sol != nil {
				round[tau] = sol
			}
			return p, err
		}
		if measured && !stepsFit(ctx, lastSplit) {
			// with no time for steps after a split, one as strong as the
			// last that would not prove even lo + 1 (the LP's value never
			// increases with τ) leaves the time to the schedules
			p, err := lpRound(lo + 1)
			if err != nil || (p.prices == nil && !p.exact) {
				return err
			}
			if p.lp+gain+splitGainSpread < float64(M)+1 {
				return nil
			}
		}
		// the largest τ in (lo, hi) with LP(τ) + gain > M, or lo + 1
		a, b := lo, hi
		for b-a > 1 && ctx.Err() == nil {
			m := splitGuess(pts, a, b, func(p lowerAt) float64 { return p.lp + expect(p.lp) }, float64(M)+1)
			p, err := lpRound(m)
			if err != nil {
				return err
			}
			if p.prices == nil && !p.exact {
				return nil // cut short by ctx
			}
			if p.lp+expect(p.lp) >= float64(M)+1 {
				a = m
			} else {
				b = m
			}
		}
		tau := max(a, lo+1)
		p, err := lpRound(tau)
		if err != nil || (p.prices == nil && !p.exact) {
			return err
		}
		if p.exact {
			// no candidates: the LP's count is V(τ) itself
			if p.lower > M {
				s.proveAbove(tau)
				continue
			}
			return nil
		}
		s.count()
		sctx, cancel := splitContext(ctx, last, tau <= lo+1)
		t0 := time.Now()
		r, split, err := splitLower(sctx, in, tau, M, p.prices, round[tau])
		cancel()
		last, lastSplit = time.Since(t0), split
		if err != nil {
			return err
		}
		if math.IsNaN(r.lp) {
			return nil // its LP was cut short: no gain to learn
		}
		if r.lower > M {
			s.proveAbove(tau)
		} else if tau <= lo+1 {
			return nil
		}
		gain, measured = float64(r.lower)-r.lp, true
	}
	return nil
}

// splitGuess is where splitSide's search for the largest τ with
// val(LP(τ)) ≥ need next solves an LP in (a, b), a known to pass and b
// not: where the line through the solved LPs nearest a that passes (at
// or below it) and nearest b that does not (at or above it) crosses need,
// rounded down (the LP's value moves almost linearly in τ over tens of
// tokens, so that the guess and the token above it are usually the last
// two LPs); the midpoint without both.
func splitGuess(pts []lowerAt, a, b int64, val func(lowerAt) float64, need float64) int64 {
	var below, above *lowerAt
	for i := range pts {
		p := &pts[i]
		if p.prices == nil && !p.exact {
			continue
		}
		if v := val(*p); p.tau <= a && v >= need && (below == nil || p.tau > below.tau) {
			below = p
		} else if p.tau >= b && v < need && (above == nil || p.tau < above.tau) {
			above = p
		}
	}
	m := a + (b-a)/2
	if below != nil && above != nil {
		vb, va := val(*below), val(*above)
		m = below.tau + int64(math.Floor((vb-need)/(vb-va)*float64(above.tau-below.tau)))
	}
	return min(max(m, a+1), b-1)
}

// stepsFit reports whether ctx leaves the time for a split as long as the
// last split (split, its steps left out: a probe that took steps would
// otherwise count them splitSteps + 1 times) and splitSteps steps after
// it.
func stepsFit(ctx context.Context, split time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= (1+splitSteps)*split
}

// splitSteps is how many steps on the shares the lower side expects a
// split that does not prove alone to need, each about as long as the
// split: on the embedded workload at 1,267 tokens the split alone gave
// 3,637 of the 3,640 violations in 16.0 s and three steps of about 14 s
// the rest (BenchmarkPercentileSplit/stop-333, alone). With less time
// left the side ends and leaves both cores to the upper side: in a
// 120 s solve the split at 1,267 began at 36 s, beside the upper side
// took 27 s, and had no time left for a step (docs/tail-bounds.md, "The
// lower side stops when its steps cannot fit").
const splitSteps = 3

// splitContext is a split probe's share of ctx: half the time left, so
// that another can follow, unless that is less than 1.2 times the last
// probe's wall time (last: its split and steps), when it is all of it. A probe at lo + 1
// (final) has all of it too: when it does not prove, the side ends, so
// no other probe would have the other half, and a split that needs steps
// (splitSteps) has no time for them in half the time left.
func splitContext(ctx context.Context, last time.Duration, final bool) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok || final {
		return context.WithCancel(ctx)
	}
	left := time.Until(dl)
	if share := left / 2; share >= last*6/5 {
		return context.WithTimeout(ctx, share)
	}
	return context.WithCancel(ctx)
}

// solvedLP is a flow LP solved at r.tau: the problem reduced there, the
// result (r.prices set: it finished) and the LP's bound on the pairs
// served per component.
type solvedLP struct {
	pr *problem
	r  lowerAt
	ub []int
}

// lpAt is the LP at tau from *pts (the LPs solved, by τ), solving and
// inserting it from the nearest solved LP's prices when it is not there
// (the LP alone: the split side needs no rounding). When it solved the
// LP to the end, solved is that solve, for splitLower to start from (at
// 36,392 turns an LP takes 0.7–3.2 s on both cores, and the split is
// usually at a τ the search has just solved).
func lpAt(ctx context.Context, in *lp.Instance, tau int64, pts *[]lowerAt) (lowerAt, *solvedLP, error) {
	var warm *lpPrices
	var near int64 = math.MaxInt64
	for _, p := range *pts {
		if p.tau == tau {
			return p, nil, nil
		}
		if d := max(p.tau-tau, tau-p.tau); p.prices != nil && d < near {
			warm, near = p.prices, d
		}
	}
	pr, r, _, ub, err := lpProbe(ctx, in, tau, warm)
	if err != nil {
		return r, nil, err
	}
	if r.prices != nil || r.exact {
		*pts = insertLower(*pts, r)
	}
	if r.prices == nil {
		return r, nil, nil
	}
	return r, &solvedLP{pr: pr, r: r, ub: ub}, nil
}

// splitLower is a certified lower bound on V(tau): the LP at tau started
// from warm's prices, then on every component the LP leaves open the
// stretches of scaleFlowSpan rows solved at its split by the flow LP's
// branch and bound on every core (scaleBound), then steps on their
// shares until the bound proves more than M violations or ctx ends (a
// stretch cut short answers the bound of its open nodes, and no step
// begins without the time to end, so the bound holds whenever ctx ends).
// r.lp is NaN when the LP was cut short; r.lower is then its weak dual's
// bound. A solved LP at tau (nil: none) is used instead of solving it
// again, and is consumed (its problem and bounds are changed). split is
// the wall time until the stretches at the split were solved (the LP's
// included when solved here), without the steps: what a step takes about
// as long as.
func splitLower(ctx context.Context, in *lp.Instance, tau int64, M int, warm *lpPrices, solved *solvedLP) (r lowerAt, split time.Duration, err error) {
	t0 := time.Now()
	var pr *problem
	var ub []int
	if solved != nil && solved.r.tau == tau {
		pr, r, ub = solved.pr, solved.r, solved.ub
	} else {
		pr, r, _, ub, err = lpProbe(ctx, in, tau, warm)
		if err != nil || r.exact || math.IsNaN(r.lp) {
			return r, time.Since(t0), err
		}
	}
	var runs []*scaleRun
	members := pr.members()
	for c, mem := range members {
		var run *scaleRun
		if len(mem) > 0 && ub[c] > 0 && ctx.Err() == nil {
			run = pr.scaleBound(ctx, mem, scaleFlowSpan, true)
		}
		if run != nil {
			pr.lowerUB(ub, c, run.best.floor(len(mem)))
		}
		runs = append(runs, run)
	}
	split = time.Since(t0)
	// then steps on the shares, while they have the time, until the
	// bound proves more than M (each component's run stops once the
	// pairs it may serve are few enough, given the others' bounds)
	need := pr.servedAbove(M)
	for c, run := range runs {
		if run == nil || sum(ub) <= need {
			continue
		}
		run.steps(ctx, need-(sum(ub)-ub[c]), stretchIter, nil)
		pr.lowerUB(ub, c, run.best.floor(len(members[c])))
	}
	r.lower = in.K() - pr.always - sum(ub)
	return r, split, nil
}

// servedAbove is the most candidates a schedule serves when it has more
// than M violations: a bound on the candidates served at most that
// proves V(τ) > M.
func (pr *problem) servedAbove(M int) int { return pr.in.K() - pr.always - (M + 1) }

// sum is the sum of a.
func sum(a []int) int {
	t := 0
	for _, v := range a {
		t += v
	}
	return t
}
