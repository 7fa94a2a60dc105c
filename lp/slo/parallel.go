package slo

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The large-neighbourhood search on several cores. Windows far apart on
// the line touch disjoint steps, so the line is cut into one region per
// worker; each worker searches, on its own copy of the served set, only
// the candidates whose steps lie inside its region (lns with every other
// candidate pinned as it is), and the copies are merged at the end of a
// round. The merged set is feasible: a step of region k is spanned only by
// region k's candidates and by pinned ones (those crossing a cut), whose
// load every worker saw unchanged. Each round moves the cuts by half a
// region, so the candidates a cut pinned are free in the next round. Used
// only under a time limit (the search without one is deterministic by its
// window budget). With a target the workers share their gains
// (lnsOptions.gained), so that each stops once all of them together reach
// it.

// parallelMinCandidates is the fewest candidates for which the search runs
// on several cores (below it a round's bookkeeping outweighs its windows).
const parallelMinCandidates = 2000

// parallelRounds is the number of rounds the search's time is cut into
// (at least parallelMinRound each).
const (
	parallelRounds   = 8
	parallelMinRound = 2 * time.Second
)

// lnsWorkers is the number of workers the search of improveLNS uses: the
// cores Go runs on, at most one per parallelMinCandidates/2 candidates (so
// that a region holds enough of them on a machine of many cores), or 1
// when the search is not time-limited or is too small.
func (pr *problem) lnsWorkers(ctx context.Context) int {
	if _, ok := ctx.Deadline(); !ok || len(pr.cands) < parallelMinCandidates {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 2*len(pr.cands)/parallelMinCandidates)
}

// lnsRound is the search of improveLNS on served: lnsParallel on
// lnsWorkers cores when that is more than one, else lns.
func (pr *problem) lnsRound(ctx context.Context, served []bool, ub []int, opt lnsOptions) lnsStats {
	if w := pr.lnsWorkers(ctx); w > 1 {
		return pr.lnsParallel(ctx, served, ub, opt, w)
	}
	return pr.lns(ctx, served, nil, ub, opt)
}

// lnsParallel is lns (no pinned candidates) on workers ≥ 2 cores in
// rounds until ctx is done or a whole round gains nothing; served is
// improved in place and stays feasible.
func (pr *problem) lnsParallel(ctx context.Context, served []bool, ub []int, opt lnsOptions, workers int) lnsStats {
	var total lnsStats
	K := pr.in.K()
	m := len(pr.cands)
	dl, _ := ctx.Deadline()
	region := make([]int, m) // worker owning each candidate this round; −1: pinned
	copies := make([][]bool, workers)
	fixed := make([][]int8, workers)
	for w := range copies {
		copies[w] = make([]bool, m)
		fixed[w] = make([]int8, m)
	}
	quiet := false // the previous round gained nothing
	for round := 0; ctx.Err() == nil; round++ {
		// Cuts at (w + shift)·K/workers, shift 0 or ½; region w is
		// [cut_w, cut_{w+1}), the last one wrapping round to cut_0.
		cuts := make([]int, workers)
		for w := range cuts {
			cuts[w] = (2*w + round%2) * K / (2 * workers)
		}
		for i, c := range pr.cands {
			region[i] = -1
			for w := range workers {
				if w < workers-1 && cuts[w] <= c.a && c.n-1 < cuts[w+1] ||
					w == workers-1 && (c.a >= cuts[w] || c.n-1 < cuts[0]) {
					region[i] = w
					break
				}
			}
		}
		left := time.Until(dl)
		if left <= 0 {
			break
		}
		rctx, cancel := context.WithTimeout(ctx, max(left/time.Duration(max(1, parallelRounds-round)), min(left, parallelMinRound)))
		stats := make([]lnsStats, workers)
		var shared atomic.Int64 // with a target, the round's gains so far
		var wg sync.WaitGroup
		for w := range workers {
			copy(copies[w], served)
			for i := range fixed[w] {
				switch {
				case region[i] == w:
					fixed[w][i] = 0
				case served[i]:
					fixed[w][i] = 1
				default:
					fixed[w][i] = -1
				}
			}
			o := opt
			o.seed = opt.seed + uint64(round*workers+w)*0x9e3779b97f4a7c15
			if opt.target > 0 {
				o.gained = &shared
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				stats[w] = pr.lns(rctx, copies[w], fixed[w], ub, o)
			}()
		}
		wg.Wait()
		stalled := rctx.Err() == nil // every worker stopped by its own rule
		cancel()
		gained := 0
		for i, w := range region {
			if w >= 0 {
				served[i] = copies[w][i]
			}
		}
		for _, s := range stats {
			total.add(s)
			gained += s.Gained
		}
		if opt.target > 0 && count(served) >= opt.target {
			break
		}
		if stalled && gained == 0 && quiet {
			break // two rounds without gain, the last stopped by stalling
		}
		quiet = gained == 0
	}
	return total
}
