package window

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// SLOBounds bound the fewest SLO violations (turns with more than SLOTokens
// uncached tokens) over the admissible schedules of a whole trace, summed
// over windows: Lower ≤ optimum ≤ Upper, turns.
type SLOBounds struct {
	SLOTokens     int64 `json:"slo_tokens"`
	Lower         int   `json:"lower_bound"`
	Upper         int   `json:"upper_bound"`
	ProvenOptimal bool  `json:"proven_optimal"`
	// RelativeWidth is (Upper − Lower)/Upper (0 when Upper is 0).
	RelativeWidth float64 `json:"relative_width"`
	Windows       int     `json:"windows"`
	WindowTurns   int     `json:"window_turns"`
	// SeamTurns is the half-width of the seams re-solved between windows,
	// steps (0: none).
	SeamTurns int `json:"seam_turns"`
	Turns     int `json:"turns"`
	// UpperMode names how hard the windows' upper ends were searched
	// (SLOUpper's name; empty: full, lp/slo's whole upper end).
	UpperMode string `json:"upper_mode,omitempty"`
	// LowerOverlap is how far back each window's relaxation reached
	// into the window before, steps (SLOLowerOverlap; 0: not, and then
	// absent). With it Lower is the windows' weighted bounds summed and
	// rounded up once.
	LowerOverlap int `json:"lower_overlap_turns,omitempty"`
	// PerWindow are each window's bounds, turns.
	PerWindow []SLOFigures `json:"per_window,omitempty"`
}

// SLOFigures are one window's SLO bounds, turns: Lower bounds the
// violations among its turns in any admissible global schedule (from
// lp/slo's lower bound on its relaxation), Upper is attained by its
// restriction's schedule (lp/slo's upper bound, schedule checked) with
// the seam after it re-solved.
type SLOFigures struct {
	Index int `json:"index"`
	Start int `json:"start_step"`
	Turns int `json:"turns"`
	// Lower is the window's bound, turns; with a lower overlap it is
	// ⌊LowerWeighted⌋, and the windows' sum is not Σ Lower but ⌈Σ
	// LowerWeighted⌉.
	Lower int `json:"lower_bound"`
	// LowerWeighted, with a lower overlap (nil without), is the window's
	// weighted bound (SLOLowerOverlap), turns: a multiple of
	// 1/RampDenominator, exact in a float64.
	LowerWeighted *float64 `json:"lower_bound_weighted,omitempty"`
	// Restricted is the violations of the restriction's schedule, SeamGain
	// the change the seam after the window made (≤ 0; 0 for the last),
	// Upper = Restricted + SeamGain, turns.
	Restricted int `json:"restricted"`
	SeamGain   int `json:"seam_gain"`
	Upper      int `json:"upper_bound"`
	// Seconds is the time the window's solves took.
	Seconds float64 `json:"seconds"`
}

// SLOLower returns a lower bound on the violations of SLO s tokens among
// window w's turns in any admissible schedule of the whole trace, under
// optional caching: lp/slo's lower bound on the window's relaxation, an
// instance of its own in which every pair that crosses the window's start
// starts instead at a virtual turn before the window (a first turn of 1
// token whose response brings its conversation's history to H_n, so the
// pair's cap min(⌊H_n/B⌋, C/B) is unchanged), one virtual step each. At a
// virtual step only crossing pairs are held, all of which the global
// schedule holds at step a − 1, so the global optimum restricted to the
// window's pairs is feasible for it; the virtual turns find nothing and
// have 1 uncached token, so they violate iff s < 1 in every schedule,
// which is subtracted.
func SLOLower(ctx context.Context, w *Window, p instance.Params, s int64, opt slo.Options) (int, error) {
	in, g, err := sloRelaxation(w, p)
	if err != nil {
		return 0, err
	}
	// Only the lower end is used, and without a backend it is the LP's:
	// the schedule's greedy stages and search would change nothing here.
	if opt.Backend == nil {
		opt.NoImprove, opt.NoLNS = true, true
	}
	r, err := slo.Violations(ctx, in, s, opt)
	if err != nil {
		return 0, err
	}
	lo := r.Lower
	if s < 1 {
		lo -= g
	}
	return lo, nil
}

// sloRelaxation is SLOLower's instance of window w: its g virtual turns
// first (one per pair crossing w's start), then w's turns.
func sloRelaxation(w *Window, p instance.Params) (*lp.Instance, int, error) {
	if p.Forced {
		return nil, 0, errors.New("window: windowed SLO bounds are for optional caching only (a virtual step's capacity would be cut by a forced hold the relaxation must not have)")
	}
	var virt []trace.Turn
	vIdx := map[int]int{} // conversation → local index of its virtual turn
	for j, t := range w.Turns {
		if g := w.Prev[j]; g >= 0 && g < w.Start {
			vIdx[t.Conv] = len(virt)
			virt = append(virt, trace.Turn{Conv: t.Conv, Prompt: 1, Response: w.History[j] - 1})
		}
	}
	g := len(virt)
	n := g + w.Len()
	b := newBuilder(p, n)
	for i, v := range virt {
		b.add(i, v, 0, -1)
	}
	for j, t := range w.Turns {
		prev := -1
		if gp := w.Prev[j]; gp >= w.Start {
			prev = g + gp - w.Start
		} else if gp >= 0 {
			prev = vIdx[t.Conv]
		}
		if prev >= 0 && b.last[t.Conv] != prev {
			return nil, 0, fmt.Errorf("window %d: turn %d's previous turn is not its conversation's last", w.Index, w.Start+j)
		}
		b.add(g+j, t, w.History[j], prev)
	}
	return b.instance(), g, nil
}

// SLOLowerOverlap is SLOLower with the relaxation widened back by back
// steps into the window before (w from a Splitter whose Lookback is at
// least back, back at most the previous window's length), as
// SolveLowerOverlap widens TEL's: the pairs ending in the widened window
// (those crossing its start from virtual steps, as SLOLower's), and each
// turn's violation weighted by overlapWeight — in the overlap before w by
// the ramp rising towards w, in the last back turns of w (unless last, no
// window after) by the rest, which the next window counts — the virtual
// turns by 0. It returns lp/slo's certified LP bound on the weighted
// violations (slo.WeightedLower, the LP alone whatever opt's backend),
// in 1/RampDenominator turns: every turn's weights over the windows add
// up to 1, so the windows' bounds add up to at most V(s), and the sum is
// rounded up once (SLOBounds; the package doc's argument).
func SLOLowerOverlap(ctx context.Context, w *Window, p instance.Params, s int64, back int, last bool, opt slo.Options) (int64, error) {
	back = max(back, 0)
	e := w.Extended(back)
	got := w.Start - e.Start
	if got != min(back, w.Start) {
		return 0, fmt.Errorf("window %d: %d steps kept before it, %d wanted (Splitter.Lookback too small)", w.Index, got, min(back, w.Start))
	}
	in, g, err := sloRelaxation(e, p)
	if err != nil {
		return 0, err
	}
	end, lb := w.Start+w.Len(), min(back, w.Len())
	wt := make([]int64, in.K()) // the virtual turns' 0, then e's turns'
	for j := range e.Turns {
		wt[g+j] = overlapWeight(e.Start+j, w.Start, got, end, lb, last)
	}
	r, err := slo.WeightedLower(ctx, in, s, wt, RampDenominator, slo.Options{TimeLimit: opt.TimeLimit})
	if err != nil {
		return 0, fmt.Errorf("window %d: %w", w.Index, err)
	}
	return r.Num, nil
}

// SLORestricted returns lp/slo's upper bound on the violations among
// window w's turns with only the pairs inside the window (optional
// caching), with its schedule (x_n, tokens), which lp/slo checks
// admissible; stitched, the windows' schedules are admissible for the
// whole trace (the package doc's argument).
func SLORestricted(ctx context.Context, w *Window, p instance.Params, s int64, opt slo.Options) (int, []int64, error) {
	if p.Forced {
		return 0, nil, errors.New("window: windowed SLO bounds are for optional caching only")
	}
	c := *w
	c.HasBefore = false // no turn before the window: crossing pairs carry nothing
	l, err := newLocal(&c, p)
	if err != nil {
		return 0, nil, err
	}
	r, err := slo.Violations(ctx, l.in, s, opt)
	if err != nil {
		return 0, nil, err
	}
	if err := l.in.CheckSchedule(r.Schedule); err != nil {
		return 0, nil, fmt.Errorf("window %d: lp/slo's schedule is not admissible: %w", w.Index, err)
	}
	if got := slo.Count(l.in, r.Schedule, s); got != r.Upper {
		return 0, nil, fmt.Errorf("window %d: lp/slo's schedule has %d violations, its upper bound says %d", w.Index, got, r.Upper)
	}
	return r.Upper, r.Schedule, nil
}

// SLOOptions say how RunSLOWith cuts the trace and what it keeps.
type SLOOptions struct {
	// Params are the cache parameters (tokens; optional caching only).
	Params instance.Params
	// WindowTurns is the window size, steps (≥ 1).
	WindowTurns int
	// SLOTokens is s: a turn violates the SLO iff it has more than s
	// uncached tokens.
	SLOTokens int64
	// SeamTurns is the half-width of the seams re-solved between windows
	// for the upper bound, steps (0: none; at most half of either window
	// is used).
	SeamTurns int
	// LowerOverlap is how far back each window's relaxation reaches into
	// the window before for the lower bound, steps (SLOLowerOverlap; 0:
	// not, SLOLower's; at most WindowTurns is used). With it the lower
	// end is the weighted LP's alone, whatever Solver's backend.
	LowerOverlap int
	// Solver bounds each lp/slo solve.
	Solver slo.Options
	// Upper says how hard each window's upper end (its restriction and
	// the seam after it) is searched (the zero value, UpperFull: as
	// Solver asks); the lower end is the same in every mode.
	Upper SLOUpper
	// PerWindow keeps each window's figures in SLOBounds.PerWindow.
	PerWindow bool
	// Mine, when not nil, picks the windows to solve by index (a shard's
	// share), as Options.Mine.
	Mine func(index int) bool
	// Schedule, when not nil, receives each window's stitched schedule
	// (x_n, tokens, for its turns from step start on), seams included; it
	// needs every window (Mine nil).
	Schedule func(start int, x []int64) error

	// For RunPercentile's probes: skip the lower or the upper bound
	// (Lower or Upper then 0 and meaningless), stop once stop says so
	// after a window (stopped set; the sums then cover the windows read),
	// and see each window with its stitched schedule (every window).
	skipLower, skipUpper bool
	stop                 func(lower, upper int) bool
	stopped              *bool
	hook                 func(w *Window, x []int64)
}

// SLOUpper is how hard the windowed SLO bounds search each window's upper
// end, the restriction's schedule and the seam's; the cheaper modes give
// an upper bound no lower (a wider interval) in less time. The lower end,
// SLOLower, is the same in every mode, so the interval stays certified:
// every mode's schedule is admissible and checked, whatever found it.
type SLOUpper int

const (
	// UpperFull is lp/slo's whole upper end as SLOOptions.Solver asks:
	// the LP's rounding, the greedy stages and the large-neighbourhood
	// search (its budget Solver.LNSWindows), and the backend's integer
	// programs when one is set.
	UpperFull SLOUpper = iota
	// UpperLP is the LP's rounding and the greedy stages, no search and
	// no integer program (slo.Options.NoLNS, no backend).
	UpperLP
	// UpperGreedy is the greedy stages from nothing: no LP, no search,
	// no integer program (slo.Options.NoLP and NoLNS, no backend).
	UpperGreedy
)

// sloUpperNames are the modes' names, as flags and settings spell them.
var sloUpperNames = [...]string{UpperFull: "full", UpperLP: "lp", UpperGreedy: "greedy"}

// String is the mode's name: full, lp or greedy.
func (u SLOUpper) String() string {
	if u < 0 || int(u) >= len(sloUpperNames) {
		return fmt.Sprintf("SLOUpper(%d)", int(u))
	}
	return sloUpperNames[u]
}

// ParseSLOUpper reads a mode by its name: full, lp or greedy.
func ParseSLOUpper(s string) (SLOUpper, error) {
	for u, n := range sloUpperNames {
		if n == s {
			return SLOUpper(u), nil
		}
	}
	return 0, fmt.Errorf("want full, lp or greedy, got %q", s)
}

// solver is opt as mode u asks for an upper end's solve.
func (u SLOUpper) solver(opt slo.Options) (slo.Options, error) {
	switch u {
	case UpperFull:
	case UpperLP:
		opt.NoLNS, opt.Backend = true, nil
	case UpperGreedy:
		opt.NoLP, opt.NoLNS, opt.Backend = true, true, nil
	default:
		return opt, fmt.Errorf("window: %v is not an upper-end mode (full, lp or greedy)", u)
	}
	return opt, nil
}

// RunSLO reads src once, a window of size steps at a time, and sums each
// window's SLO bounds (optional caching), without seams. schedule, when
// not nil, receives each window's restriction schedule. opt.Progress is
// told the windows done, with no total.
func RunSLO(ctx context.Context, src TurnReader, p instance.Params, size int, s int64, opt slo.Options, schedule func(start int, x []int64) error) (*SLOBounds, error) {
	return RunSLOWith(ctx, src, SLOOptions{Params: p, WindowTurns: size, SLOTokens: s, Solver: opt, PerWindow: true, Schedule: schedule})
}

// RunSLOWith reads src once, a window at a time, and sums each window's
// SLO bounds (optional caching): Lower from SLOLower, Upper from
// SLORestricted plus the gain of the seam after the window (SLOSeam),
// which needs the next window's restriction, so the windows are read one
// ahead and at most two are held. A window's task needs nothing from the
// tasks of the others (it solves the next window's restriction itself),
// so a shard's figures (Mine) add up with the others'. o.Solver.Progress
// is told the windows done.
func RunSLOWith(ctx context.Context, src TurnReader, o SLOOptions) (*SLOBounds, error) {
	if o.Schedule != nil && o.Mine != nil {
		return nil, fmt.Errorf("window: a stitched schedule needs every window")
	}
	upper, err := o.Upper.solver(o.Solver)
	if err != nil {
		return nil, err
	}
	sp, err := NewSplitter(src, o.WindowTurns)
	if err != nil {
		return nil, err
	}
	back := max(0, min(o.LowerOverlap, o.WindowTurns))
	sp.Lookback = back
	p, s := o.Params, o.SLOTokens
	b := &SLOBounds{SLOTokens: s, WindowTurns: o.WindowTurns, SeamTurns: o.SeamTurns, LowerOverlap: back}
	var shares int64 // with an overlap: the windows' weighted bounds, 1/RampDenominator turns
	if o.Upper != UpperFull {
		b.UpperMode = o.Upper.String()
	}
	var ws []*Window
	eof := false
	type restricted struct {
		up int
		x  []int64
	}
	cache := map[int]restricted{}
	restrict := func(w *Window) (restricted, error) {
		if r, ok := cache[w.Index]; ok {
			return r, nil
		}
		up, x, err := SLORestricted(ctx, w, p, s, upper)
		if err != nil {
			return restricted{}, err
		}
		cache[w.Index] = restricted{up, x}
		return cache[w.Index], nil
	}
	var head []int64 // the current window's schedule with the seam before it applied
	for {
		for len(ws) < 2 && !eof {
			if len(ws) == 0 { // no window waits for the next one: read past those not picked
				if err := sp.SkipUntil(o.Mine); errors.Is(err, io.EOF) {
					eof = true
					break
				} else if err != nil {
					return nil, err
				}
			}
			w, err := sp.Next()
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				return nil, err
			}
			ws = append(ws, w)
		}
		if len(ws) == 0 {
			break
		}
		cur := ws[0]
		if o.Mine != nil && !o.Mine(cur.Index) {
			ws, head = ws[1:], nil
			delete(cache, cur.Index)
			continue
		}
		start := time.Now()
		f := SLOFigures{Index: cur.Index, Start: cur.Start, Turns: cur.Len()}
		switch {
		case o.skipLower:
		case back > 0:
			// the window is the last when none was read after it (ws
			// holds two windows unless the trace ended)
			num, err := SLOLowerOverlap(ctx, cur, p, s, back, len(ws) == 1, o.Solver)
			if err != nil {
				return nil, err
			}
			f.setWeighted(num)
			shares += num
		default:
			if f.Lower, err = SLOLower(ctx, cur, p, s, o.Solver); err != nil {
				return nil, err
			}
		}
		var rc restricted
		if !o.skipUpper {
			if rc, err = restrict(cur); err != nil {
				return nil, err
			}
			f.Restricted = rc.up
		}
		if head == nil {
			head = rc.x
		}
		var nxtHead []int64
		if len(ws) > 1 && !o.skipUpper {
			rn, err := restrict(ws[1])
			if err != nil {
				return nil, err
			}
			var xl []int64
			if f.SeamGain, xl, nxtHead, err = SLOSeam(ctx, cur, ws[1], rc.x, rn.x, p, s, o.SeamTurns, upper); err != nil {
				return nil, err
			}
			h := SeamSteps(o.SeamTurns, cur.Len(), ws[1].Len())
			head = append(head[:cur.Len()-h:cur.Len()-h], xl[cur.Len()-h:]...)
		}
		f.Upper = f.Restricted + f.SeamGain
		f.Seconds = time.Since(start).Seconds()
		if o.Schedule != nil {
			if err := o.Schedule(cur.Start, head); err != nil {
				return nil, err
			}
		}
		if o.hook != nil {
			o.hook(cur, head)
		}
		b.PerWindow = append(b.PerWindow, f)
		b.Lower, b.Upper = b.Lower+f.Lower, b.Upper+f.Upper
		if back > 0 {
			b.Lower = ceilShares(shares)
		}
		ws, head = ws[1:], nxtHead
		delete(cache, cur.Index)
		if o.stop != nil && o.stop(b.Lower, b.Upper) {
			*o.stopped = true
			break
		}
		o.Solver.Progress.Report("windows", int64(cur.Index+1), 0)
	}
	b.sum()
	if !o.PerWindow {
		b.PerWindow = nil
	}
	return b, nil
}

// SumSLO adds windows' SLO figures into an interval (PerWindow holds them
// all); with a lower overlap (lowerOverlap > 0 steps) every window's
// LowerWeighted must be set, and their sum is rounded up once.
func SumSLO(figs []SLOFigures, windowTurns, seamTurns, lowerOverlap int) (*SLOBounds, error) {
	b := &SLOBounds{WindowTurns: windowTurns, SeamTurns: seamTurns, LowerOverlap: lowerOverlap, PerWindow: figs}
	for _, f := range figs {
		if (f.LowerWeighted != nil) != (lowerOverlap > 0) {
			return nil, fmt.Errorf("window: window %d: a weighted lower bound with a lower overlap of %d steps, and only then", f.Index, lowerOverlap)
		}
		if f.LowerWeighted != nil {
			if _, err := sharesOf(*f.LowerWeighted); err != nil {
				return nil, fmt.Errorf("window %d: %w", f.Index, err)
			}
		}
	}
	b.sum()
	return b, nil
}

// setWeighted sets f's lower bound from its weighted bound num,
// 1/RampDenominator turns.
func (f *SLOFigures) setWeighted(num int64) {
	v := float64(num) / RampDenominator // exact: num < 2^53
	f.LowerWeighted = &v
	f.Lower = int(num / RampDenominator)
}

// sharesOf is a weighted bound v, turns, in 1/RampDenominator turns: an
// error unless v is a whole number of them.
func sharesOf(v float64) (int64, error) {
	n := v * RampDenominator
	if n != math.Trunc(n) || n < 0 || n >= 1<<53 {
		return 0, fmt.Errorf("weighted lower bound %v turns is not a whole number of 1/%d turns", v, RampDenominator)
	}
	return int64(n), nil
}

// ceilShares is ⌈num/RampDenominator⌉ for num ≥ 0.
func ceilShares(num int64) int {
	return int((num + RampDenominator - 1) / RampDenominator)
}

// sum sets the totals from PerWindow: with weighted lower bounds, their
// sum rounded up once (each window's is a bound on a weighted count, and
// only their sum on V(s), a whole number).
func (b *SLOBounds) sum() {
	b.Lower, b.Upper, b.Windows, b.Turns = 0, 0, len(b.PerWindow), 0
	var shares int64
	weighted := false
	for _, f := range b.PerWindow {
		b.Lower += f.Lower
		b.Upper += f.Upper
		b.Turns += f.Turns
		if f.LowerWeighted != nil {
			n, _ := sharesOf(*f.LowerWeighted) // checked where it was read
			shares += n
			weighted = true
		}
	}
	if weighted {
		b.Lower = ceilShares(shares)
	}
	b.RelativeWidth = 0
	if b.Upper > 0 {
		b.RelativeWidth = float64(b.Upper-b.Lower) / float64(b.Upper)
	}
	b.ProvenOptimal = b.Lower == b.Upper
}

// SLOSeam re-solves the seam between consecutive windows left and right
// for SLO s tokens, as Seam does for TEL (optional caching): xl and xr
// are the windows' restriction schedules (tokens), h = SeamSteps(half, …);
// every pair whose previous turn and turn both lie in the seam's steps
// [b − h, b + h) (b right's first step), those crossing b included,
// becomes free again, on the capacity the two schedules' other pairs
// leave at each seam step (slo.Options.Reserved), and lp/slo's schedule
// of the seam replaces theirs when it has fewer violations among those
// pairs' turns. The old amounts are feasible for the seam, so the gain,
// the change in the two windows' violations, is ≤ 0 turns. It returns the
// gain and the two windows' schedules with the seam applied (new slices),
// checked together as one schedule of the two windows with their
// violations recounted. Seams of a window's two sides share no step and
// no freed turn (h is at most half of either window), so the stitched
// schedule stays admissible, as in the TEL case.
func SLOSeam(ctx context.Context, left, right *Window, xl, xr []int64, p instance.Params, s int64, half int, opt slo.Options) (int, []int64, []int64, error) {
	if p.Forced {
		return 0, nil, nil, errors.New("window: windowed SLO bounds are for optional caching only")
	}
	nl, nr := left.Len(), right.Len()
	if right.Start != left.Start+nl || len(xl) != nl || len(xr) != nr {
		return 0, nil, nil, fmt.Errorf("window: SLO seam between windows %d and %d that do not touch, or schedules of the wrong length", left.Index, right.Index)
	}
	h := SeamSteps(half, nl, nr)
	x := append(append([]int64(nil), xl...), xr...)
	if h == 0 {
		return 0, x[:nl:nl], x[nl:], nil
	}
	m := &Window{Index: left.Index, Start: left.Start, Before: left.Before, BeforeHistory: left.BeforeHistory, HasBefore: left.HasBefore,
		Turns:   append(left.Turns[:nl:nl], right.Turns...),
		History: append(left.History[:nl:nl], right.History...),
		Prev:    append(left.Prev[:nl:nl], right.Prev...)}
	l, err := newLocal(m, p)
	if err != nil {
		return 0, nil, nil, err
	}
	r0, r1 := nl-h, nl+h
	B := p.BlockSize
	violates := func(j int, xj int64) bool { return l.in.Load(j+l.o)-xj > s }
	// The seam's own instance: its turns, a pair kept when both its turns
	// are in the seam; the blocks the other pairs hold at its steps
	// reserved.
	reserved := make([]int64, h+h)
	freed := make([]bool, h+h)
	for j := range m.Turns {
		gp := l.gp[j]
		if gp < l.a {
			continue // crosses the windows' start: the restriction carries nothing
		}
		from := gp - l.a
		if from >= r0 && j < r1 {
			freed[j-r0] = true
			continue
		}
		for t := max(from, r0); t < min(j, r1); t++ {
			reserved[t-r0] += x[j] / B
		}
	}
	bl := newBuilder(p, h+h)
	for k := range freed {
		j := r0 + k
		prev := -1
		if freed[k] {
			prev = l.gp[j] - l.a - r0
		}
		if prev >= 0 && bl.last[m.Turns[j].Conv] != prev {
			return 0, nil, nil, fmt.Errorf("window: seam after window %d: turn %d's previous turn is not its conversation's last", left.Index, m.Start+j)
		}
		bl.add(k, m.Turns[j], m.History[j], prev)
	}
	in := bl.instance()
	for k, v := range reserved {
		if v > in.Blocks() {
			return 0, nil, nil, fmt.Errorf("window: seam after window %d: step %d over capacity before the re-solve (a bug)", left.Index, m.Start+r0+k)
		}
	}
	o := opt
	o.Reserved, o.Warm = reserved, nil
	r, err := slo.Violations(ctx, in, s, o)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("seam after window %d: %w", left.Index, err)
	}
	gain := 0
	for k, f := range freed {
		if f {
			j := r0 + k
			gain += b2i(violates(j, r.Schedule[k])) - b2i(violates(j, x[j]))
		}
	}
	if gain < 0 {
		for k, f := range freed {
			if f {
				x[r0+k] = r.Schedule[k]
			}
		}
	} else {
		gain = 0 // lp/slo's schedule is no better: keep the restrictions'
	}
	// Check the two windows' schedule as one, and recount.
	full := make([]int64, l.in.K())
	copy(full[l.o:], x)
	if err := l.in.CheckSchedule(full); err != nil {
		return 0, nil, nil, fmt.Errorf("window: seam after window %d: the stitched schedule is not admissible (a bug): %w", left.Index, err)
	}
	before, after := 0, 0
	for j := range x {
		var old int64
		if j < nl {
			old = xl[j]
		} else {
			old = xr[j-nl]
		}
		before += b2i(violates(j, old))
		after += b2i(violates(j, x[j]))
	}
	if after-before != gain {
		return 0, nil, nil, fmt.Errorf("window: seam after window %d: violations changed by %d, the seam counted %d (a bug)", left.Index, after-before, gain)
	}
	return gain, x[:nl:nl], x[nl:], nil
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
