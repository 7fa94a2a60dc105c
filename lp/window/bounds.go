package window

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

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
	// (the last may be shorter), Turns the steps in all.
	Windows     int `json:"windows"`
	WindowTurns int `json:"window_turns"`
	Turns       int `json:"turns"`
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
	// PerWindow keeps each window's figures in Bounds.PerWindow.
	PerWindow bool
	// Mine, when not nil, picks the windows to solve by index (a shard's
	// share); the others are read past and not solved, and Bounds holds
	// the figures of the chosen ones only.
	Mine func(index int) bool
	// Schedule, when not nil, receives each solved window's upper-bound
	// schedule (x_n, tokens, for its turns from step start on).
	Schedule func(start int, x []int64) error
}

// Run reads src once, a window at a time, solves each window chosen and
// returns the summed interval.
func Run(ctx context.Context, src TurnReader, opt Options) (*Bounds, error) {
	sp, err := NewSplitter(src, opt.WindowTurns)
	if err != nil {
		return nil, err
	}
	figs := []Figures{}
	for {
		w, err := sp.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if opt.Mine != nil && !opt.Mine(w.Index) {
			continue
		}
		start := time.Now()
		s, err := Solve(ctx, w, opt.Params)
		if err != nil {
			return nil, err
		}
		s.Seconds = time.Since(start).Seconds()
		if opt.Schedule != nil {
			if err := opt.Schedule(w.Start, s.Schedule); err != nil {
				return nil, err
			}
		}
		figs = append(figs, s.Figures)
	}
	b := Sum(figs, opt.WindowTurns)
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
