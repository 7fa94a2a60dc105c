package window

import (
	"context"
	"errors"
	"fmt"
	"io"

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
	Turns         int     `json:"turns"`
	// PerWindow are each window's bounds, turns.
	PerWindow []SLOFigures `json:"per_window,omitempty"`
}

// SLOFigures are one window's SLO bounds, turns: Lower bounds the
// violations among its turns in any admissible global schedule (from
// lp/slo's lower bound on its relaxation), Upper is attained by its
// restriction's schedule (lp/slo's upper bound, schedule checked).
type SLOFigures struct {
	Index int `json:"index"`
	Start int `json:"start_step"`
	Turns int `json:"turns"`
	Lower int `json:"lower_bound"`
	Upper int `json:"upper_bound"`
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
	if p.Forced {
		return 0, errors.New("window: windowed SLO bounds are for optional caching only (a virtual step's capacity would be cut by a forced hold the relaxation must not have)")
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
			return 0, fmt.Errorf("window %d: turn %d's previous turn is not its conversation's last", w.Index, w.Start+j)
		}
		b.add(g+j, t, w.History[j], prev)
	}
	in := b.instance()
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

// RunSLO reads src once, a window of size steps at a time, and sums each
// window's SLO bounds (optional caching). schedule, when not nil, receives
// each window's restriction schedule. opt.Progress is told the windows
// done, with no total.
func RunSLO(ctx context.Context, src TurnReader, p instance.Params, size int, s int64, opt slo.Options, schedule func(start int, x []int64) error) (*SLOBounds, error) {
	sp, err := NewSplitter(src, size)
	if err != nil {
		return nil, err
	}
	b := &SLOBounds{SLOTokens: s, WindowTurns: size}
	for {
		w, err := sp.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		lo, err := SLOLower(ctx, w, p, s, opt)
		if err != nil {
			return nil, err
		}
		up, x, err := SLORestricted(ctx, w, p, s, opt)
		if err != nil {
			return nil, err
		}
		if schedule != nil {
			if err := schedule(w.Start, x); err != nil {
				return nil, err
			}
		}
		b.Lower += lo
		b.Upper += up
		b.Windows++
		b.Turns += w.Len()
		b.PerWindow = append(b.PerWindow, SLOFigures{Index: w.Index, Start: w.Start, Turns: w.Len(), Lower: lo, Upper: up})
		opt.Progress.Report("windows", int64(w.Index+1), 0)
	}
	if b.Upper > 0 {
		b.RelativeWidth = float64(b.Upper-b.Lower) / float64(b.Upper)
	}
	b.ProvenOptimal = b.Lower == b.Upper
	return b, nil
}
