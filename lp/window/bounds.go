package window

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/models/instance"
)

// WidthTol is the relative width, (Upper − Lower)/Upper, at or below which
// the interval is reported proven optimal: the bounds are sums of up to
// 10^8 per-turn terms in float64, each window's optimum exact on integer
// costs, so 1e-9 relative is well above their rounding and far below any
// gap between schedules that differ by one token.
const WidthTol = 1e-9

// Bounds is a certified interval around a trace's TEL optimum, tokens.
type Bounds struct {
	// Lower and Upper bound TEL_opt, tokens: Lower ≤ TEL_opt ≤ Upper.
	Lower float64 `json:"lower_bound"`
	Upper float64 `json:"upper_bound"`
	// ProvenOptimal says Upper − Lower ≤ WidthTol·Upper: Upper is TEL_opt.
	ProvenOptimal bool `json:"proven_optimal"`
	// RelativeWidth is (Upper − Lower)/Upper (0 when Upper is 0).
	RelativeWidth float64 `json:"relative_width"`
	// Windows is the number of windows, WindowTurns their size in steps
	// (the last may be shorter), SeamTurns the half-width of the seams
	// re-solved between them (steps), Turns the steps in all.
	Windows     int `json:"windows"`
	WindowTurns int `json:"window_turns"`
	SeamTurns   int `json:"seam_turns"`
	// LowerOverlap is how far back each window's relaxation reached into
	// the window before, steps (0: not at all).
	LowerOverlap int `json:"lower_overlap_turns"`
	Turns        int `json:"turns"`
	// BaseTEL is the TEL with nothing cached, tokens.
	BaseTEL float64 `json:"base_tel_tokens"`
	// PerWindow are the windows' figures, in order (when asked for).
	PerWindow []Figures `json:"per_window,omitempty"`
}

// Options say how to cut and what to keep.
type Options struct {
	// Params are the cache parameters (tokens).
	Params instance.Params
	// WindowTurns is the window size, steps (≥ 1).
	WindowTurns int
	// SeamTurns is the half-width of the seams re-solved between windows,
	// steps (0: none; at most half of either window is used).
	SeamTurns int
	// LowerOverlap is how far back each window's relaxation is widened
	// into the window before, steps (SolveLowerOverlap; 0: not; at most
	// WindowTurns is used).
	LowerOverlap int
	// PerWindow keeps each window's figures in Bounds.PerWindow.
	PerWindow bool
	// Mine, when not nil, picks the windows to solve by index (a shard's
	// share); the others are read past and not solved (but for the
	// restriction of the one after each chosen window, which its seam
	// needs), and Bounds holds the figures of the chosen ones only.
	Mine func(index int) bool
	// Schedule, when not nil, receives each window's stitched schedule
	// (x_n, tokens, for its turns from step start on), seams included; it
	// needs every window (Mine nil).
	Schedule func(start int, x []int64) error
	// Progress (nil: none) is told, as each window is solved, the windows
	// read up to it (its index + 1), with no total (progress.Func.Total
	// can add it).
	Progress progress.Func
}

// Run reads src once, a window at a time, and returns the summed interval.
// Each window chosen is solved twice (relaxation and restriction) and the
// seam after it re-solved, which needs the next window's restriction: the
// windows are read one ahead, so at most two are held (and one turn of the
// window after them).
func Run(ctx context.Context, src TurnReader, opt Options) (*Bounds, error) {
	if opt.Schedule != nil && opt.Mine != nil {
		return nil, fmt.Errorf("window: a stitched schedule needs every window")
	}
	sp, err := NewSplitter(src, opt.WindowTurns)
	if err != nil {
		return nil, err
	}
	back := max(0, min(opt.LowerOverlap, opt.WindowTurns))
	sp.Lookback = back
	next := func() (*Window, error) {
		w, err := sp.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return w, err
	}
	mine := func(w *Window) bool { return opt.Mine == nil || opt.Mine(w.Index) }
	// The windows read and not yet done: the current one and the next (its
	// seam); whether the next is the last, which its relaxation's weights
	// depend on, is read one turn ahead (Splitter.More).
	var ws []*Window
	eof := false
	last := func(i int) (bool, error) {
		if i+1 < len(ws) || eof {
			return i+1 >= len(ws), nil
		}
		more, err := sp.More()
		return !more, err
	}
	type solved struct {
		lo float64
		r  *Restricted
	}
	cache := map[int]solved{}
	solve := func(i int) (solved, error) {
		if s, ok := cache[ws[i].Index]; ok {
			return s, nil
		}
		end, err := last(i)
		if err != nil {
			return solved{}, err
		}
		lo, r, err := LowerAndRestricted(ctx, ws[i], opt.Params, back, end)
		if err != nil {
			return solved{}, err
		}
		cache[ws[i].Index] = solved{lo, r}
		return cache[ws[i].Index], nil
	}
	figs := []Figures{}
	var head []int64 // the current window's schedule with the seam before it applied
	for {
		for len(ws) < 2 && !eof {
			if len(ws) == 0 { // no window waits for the next ones: read past those not picked
				if err := sp.SkipUntil(opt.Mine); errors.Is(err, io.EOF) {
					eof = true
					break
				} else if err != nil {
					return nil, err
				}
			}
			w, err := next()
			if err != nil {
				return nil, err
			}
			if w == nil {
				eof = true
				break
			}
			ws = append(ws, w)
		}
		if len(ws) == 0 {
			break
		}
		cur := ws[0]
		if !mine(cur) {
			ws[0] = nil // not held by ws's array while the next window is read
			ws, head = ws[1:], nil
			delete(cache, cur.Index)
			continue
		}
		start := time.Now()
		f := Figures{Index: cur.Index, Start: cur.Start, Turns: cur.Len()}
		sc, err := solve(0)
		if err != nil {
			return nil, err
		}
		f.Lower, f.Restricted = sc.lo, sc.r.TEL
		if head == nil {
			head = sc.r.X
		}
		var nxtHead []int64
		if len(ws) > 1 {
			sn, err := solve(1)
			if err != nil {
				return nil, err
			}
			var xl []int64
			if f.SeamGain, xl, nxtHead, err = Seam(ctx, sc.r, sn.r, opt.Params, opt.SeamTurns); err != nil {
				return nil, err
			}
			// cur's stitched schedule: the seam before it on its head,
			// this seam on its tail (they share no step, nor turn).
			h := SeamSteps(opt.SeamTurns, cur.Len(), ws[1].Len())
			head = append(head[:cur.Len()-h:cur.Len()-h], xl[cur.Len()-h:]...)
		}
		f.Upper = f.Restricted + f.SeamGain
		for j := range cur.Turns {
			f.BaseTEL += math.Max(float64(cur.History[j]+cur.Turns[j].Prompt)-opt.Params.Xi, 0)
		}
		f.Seconds = time.Since(start).Seconds()
		if opt.Schedule != nil {
			if err := opt.Schedule(cur.Start, head); err != nil {
				return nil, err
			}
		}
		figs = append(figs, f)
		opt.Progress.Report("windows", int64(cur.Index+1), 0)
		ws[0] = nil
		ws, head = ws[1:], nxtHead
		delete(cache, cur.Index)
	}
	b := Sum(figs, opt.WindowTurns)
	b.SeamTurns, b.LowerOverlap = opt.SeamTurns, back
	if !opt.PerWindow {
		b.PerWindow = nil
	}
	return b, nil
}

// Sum adds windows' figures into an interval (PerWindow holds them all).
func Sum(figs []Figures, windowTurns int) *Bounds {
	b := &Bounds{Windows: len(figs), WindowTurns: windowTurns, PerWindow: figs}
	for _, f := range figs {
		b.Lower += f.Lower
		b.Upper += f.Upper
		b.BaseTEL += f.BaseTEL
		b.Turns += f.Turns
	}
	if b.Upper > 0 {
		b.RelativeWidth = math.Max(0, b.Upper-b.Lower) / b.Upper
	}
	b.ProvenOptimal = b.RelativeWidth <= WidthTol
	return b
}

// String is a one-line summary.
func (b *Bounds) String() string {
	return fmt.Sprintf("TEL_opt in [%.0f, %.0f] tokens (width %.3g%%, %d windows of %d steps)", b.Lower, b.Upper, 100*b.RelativeWidth, b.Windows, b.WindowTurns)
}
