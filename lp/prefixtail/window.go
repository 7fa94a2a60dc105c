package prefixtail

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

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
	// SeamRequests is the seams' half-width h, requests (0: none), and
	// JoinRequests the joins' between runs, min(h, ⌊n/windows⌋/2).
	SeamRequests int `json:"seam_requests"`
	JoinRequests int `json:"join_requests"`
	// LowerOverlapRequests is the lower overlap, requests, each window's
	// relaxation reaches back (LowerOverlapRequests; 0: none, omitted).
	LowerOverlapRequests int `json:"lower_overlap_requests,omitempty"`
	// LowerOverlapWeights names the overlap's weighting when it is not
	// the ramp ("half"; omitted for the ramp and without an overlap).
	LowerOverlapWeights string `json:"lower_overlap_weights,omitempty"`
	// UpperNoSeams is the stitched replay's cost without the seams' guide
	// (Upper is the smaller of it and the seamed replay's), in the
	// objective's units.
	UpperNoSeams float64 `json:"upper_without_seams"`
	// ReplayLookaheadRequests is the stitched replay's lookahead past the
	// end of each window, requests (WindowedLookahead; 0, omitted: the
	// whole trace's).
	ReplayLookaheadRequests int `json:"replay_lookahead_requests,omitempty"`
}

// NewRelaxation returns the relaxation of window [s, e) of reqs (package
// comment of window.go): the last uses before s of the blocks the window
// references, as history, then the window's requests, re-indexed.
func NewRelaxation(reqs []prefixcache.Req, s, e int, block int64, capacity int, obj Objective) (*Problem, error) {
	if s < 0 || e > len(reqs) || s > e {
		return nil, fmt.Errorf("window [%d, %d) outside the trace's %d requests", s, e, len(reqs))
	}
	var hist []prefixcache.Req
	for _, t := range HistoryOf(reqs, s, e) {
		hist = append(hist, reqs[t])
	}
	return NewRelaxationOf(hist, reqs[s:e], block, capacity, obj)
}

// HistoryOf returns the history of window [s, e) of reqs: the requests
// before s that are the last use before s of some block the window
// references, as their positions, ascending.
func HistoryOf(reqs []prefixcache.Req, s, e int) []int {
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
	return slices.Compact(hist)
}

// NewRelaxationOf is NewRelaxation from the window's history requests
// hist (HistoryOf's, in trace order; only their Input and Blocks are
// read) and its requests win: a streamed trace (Span) holds these, not
// the requests before the window.
func NewRelaxationOf(hist, win []prefixcache.Req, block int64, capacity int, obj Objective) (*Problem, error) {
	local := make([]prefixcache.Req, 0, len(hist)+len(win))
	local = append(local, hist...)
	local = append(local, win...)
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

// WindowOptions are the seams and joins of the windowed upper bound
// (package comment, "Seams" and "Joins").
type WindowOptions struct {
	// SeamRequests is h, requests (0: none): each boundary s between two
	// windows of a run is re-solved over the requests [s − h, s + h)
	// (within the run) for the guide of the stitched replay.
	SeamRequests int
	// JoinRequests is j, requests (0: none): each boundary between two
	// runs (shards) is joined over min(j, ⌊n/windows⌋/2) requests either
	// side.
	JoinRequests int
	// LowerOverlapRequests is L, requests (0: none): each window's
	// relaxation reaches back min(L, ⌊n/windows⌋) requests into the window
	// before, their costs shared between the two by weights
	// (window_lower.go; package comment, "Lower overlap").
	LowerOverlapRequests int
	// LowerOverlapWeights is how the overlap's requests are shared
	// between the two windows (RampWeights, the zero value, or
	// HalfWeights).
	LowerOverlapWeights OverlapWeighting
	// CarriedHistory, when set, gives each window's relaxation its carried
	// history (CarriedHistory: one request per leaf of the blocks it
	// references that were used before it) in place of the last uses
	// before it (HistoryOf); package comment, "Carried histories". The
	// relaxations' optima are the same, the Lagrangian bound may differ.
	CarriedHistory bool
}

// Windowed bounds the optimum of reqs (chains numbered by one Interner)
// by windows windows of consecutive requests, each window's relaxation and
// restriction bounded by Bound under opt, the seams as wo says (package
// comment, Windowed bounds).
func Windowed(ctx context.Context, reqs []prefixcache.Req, block int64, capacity int, obj Objective, windows int, wo WindowOptions, opt Options) (*WindowBounds, error) {
	return WindowedRange(ctx, reqs, block, capacity, obj, windows, 0, windows-1, wo, opt)
}

// JoinRequests returns the half-width, requests, of the join between two
// runs of windows when n requests are cut into windows windows under wo:
// min(j, ⌊n/windows⌋/2), so that the two joins of a run never meet.
func JoinRequests(n, windows int, wo WindowOptions) int {
	if windows < 1 {
		return 0
	}
	return max(min(wo.JoinRequests, n/windows/2), 0)
}

// WindowedRange is Windowed for the windows first … last (0-based,
// inclusive) of the windows windows of reqs only: one shard's run of
// consecutive windows. Lower is the sum of their relaxations' lower
// bounds, as in Windowed; Upper is the run's part of one schedule of the
// whole trace: its stitched schedule replayed from an empty cache at the
// run's first request, counted from there, when wo has no seams; with
// seams, replayed from the join before the run (the h requests before its
// first one), counted from the join's end, and continued over the join
// after it as that join's shadow (package comment, "Joins"). The runs'
// Lower and Upper add up to an interval on the whole trace's optimum
// when every run is bounded with the same wo. PerWindow holds the run's
// windows; Windows stays the total.
func WindowedRange(ctx context.Context, reqs []prefixcache.Req, block int64, capacity int, obj Objective, windows, first, last int, wo WindowOptions, opt Options) (*WindowBounds, error) {
	return WindowedSpan(ctx, &Span{Requests: len(reqs), Reqs: reqs}, block, capacity, obj, windows, first, last, wo, opt)
}

// Span is the part of a trace that a run of windows reads (WindowedSpan):
// its requests [First, First+len(Reqs)) and, when History is not nil, the
// history requests of each of the run's windows' relaxations in place of
// the requests before them (package comment, "Streaming").
type Span struct {
	// Requests is the number of requests of the whole trace.
	Requests int
	// First is the trace position of Reqs[0]; Reqs are the requests held,
	// chains numbered by one Interner over the whole trace.
	First int
	Reqs  []prefixcache.Req
	// History, when not nil, holds for the k-th window of the run its
	// relaxation's history requests (HistoryOf's over RelaxationRange, in
	// trace order); when nil, Reqs must be the whole trace (First 0), and
	// the histories are computed from it.
	History [][]prefixcache.Req
}

// SpanRange returns the requests [lo, hi) of the trace that a run of the
// windows first … last of windows windows of a trace of n requests reads
// under wo: from the start join's first request (or the first window's
// lower overlap's, the earlier) to the end join's lookahead (a window past
// the join), or the run's own requests.
func SpanRange(n, windows, first, last int, wo WindowOptions) (lo, hi int) {
	s0, e0 := first*n/windows, (last+1)*n/windows
	hj := JoinRequests(n, windows, wo)
	lo, hi = s0, e0
	if first > 0 {
		lo = s0 - max(hj, LowerOverlapRequests(n, windows, wo))
	}
	if last < windows-1 {
		hi = e0 + hj
		if hj > 0 {
			hi = min(e0+hj+n/windows, n)
		}
	}
	return lo, hi
}

// slice returns the trace's requests [lo, hi), which sp must hold.
func (sp *Span) slice(lo, hi int) ([]prefixcache.Req, error) {
	if lo < sp.First || hi > sp.First+len(sp.Reqs) || lo > hi {
		return nil, fmt.Errorf("requests [%d, %d) outside the span's [%d, %d)", lo, hi, sp.First, sp.First+len(sp.Reqs))
	}
	return sp.Reqs[lo-sp.First : hi-sp.First], nil
}

// WindowedSpan is WindowedRange on the part of the trace sp holds, which
// must cover SpanRange's requests (and, with History nil, be the whole
// trace). Its result is WindowedRange's on the whole trace. It is the
// engine of WindowedFlat over the run (package comment, "One engine"):
// the whole trace's run is WindowedFlat's on the span's requests.
func WindowedSpan(ctx context.Context, sp *Span, block int64, capacity int, obj Objective, windows, first, last int, wo WindowOptions, opt Options) (*WindowBounds, error) {
	n := sp.Requests
	if sp.History == nil && (sp.First != 0 || len(sp.Reqs) != n) {
		return nil, fmt.Errorf("a span of requests [%d, %d) of %d without histories", sp.First, sp.First+len(sp.Reqs), n)
	}
	if sp.History != nil && first <= last && len(sp.History) != last-first+1 {
		return nil, fmt.Errorf("%d histories for the %d windows %d … %d", len(sp.History), last-first+1, first, last)
	}
	if err := checkRun(n, windows, first, last, wo); err != nil {
		return nil, err
	}
	hist := sp.History
	if hist == nil {
		if first == 0 && last == windows-1 {
			return WindowedFlat(ctx, FlatOf(sp.Reqs), block, capacity, obj, windows, wo, opt)
		}
		for w := first; w <= last; w++ {
			rlo, rhi := RelaxationRange(n, windows, w, wo)
			var h []prefixcache.Req
			for _, t := range HistoryOf(sp.Reqs, rlo, rhi) {
				h = append(h, sp.Reqs[t])
			}
			hist = append(hist, h)
		}
	}
	lr, err := newRun(n, block, capacity, obj, windows, first, last, 0, wo, opt, hist, sp.slice, false)
	if err != nil {
		return nil, err
	}
	if run, err := sp.slice(lr.lo, lr.b); err == nil {
		refs := 0
		for _, q := range run {
			refs += len(q.Blocks)
		}
		lr.reserve(len(run), refs)
	}
	t := lr.lo
	return lr.run(ctx, func() (*prefixcache.Req, error) {
		if t >= lr.b {
			return nil, io.EOF
		}
		q, err := sp.slice(t, t+1)
		if err != nil {
			return nil, err
		}
		t++
		return &q[0], nil
	})
}

// WindowedFlat is Windowed on a trace held as a Flat: the same result
// (every figure but the wall times), the engine of WindowedLookahead
// with the whole trace's lookahead (package comment, "One engine").
func WindowedFlat(ctx context.Context, f *Flat, block int64, capacity int, obj Objective, windows int, wo WindowOptions, opt Options) (*WindowBounds, error) {
	lr, err := newLookRun(f.Len(), block, capacity, obj, windows, 0, wo, opt, false)
	if err != nil {
		return nil, err
	}
	lr.holdFlat(f)
	return lr.run(ctx, FlatSource(f))
}

// setUpper sets wb's upper end to v, the stitched schedule's figure, and
// what follows from it beside Lower: Proven when the two meet within tol
// (relative), and RelativeWidth.
func (wb *WindowBounds) setUpper(v float64) {
	wb.Upper = v
	wb.Proven = v-wb.Lower <= tol*max(1, math.Abs(v))
	if v > 0 {
		wb.RelativeWidth = max(v-wb.Lower, 0) / v
	}
}

// renumber returns reqs with their blocks numbered 0, 1, … in the order
// of their ids (fresh chains; reqs is not changed). A Problem's arrays
// indexed by block id then follow the blocks the requests reference, not
// the trace's largest id, and its bound is the same: nothing in it reads
// an id but to tell blocks apart and to order them (ties, parents before
// children), which an increasing renumbering keeps.
func renumber(reqs []prefixcache.Req) []prefixcache.Req {
	total := 0
	for _, q := range reqs {
		total += len(q.Blocks)
	}
	ids := make([]prefixcache.BlockID, 0, total)
	for _, q := range reqs {
		ids = append(ids, q.Blocks...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	arena := make([]prefixcache.BlockID, 0, total)
	out := slices.Clone(reqs)
	for i := range out {
		start := len(arena)
		for _, id := range out[i].Blocks {
			j, _ := slices.BinarySearch(ids, id)
			arena = append(arena, prefixcache.BlockID(j))
		}
		out[i].Blocks = arena[start:len(arena):len(arena)]
	}
	return out
}
