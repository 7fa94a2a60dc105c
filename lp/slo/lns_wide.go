package slo

import (
	"context"
	"slices"
)

// wideSweep is what a sweep of wide windows did.
type wideSweep struct {
	// Windows solved, Exact those the branch and bound finished, Gained
	// the pairs gained in all, Nodes the branch-and-bound nodes in all,
	// Sweeps the passes over the line.
	Windows, Exact, Gained, Nodes, Sweeps int
}

// sweepWide improves served (feasible) in place by wide windows:
// with ends the distinct endpoints of the candidates' spans, window j
// frees every candidate spanning a step of ends[s]..ends[s+W]−1 for
// s = j·stride (W segments between endpoints, as the reference script's
// windows of a component's segments), each solved with the
// largest-fraction rule and, when that gains nothing, the most-fractional
// one (or only opt.branchHigh's rule with opt.oneRule), passing over the line again while a
// pass gains, until ctx is done or maxSweeps passes (0: no limit). It is
// sweepWidePar (lns_wide_par.go) on one worker, windows left to right.
func (pr *problem) sweepWide(ctx context.Context, served []bool, W, stride, maxSweeps int, opt wideOptions) (wideSweep, error) {
	return pr.sweepWidePar(ctx, served, W, stride, maxSweeps, opt, wideParallel{workers: 1, chains: 1})
}

// The wide stage of a time-limited search (improveLNS): on problems of at
// least wideMinCandidates candidates, the search's deterministic budget
// of narrow windows first, then sweeps of wide windows of wideSegments
// segments (stride half of it) solved by the largest-fraction rule within
// wideNodes nodes each, until a pass gains nothing; the time-limited
// narrow search then has the rest. Measured on the 10^4-turn birth–death
// instance at 131,072 tokens (seed 1; docs/tail-bounds.md, "Wide windows
// solved exactly"): the budget's 417 violations, then one pass to 414 in
// 48 s on one core, where the narrow search alone ends at 415 in 60 s
// and took ten minutes to reach 414; paired runs of `solve --time-limit
// 60` ended at 415, 415, 415 with the stage and 417, 416, 415 without
// (load 8–11, 8–11, 5).
const (
	wideMinCandidates = parallelMinCandidates
	wideSegments      = 300
	wideNodes         = 3000
)

// wideStage runs the wide stage on served (feasible) in place and returns
// what it did as search statistics (Gained: pairs gained in all). When a
// wide window reports an internal error (a point that does not fit, never
// expected), served is restored to its state before the sweep.
func (pr *problem) wideStage(ctx context.Context, served []bool, ub []int) lnsStats {
	st := pr.lns(ctx, served, nil, ub, defaultLNS())
	if ctx.Err() != nil {
		return st
	}
	keep := slices.Clone(served)
	sw, err := pr.sweepWide(ctx, served, wideSegments, wideSegments/2, 0,
		wideOptions{nodeLimit: wideNodes, dom: true, rcFix: true, branchHigh: true, oneRule: true})
	if err != nil {
		copy(served, keep)
		return st
	}
	st.Windows += sw.Windows
	st.Exact += sw.Exact
	st.Gained += sw.Gained
	return st
}
