package slo

import (
	"context"
	"math"
	"runtime"
	"slices"
	"time"
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
// of narrow windows first, then rounds of the narrow search (on every
// core, lnsParallel) and of sweeps of wide windows of wideSegments
// segments (stride half of it, on every core, wideSweeper) solved by the
// largest-fraction rule within wideNodes nodes each, until the time is
// used. When a pass over every window would take at most half the time
// left (wideWindowTime per window and worker: windows that do not close
// took 1–3 s at wideNodes nodes on this machine) the wide stage runs
// first, until its sweep ends or half the time left is used: on the 10^4-turn instance below the narrow
// search's schedule after its first rounds (415) is optimal for every
// wide window that closes, where the budget's (417) is not. Otherwise a
// narrow round comes first. A narrow round takes a sixth of the time
// left (wideRoundMin to wideRoundMax), a wide one twice that or a third
// of the time left, the larger, ending early when every window is clean
// (a sweep leaves every window clean until the narrow search changes the
// load in its extent). Each round takes the stage that gained more pairs
// per second in its last round, at equal rates (none gaining) the one
// that did not run last; the wide one's rate before it has run is
// wideRate, about what its first pass gains where it gains
// (docs/tail-bounds.md, "The wide stage on both cores": on the 10^4-turn
// birth–death instance at 131,072 tokens, seed 1, 417 → 414 in one pass
// of about 25 s on two cores, where the narrow search alone ends at 415
// in 60 s and took ten minutes to reach 414; at 10^5 turns the narrow
// search gains a pair every few seconds for the whole of 120 s, where
// a wide window gains one in ten and a pass takes minutes, so that one
// sweep to the end, as the stage first did, left the narrow search no
// time there).
const (
	wideMinCandidates = parallelMinCandidates
	wideSegments      = 300
	wideNodes         = 3000
	wideRate          = 0.15 // pairs per second
	wideWindowTime    = time.Second
	wideRoundMin      = 5 * time.Second
	wideRoundMax      = 20 * time.Second
)

// wideStage runs the wide stage on served (feasible) in place until ctx
// is done, or a narrow round stalls without gain with every wide window
// clean, and returns what it did as search statistics (Gained: pairs
// gained in all); lo sets the narrow rounds (its seed moved on each
// round). When a wide window reports an internal error (a point that does
// not fit, never expected), served is restored to its state before that
// sweep and the stage goes on with the narrow search alone.
func (pr *problem) wideStage(ctx context.Context, served []bool, ub []int, lo lnsOptions) lnsStats {
	start := defaultLNS()
	start.target = lo.target
	st := pr.lns(ctx, served, nil, ub, start)
	dl, ok := ctx.Deadline()
	if ctx.Err() != nil || !ok || lo.target > 0 && count(served) >= lo.target {
		return st
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	sw := pr.newWideSweeper(wideSegments, wideSegments/2,
		wideOptions{nodeLimit: wideNodes, dom: true, rcFix: true, branchHigh: true, oneRule: true},
		wideParallel{workers: workers, chains: 2 * workers})
	sw.target = lo.target
	keep := slices.Clone(served)
	const narrow, wide = 0, 1
	// pairs gained per second in each stage's last round; the wide
	// stage's before it runs is wideRate
	rate := [2]float64{math.Inf(1), wideRate}
	// a pass that fits in half the time left goes first
	first := time.Duration(len(sw.wins))*wideWindowTime/time.Duration(workers) <= time.Until(dl)/2
	if first {
		rate[wide] = math.Inf(1)
	}
	broken := false // a wide window reported an internal error
	prev := -1      // the stage of the last round
	for round := 0; ctx.Err() == nil; round++ {
		left := time.Until(dl)
		R := min(max(left/6, wideRoundMin), wideRoundMax)
		k := narrow
		if !broken && !sw.allClean() && (rate[wide] > rate[narrow] || rate[wide] == rate[narrow] && prev != wide) {
			k = wide
			R = max(2*R, left/3)
			if round == 0 {
				R = max(R, left/2)
			}
		}
		if left-R < wideRoundMin {
			R = left // the last round takes the rest
		}
		rctx, cancel := context.WithTimeout(ctx, R)
		t0 := time.Now()
		gained := 0
		if k == wide {
			copy(keep, served)
			res, err := sw.sweep(ctx, rctx, served, 0)
			if err != nil {
				copy(served, keep)
				broken = true
			} else {
				st.Windows += res.Windows
				st.Exact += res.Exact
				gained = res.Gained
			}
		} else {
			copy(keep, served)
			o := lo
			o.seed = lo.seed + uint64(round)*0x9e3779b97f4a7c15
			s := pr.lnsRound(rctx, served, ub, o)
			st.add(s)
			gained = s.Gained
			sw.touch(keep, served)
		}
		stalled := rctx.Err() == nil // the round ended by its own rule
		cancel()
		st.Gained += gained * k // the narrow rounds' gains are in st.add's
		rate[k] = float64(gained) / max(time.Since(t0).Seconds(), 1e-3)
		prev = k
		if lo.target > 0 && count(served) >= lo.target {
			break // a percentile probe's target met
		}
		if k == narrow && (ub != nil && pr.searchDone(served, ub, 0) || stalled && gained == 0 && (broken || sw.allClean())) {
			break // nothing left to gain, or neither stage gains: the search after the stage has the rest
		}
	}
	return st
}
