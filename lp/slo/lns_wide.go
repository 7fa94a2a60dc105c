package slo

import (
	"context"
	"fmt"
	"slices"

	"github.com/tailbound/tailbound/internal/segtree"
)

// wideSweep is what a sweep of wide windows did.
type wideSweep struct {
	// Windows solved, Exact those the branch and bound finished, Gained
	// the pairs gained in all, Nodes the branch-and-bound nodes in all,
	// Sweeps the passes over the line.
	Windows, Exact, Gained, Nodes, Sweeps int
}

// solveWideWindow frees the candidates free (every other candidate kept as
// served says; st the slack tree of load − capacity per step), solves
// their program by solveWide and writes its point into served and st when
// it serves more. The point is checked against the residual capacities.
func (pr *problem) solveWideWindow(ctx context.Context, st *segtree.Max, served []bool, free []int, opt wideOptions) (gain int, ws wideStats, err error) {
	m, pick, cur := pr.releaseWindow(st, served, free)
	if !m.fits(pick) {
		err = fmt.Errorf("slo: internal error: the served set does not fit a wide window's residual capacities")
	} else if ws, err = m.solveWide(ctx, pick, opt); err == nil {
		if got := count(pick); got > cur {
			gain = got - cur
			for k, i := range free {
				served[i] = pick[k]
			}
		}
	}
	for _, i := range free {
		if served[i] {
			c := pr.cands[i]
			st.Add(c.a, c.n-1, c.d)
		}
	}
	return gain, ws, err
}

// sweepWide improves served (feasible) in place by wide windows:
// with ends the distinct endpoints of the candidates' spans, window j
// frees every candidate spanning a step of ends[s]..ends[s+W]−1 for
// s = j·stride (W segments between endpoints, as the reference script's
// windows of a component's segments), each solved with the
// largest-fraction rule and, when that gains nothing, the most-fractional
// one (or only opt.branchHigh's rule with opt.oneRule), passing over the line again while a
// pass gains, until ctx is done or maxSweeps passes (0: no limit).
func (pr *problem) sweepWide(ctx context.Context, served []bool, W, stride, maxSweeps int, opt wideOptions) (wideSweep, error) {
	var sw wideSweep
	if len(pr.cands) == 0 {
		return sw, nil
	}
	st := pr.slackOf(served)
	idx := pr.newSpanIndex()
	var ends []int
	for _, c := range pr.cands {
		ends = append(ends, c.a, c.n)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	W, stride = max(W, 1), max(stride, 1)
	var free []int
	for ctx.Err() == nil && (maxSweeps <= 0 || sw.Sweeps < maxSweeps) {
		sw.Sweeps++
		gained := 0
		for s := 0; (s == 0 || s+W/2 < len(ends)-1) && ctx.Err() == nil; s += stride {
			e := min(s+W, len(ends)-1)
			free = idx.spanning(ends[s], ends[e]-1, free)
			if len(free) == 0 {
				continue
			}
			rules := []bool{true, false}
			if opt.oneRule {
				rules = []bool{opt.branchHigh}
			}
			for _, high := range rules {
				o := opt
				o.branchHigh = high
				g, ws, err := pr.solveWideWindow(ctx, st, served, free, o)
				if err != nil {
					return sw, err
				}
				sw.Windows++
				sw.Nodes += ws.Nodes
				if ws.Exact {
					sw.Exact++
				}
				gained += g
				if g > 0 || ws.Exact {
					break // gained, or proven nothing to gain
				}
			}
		}
		sw.Gained += gained
		if gained == 0 {
			break
		}
	}
	return sw, nil
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
