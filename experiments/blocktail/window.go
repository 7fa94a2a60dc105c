package blocktail

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp/prefixtail"
)

// Windowed is the result of 'solve --level block --windows N': the
// windowed interval (prefixtail.Windowed) at one capacity.
type Windowed struct {
	// CapacityTokens and CapacityBlocks are the cache size.
	CapacityTokens int64 `json:"capacity_tokens"`
	CapacityBlocks int   `json:"capacity_blocks"`
	prefixtail.WindowBounds
	// Seconds is the whole computation's wall time.
	Seconds float64 `json:"seconds"`
}

// BoundWindowed bounds the optimum of tr at one capacity, tokens, by
// windows windows of consecutive requests, each bounded by cfg's solvers.
func BoundWindowed(ctx context.Context, tr *Trace, capacity int64, windows int, wo prefixtail.WindowOptions, cfg Config) (*Windowed, error) {
	block := tr.Block()
	opt, err := solverOptions(capacity, block, cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	wb, err := prefixtail.Windowed(ctx, tr.Reqs, block, int(capacity/block), cfg.Objective, windows, wo, opt)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return &Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / block), WindowBounds: *wb, Seconds: time.Since(start).Seconds()}, nil
}

// BoundWindowedFlat is BoundWindowed on a trace held as a
// prefixtail.Flat (LoadFlat) in blocks of block tokens: the same result
// (prefixtail.WindowedFlat), without the requests held whole.
func BoundWindowedFlat(ctx context.Context, f *prefixtail.Flat, block, capacity int64, windows int, wo prefixtail.WindowOptions, cfg Config) (*Windowed, error) {
	opt, err := solverOptions(capacity, block, cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	wb, err := prefixtail.WindowedFlat(ctx, f, block, int(capacity/block), cfg.Objective, windows, wo, opt)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return &Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / block), WindowBounds: *wb, Seconds: time.Since(start).Seconds()}, nil
}

// BoundWindowedRange is BoundWindowed for the windows first … last
// (0-based, inclusive) only: one shard's run of consecutive windows
// (prefixtail.WindowedRange; Upper is the run's stitched schedule replayed
// from an empty cache at its first request).
func BoundWindowedRange(ctx context.Context, tr *Trace, capacity int64, windows, first, last int, wo prefixtail.WindowOptions, cfg Config) (*Windowed, error) {
	block := tr.Block()
	opt, err := solverOptions(capacity, block, cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	wb, err := prefixtail.WindowedRange(ctx, tr.Reqs, block, int(capacity/block), cfg.Objective, windows, first, last, wo, opt)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return &Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / block), WindowBounds: *wb, Seconds: time.Since(start).Seconds()}, nil
}

// WindowUnits explains the values of a windowed interval of objective
// name (tel or slo).
func WindowUnits(name string) string {
	if name == prefixtail.SLO.String() {
		return units(prefixtail.SLO, 0)
	}
	return units(prefixtail.TEL, 0)
}

// WindowTables are the tables of a windowed interval: the interval, then
// each window's figures.
func WindowTables(trace string, w *Windowed) []report.Table {
	return WindowTablesRuns(trace, w, 1)
}

// SetWidth sets Proven and RelativeWidth from Lower and Upper, as
// prefixtail.Windowed does.
func (w *Windowed) SetWidth() {
	w.Proven = w.Upper-w.Lower <= 1e-6*max(1, math.Abs(w.Upper))
	w.RelativeWidth = 0
	if w.Upper > 0 {
		w.RelativeWidth = max(w.Upper-w.Lower, 0) / w.Upper
	}
}

// WindowTablesRuns is WindowTables for an upper bound stitched and
// replayed within each of runs runs of consecutive windows (shards), each
// from an empty cache.
func WindowTablesRuns(trace string, w *Windowed, runs int) []report.Table {
	what := "TEL (tokens)"
	if w.Objective == prefixtail.SLO.String() {
		what = "SLO violations"
	}
	upper := "their restrictions stitched and replayed"
	if runs > 1 {
		upper = fmt.Sprintf("their restrictions stitched and replayed within each of %d shards' runs of windows, from an empty cache at each run's start", runs)
		if w.JoinRequests > 0 {
			upper = fmt.Sprintf("their restrictions stitched and replayed within each of %d shards' runs of windows, the runs joined over ±%d requests", runs, w.JoinRequests)
		}
	}
	seams := "no seams, no overlap"
	if w.JoinRequests > 0 {
		seams = "no seams"
	}
	if w.SeamRequests > 0 {
		seams = fmt.Sprintf("seams of ±%d requests re-solved for the upper end", w.SeamRequests)
	}
	if w.LowerOverlapRequests > 0 {
		seams = strings.TrimSuffix(seams, ", no overlap") + lowerOverlapText(w.Objective, w.LowerOverlapRequests, w.LowerOverlapWeights)
	}
	if w.ReplayLookaheadRequests > 0 {
		upper += fmt.Sprintf(", knowing next uses up to %d requests past each window's end", w.ReplayLookaheadRequests)
	}
	t := report.Table{
		Title: fmt.Sprintf("%s: windowed bounds on the optimum %s, %d requests in %d windows (lower: Σ windows' relaxations; upper: %s; %s)",
			trace, what, w.Requests, w.Windows, upper, seams),
		Header: []string{"capacity (tokens)", "capacity (blocks)", "lower", "upper", "width (relative)", "proven optimal"},
	}
	t.Add(report.CellI(w.CapacityTokens), report.CellI(int64(w.CapacityBlocks)), report.CellF(w.Lower, 1), report.CellF(w.Upper, 1),
		report.CellPct(w.RelativeWidth), report.CellText(fmt.Sprint(w.Proven)))
	pw := report.Table{
		Title:  "windows (their times, seconds, in the JSON)",
		Header: []string{"window", "first request", "requests", "history requests", "lower", "restricted"},
	}
	for i, f := range w.PerWindow {
		pw.Add(report.CellI(int64(i)), report.CellI(int64(f.First)), report.CellI(int64(f.Requests)), report.CellI(int64(f.History)),
			report.CellF(f.Lower, 1), report.CellF(f.Restricted, 1))
	}
	return []report.Table{t, pw}
}

// BoundWindowedSpan is BoundWindowedRange on a streamed span (LoadSpan)
// of the windows first … last: the same result, from what sp holds.
func BoundWindowedSpan(ctx context.Context, sp *Span, capacity int64, windows, first, last int, wo prefixtail.WindowOptions, cfg Config) (*Windowed, error) {
	block := sp.BlockTokens
	opt, err := solverOptions(capacity, block, cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	wb, err := prefixtail.WindowedSpan(ctx, &sp.Span, block, int(capacity/block), cfg.Objective, windows, first, last, wo, opt)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return &Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / block), WindowBounds: *wb, Seconds: time.Since(start).Seconds()}, nil
}

// lowerOverlapText is the title's words for a lower overlap of l
// requests (objective name tel or slo) under the named weighting ("": the
// ramp).
func lowerOverlapText(objective string, l int, weights string) string {
	s := fmt.Sprintf("; lower overlap: each relaxation widened back by %d requests into the window before, their costs shared by weights", l)
	if weights != "" {
		s += " (" + weights + ")"
	}
	if objective == prefixtail.SLO.String() {
		s += ", the sum of the windows' weighted counts rounded up"
	}
	return s
}
