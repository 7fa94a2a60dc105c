package slo

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/internal/segtree"
)

// wideSweep is what a sweep of wide windows did.
type wideSweep struct {
	// Windows solved, Exact those the branch and bound finished, Gained
	// the pairs gained in all, Nodes the branch-and-bound nodes in all,
	// Sweeps the passes over the line.
	Windows, Exact, Gained, Nodes, Sweeps int
}

// wideAround returns in out[:0] the candidates spanning a step of
// t0..t1−1 for the least t1 > t0 at which there are at least size of them
// (or the end of the line), and t1.
func (pr *problem) wideAround(idx *spanIndex, t0, size int, out []int) ([]int, int) {
	K := pr.in.K()
	lo, hi := t0+1, K // find the least t1 in lo..hi with ≥ size candidates
	for lo < hi {
		mid := (lo + hi) / 2
		out = idx.spanning(t0, mid-1, out)
		if len(out) >= size {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	out = idx.spanning(t0, lo-1, out)
	return out, lo
}

// solveWideWindow frees the candidates free (every other candidate kept as
// served says; st the slack tree of load − capacity per step), solves
// their program by solveWide and writes its point into served and st when
// it serves more. The point is checked against the residual capacities.
func (pr *problem) solveWideWindow(ctx context.Context, st *segtree.Max, served []bool, free []int, opt wideOptions) (gain int, ws wideStats, err error) {
	cur := 0
	for _, i := range free {
		if served[i] {
			c := pr.cands[i]
			st.Add(c.a, c.n-1, -c.d)
			cur++
		}
	}
	m := pr.slabProgram(free, func(lo, hi int) int64 { return -st.Max(lo, hi) })
	pick := make([]bool, len(free))
	for k, i := range free {
		pick[k] = served[i]
	}
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

// sweepWide (a measuring tool: Violations does not call it, see
// window_wide.go) improves served (feasible) in place by wide windows of size
// candidates each, their starts half a window apart along the line,
// passing over the line again while a pass gains, until ctx is done or
// maxSweeps passes (0: no limit). With every window exact and nothing
// gained, no schedule differing from served only inside one window serves
// more.
func (pr *problem) sweepWide(ctx context.Context, served []bool, size, maxSweeps int, opt wideOptions) (wideSweep, error) {
	var sw wideSweep
	if len(pr.cands) == 0 {
		return sw, nil
	}
	st := pr.slackOf(served)
	idx := pr.newSpanIndex()
	K := pr.in.K()
	var free []int
	for ctx.Err() == nil && (maxSweeps <= 0 || sw.Sweeps < maxSweeps) {
		sw.Sweeps++
		gained := 0
		for t0 := 0; t0 < K && ctx.Err() == nil; {
			var t1 int
			free, t1 = pr.wideAround(idx, t0, size, free)
			if len(free) > 0 {
				g, ws, err := pr.solveWideWindow(ctx, st, served, free, opt)
				if err != nil {
					return sw, err
				}
				sw.Windows++
				sw.Nodes += ws.Nodes
				if ws.Exact {
					sw.Exact++
				}
				gained += g
			}
			if t1 >= K {
				break
			}
			t0 = max(t0+1, (t0+t1)/2)
		}
		sw.Gained += gained
		if gained == 0 {
			break
		}
	}
	return sw, nil
}
