package prefixtail

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// WindowFigure is one window's part of a windowed interval.
type WindowFigure struct {
	// First is the window's first request (0-based); Requests its size.
	First    int `json:"first_request"`
	Requests int `json:"requests"`
	// History counts the earlier requests its relaxation carries.
	History int `json:"history_requests"`
	// Lower is the lower bound on its relaxation, Restricted the best
	// replayed cost of its restriction, in the objective's units.
	Lower      float64 `json:"lower_bound"`
	Restricted float64 `json:"restricted"`
	// Seconds is the window's wall time (both bounds).
	Seconds float64 `json:"seconds"`
}

// WindowBounds is a windowed interval on the optimum, in the objective's
// units (tokens for TEL, violations for SLO).
type WindowBounds struct {
	// Objective is "tel" or "slo".
	Objective string `json:"objective"`
	// Lower is Σ over windows of their relaxations' lower bounds; Upper
	// the replayed cost of the stitched schedule.
	Lower float64 `json:"lower_bound"`
	Upper float64 `json:"upper_bound"`
	// Proven reports Upper − Lower ≤ 10⁻⁶·max(1, Upper).
	Proven bool `json:"proven_optimal"`
	// RelativeWidth is (Upper − Lower)/Upper (0 when Upper is 0).
	RelativeWidth float64 `json:"relative_width"`
	// Windows is the number of windows; PerWindow their figures.
	Windows   int            `json:"windows"`
	PerWindow []WindowFigure `json:"per_window"`
	// Requests counts the trace's requests.
	Requests int `json:"requests"`
}

// NewRelaxation returns the relaxation of window [s, e) of reqs (package
// comment of window.go): the last uses before s of the blocks the window
// references, as history, then the window's requests, re-indexed.
func NewRelaxation(reqs []prefixcache.Req, s, e int, block int64, capacity int, obj Objective) (*Problem, error) {
	if s < 0 || e > len(reqs) || s > e {
		return nil, fmt.Errorf("window [%d, %d) outside the trace's %d requests", s, e, len(reqs))
	}
	var maxID prefixcache.BlockID = -1
	for t := s; t < e; t++ {
		for _, id := range reqs[t].Blocks {
			maxID = max(maxID, id)
		}
	}
	in := make([]bool, maxID+1)
	for t := s; t < e; t++ {
		for _, id := range reqs[t].Blocks {
			in[id] = true
		}
	}
	last := make([]int, maxID+1)
	for i := range last {
		last[i] = -1
	}
	for t := 0; t < s; t++ {
		for _, id := range reqs[t].Blocks {
			if id <= maxID && in[id] {
				last[id] = t
			}
		}
	}
	var hist []int
	for _, t := range last {
		if t >= 0 {
			hist = append(hist, t)
		}
	}
	slices.Sort(hist)
	hist = slices.Compact(hist)
	local := make([]prefixcache.Req, 0, len(hist)+e-s)
	for _, t := range hist {
		local = append(local, reqs[t])
	}
	local = append(local, reqs[s:e]...)
	for i := range local {
		local[i].Index = i
	}
	return newProblem(local, len(hist), block, capacity, obj)
}

// restriction returns window [s, e) alone, re-indexed.
func restriction(reqs []prefixcache.Req, s, e int) []prefixcache.Req {
	local := slices.Clone(reqs[s:e])
	for i := range local {
		local[i].Index = i
	}
	return local
}

// Windowed bounds the optimum of reqs (chains numbered by one Interner)
// by windows windows of consecutive requests, each window's relaxation and
// restriction bounded by Bound under opt (package comment, Windowed bounds).
func Windowed(ctx context.Context, reqs []prefixcache.Req, block int64, capacity int, obj Objective, windows int, opt Options) (*WindowBounds, error) {
	return WindowedRange(ctx, reqs, block, capacity, obj, windows, 0, windows-1, opt)
}

// WindowedRange is Windowed for the windows first … last (0-based,
// inclusive) of the windows windows of reqs only: one shard's run of
// consecutive windows. Lower is the sum of their relaxations' lower
// bounds, as in Windowed; Upper is the stitched schedule of their
// restrictions replayed on their requests alone, from an empty cache at
// the run's first request (package comment, "Windowed bounds as shards"),
// so the runs' Lower and Upper add up to an interval on the whole trace's
// optimum. PerWindow holds the run's windows; Windows stays the total.
func WindowedRange(ctx context.Context, reqs []prefixcache.Req, block int64, capacity int, obj Objective, windows, first, last int, opt Options) (*WindowBounds, error) {
	n := len(reqs)
	if windows < 1 || windows > max(n, 1) {
		return nil, fmt.Errorf("windows %d: want 1 … %d (the number of requests)", windows, max(n, 1))
	}
	if first < 0 || last >= windows || first > last {
		return nil, fmt.Errorf("windows %d … %d: want a run within 0 … %d", first, last, windows-1)
	}
	s0, e0 := first*n/windows, (last+1)*n/windows
	whole, err := New(restriction(reqs, s0, e0), block, capacity, obj)
	if err != nil {
		return nil, err
	}
	wb := &WindowBounds{Objective: obj.Kind.String(), Windows: windows, Requests: n}
	guide := make([]float64, len(whole.Cols))
	restricted := 0.0
	for w := first; w <= last; w++ {
		start := time.Now()
		s, e := w*n/windows, (w+1)*n/windows
		rel, err := NewRelaxation(reqs, s, e, block, capacity, obj)
		if err != nil {
			return nil, fmt.Errorf("window %d: %w", w, err)
		}
		lo, err := rel.Bound(ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("window %d, relaxation: %w", w, err)
		}
		res, err := New(restriction(reqs, s, e), block, capacity, obj)
		if err != nil {
			return nil, fmt.Errorf("window %d: %w", w, err)
		}
		up, err := res.Bound(ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("window %d, restriction: %w", w, err)
		}
		for q := s; q < e; q++ {
			for d := range up.hits[q-s] {
				if col := whole.endCol[whole.off[q-s0]+d]; col >= 0 && int(whole.Cols[col].P) >= s-s0 {
					guide[col] = 1
				}
			}
		}
		wb.Lower += lo.Lower
		restricted += up.Upper
		wb.PerWindow = append(wb.PerWindow, WindowFigure{First: s, Requests: e - s, History: rel.free,
			Lower: lo.Lower, Restricted: up.Upper, Seconds: time.Since(start).Seconds()})
	}
	_, v, err := whole.Replay(Guided, guide)
	if err != nil {
		return nil, fmt.Errorf("stitched schedule: %w", err)
	}
	if v > restricted+tol*max(1, math.Abs(restricted)) {
		return nil, fmt.Errorf("the stitched schedule replays to %v, above the windows' restrictions' %v", v, restricted)
	}
	if wb.Lower > v+tol*max(1, math.Abs(v)) {
		return nil, fmt.Errorf("windowed lower bound %v above the stitched schedule's %v", wb.Lower, v)
	}
	wb.Upper = v
	wb.Proven = v-wb.Lower <= tol*max(1, math.Abs(v))
	if v > 0 {
		wb.RelativeWidth = max(v-wb.Lower, 0) / v
	}
	return wb, nil
}
