package slo

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tailbound/tailbound/internal/segtree"
)

// The wide sweep on several cores (issue 32, upper end; docs/tail-bounds.md,
// "The wide stage on both cores"). A wide window frees every candidate
// spanning a step of its range; its program reads the residual capacity
// only on the steps its freed candidates span (its extent) and changes
// the load only there. Two windows whose extents are disjoint therefore
// commute: each one's program is the same whichever runs first, and the
// load each writes lies where the other neither reads nor writes. A pass
// is a sequence of windows (an order); window k may start once every
// earlier window of the order whose extent meets k's is done. Run so on
// any number of workers, every window sees exactly the state it would see
// in the sequential pass over the same order, so the parallel pass's
// schedule is the sequential one's (without a deadline; the test
// TestWideParallelEqualsSequential checks it) and, like it, never serves
// fewer than its start and keeps every step within capacity.
//
// The order. One chain (windows left to right, stride half a window) is
// the sequential sweep: each window meets the next, so nothing runs side
// by side. With c chains the line is cut into c arcs and the order takes
// the arcs' windows in turn (arc 0's first, arc 1's first, …, arc 0's
// second, …): windows of different arcs are far apart and run together,
// and a window near an arc's end waits only for its neighbours.

// wideWindow is one window of a sweep: the candidates it frees (by start,
// then index) and its extent, the steps lo..hi−1 their spans cover.
type wideWindow struct {
	free   []int
	lo, hi int
}

// meets reports whether the extents of w and o share a step.
func (w *wideWindow) meets(o *wideWindow) bool { return w.lo < o.hi && o.lo < w.hi }

// wideWindowsOf returns the windows of sweepWide: with ends the distinct
// endpoints of the candidates' spans, window j frees every candidate
// spanning a step of ends[s]..ends[s+W]−1 for s = j·stride; windows that
// free nothing are left out.
func (pr *problem) wideWindowsOf(W, stride int) []wideWindow {
	if len(pr.cands) == 0 {
		return nil
	}
	idx := pr.newSpanIndex()
	ends := make([]int, 0, 2*len(pr.cands))
	for _, c := range pr.cands {
		ends = append(ends, c.a, c.n)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	W, stride = max(W, 1), max(stride, 1)
	var wins []wideWindow
	for s := 0; s == 0 || s+W/2 < len(ends)-1; s += stride {
		e := min(s+W, len(ends)-1)
		free := idx.spanning(ends[s], ends[e]-1, nil)
		if len(free) == 0 {
			continue
		}
		w := wideWindow{free: free, lo: pr.cands[free[0]].a}
		for _, i := range free {
			w.hi = max(w.hi, pr.cands[i].n)
		}
		wins = append(wins, w)
	}
	return wins
}

// wideOrder returns an order of n windows in chains arcs taken in turn:
// arc r holds windows ⌊r·n/chains⌋.. of the line, and its windows come in
// rounds, one per arc, starting at arc shift mod chains (so that passes
// differ in where the arcs' seams fall when shift changes).
func wideOrder(n, chains, shift int) []int {
	chains = max(1, min(chains, n))
	ord := make([]int, 0, n)
	start := make([]int, chains+1)
	for r := range start {
		start[r] = r * n / chains
	}
	for k := 0; len(ord) < n; k++ {
		for q := range chains {
			r := (q + shift) % chains
			if j := start[r] + k; j < start[r+1] {
				ord = append(ord, j)
			}
		}
	}
	return ord
}

// wideParallel sets how a sweep of wide windows runs.
type wideParallel struct {
	// workers solve windows side by side (≤ 1: one).
	workers int
	// chains is the number of arcs the order takes in turn (≤ 1: the
	// sequential sweep's order, left to right).
	chains int
	// latest makes a worker take the latest ready window of the order,
	// not the earliest (tests: any order the dependencies allow gives the
	// same schedule).
	latest bool
	// log, when set, is called after each window (under the sweep's
	// lock, in the order the windows finish) with what it did.
	log func(wideWindowLog)
}

// wideWindowLog is what one window of a sweep did.
type wideWindowLog struct {
	// Window is the window's index on the line, Free its freed
	// candidates, Gain the pairs it gained, Nodes and Exact its branch
	// and bound's, Wall its solve's wall time.
	Window, Free, Gain, Nodes int
	Exact                     bool
	// Root is the window's LP bound at its root (pairs of the window),
	// Cur the pairs of the window served before it.
	Root float64
	Cur  int
	Wall time.Duration
}

// sweepWidePar is sweepWide with its windows solved by par.workers
// workers in the order of par.chains arcs: passes over the line while a
// pass gains, until ctx is done or maxSweeps passes (0: no limit), served
// (feasible) improved in place. Each pass moves the arcs' first arc by
// one, and solves only the windows not clean (wideSweeper). Without a
// deadline the result depends on par.chains but not on par.workers.
func (pr *problem) sweepWidePar(ctx context.Context, served []bool, W, stride, maxSweeps int, opt wideOptions, par wideParallel) (wideSweep, error) {
	return pr.newWideSweeper(W, stride, opt, par).sweep(ctx, ctx, served, maxSweeps)
}

// wideSweeper sweeps wide windows over the line again and again, keeping
// between sweeps which windows are clean: solved to the end (exact, or at
// its node limit without gain; not cut by a deadline) with nothing in
// their extent changed since. The solve is deterministic, so a clean
// window would do again what it did, nothing; a sweep skips it.
type wideSweeper struct {
	pr     *problem
	wins   []wideWindow
	nbr    [][]int32 // the windows whose extents meet each one's, itself included
	clean  []bool
	stamp  []int // the pass each window was last solved in (0: never)
	opt    wideOptions
	par    wideParallel
	sweeps int // passes so far (the order's shift)
	// target (0: none) ends a pass once this many candidates are served
	// (a percentile probe's; the windows left stay as clean as they were)
	target int
}

// newWideSweeper returns a sweeper of the windows of W segments, stride
// apart (wideWindowsOf), none of them clean.
func (pr *problem) newWideSweeper(W, stride int, opt wideOptions, par wideParallel) *wideSweeper {
	wins := pr.wideWindowsOf(W, stride)
	sw := &wideSweeper{pr: pr, wins: wins, nbr: make([][]int32, len(wins)), clean: make([]bool, len(wins)), stamp: make([]int, len(wins)), opt: opt, par: par}
	for i := range wins {
		for j := range wins {
			if wins[i].meets(&wins[j]) {
				sw.nbr[i] = append(sw.nbr[i], int32(j))
			}
		}
	}
	return sw
}

// sweep passes over the windows not clean, those solved longest ago
// first, while a pass gains, until ctx
// or soft is done or maxSweeps passes (0: no limit), improving served
// (feasible) in place. Once soft is done no window starts, and the
// windows running finish (within ctx).
func (sw *wideSweeper) sweep(ctx, soft context.Context, served []bool, maxSweeps int) (wideSweep, error) {
	var res wideSweep
	if len(sw.wins) == 0 {
		return res, nil
	}
	st := sw.pr.slackOf(served)
	for ctx.Err() == nil && soft.Err() == nil && (maxSweeps <= 0 || res.Sweeps < maxSweeps) {
		// the arcs' order, the windows solved longest ago first (a sweep
		// cut short goes on where it stopped)
		ord := wideOrder(len(sw.wins), sw.par.chains, sw.sweeps)
		slices.SortStableFunc(ord, func(i, j int) int { return sw.stamp[i] - sw.stamp[j] })
		sw.sweeps++
		res.Sweeps++
		ps, err := sw.pass(ctx, soft, st, served, ord)
		res.Windows += ps.Windows
		res.Exact += ps.Exact
		res.Nodes += ps.Nodes
		res.Gained += ps.Gained
		if err != nil {
			return res, err
		}
		if ps.Gained == 0 || sw.target > 0 && count(served) >= sw.target {
			break
		}
	}
	return res, nil
}

// touch marks dirty every window whose extent meets the span of a
// candidate served differs on between before and after (a change made
// outside the sweep, by the narrow search).
func (sw *wideSweeper) touch(before, after []bool) {
	for i, b := range before {
		if b == after[i] {
			continue
		}
		c := sw.pr.cands[i]
		for j := range sw.wins {
			if w := &sw.wins[j]; w.lo < c.n && c.a < w.hi {
				sw.clean[j] = false
			}
		}
	}
}

// allClean reports whether every window is clean.
func (sw *wideSweeper) allClean() bool {
	for _, c := range sw.clean {
		if !c {
			return false
		}
	}
	return true
}

// readyHeap is a min-heap of positions in a pass's order.
type readyHeap []int

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// pass solves the windows not clean once in the order ord, on
// par.workers workers, window ord[k] starting only when every ord[j],
// j < k, whose extent meets it is done; st is the slack tree of served
// (load − capacity per step), both updated in place under one lock; no
// window starts once soft is done. A
// window solved is counted in Windows (both rules' solves, when tried,
// each count).
func (sw *wideSweeper) pass(ctx, soft context.Context, st *segtree.Max, served []bool, ord []int) (wideSweep, error) {
	var ps wideSweep
	pr, wins, opt, par := sw.pr, sw.wins, sw.opt, sw.par
	n := len(ord)
	pending := make([]int, n) // earlier windows of the order meeting k, not done
	succ := make([][]int32, n)
	for k := range n {
		for j := range k {
			if wins[ord[j]].meets(&wins[ord[k]]) {
				pending[k]++
				succ[j] = append(succ[j], int32(k))
			}
		}
	}
	base := count(served) // served at the pass's start: base + ps.Gained now
	ready := &readyHeap{} // positions k, or −k with par.latest
	sign := 1
	if par.latest {
		sign = -1
	}
	for k, p := range pending {
		if p == 0 {
			*ready = append(*ready, sign*k)
		}
	}
	heap.Init(ready)
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		done    int
		running int
		firstEr error
	)
	rules := []bool{true, false}
	if opt.oneRule {
		rules = []bool{opt.branchHigh}
	}
	work := func() {
		mu.Lock()
		defer mu.Unlock()
		for {
			for ready.Len() == 0 && done < n && firstEr == nil && ctx.Err() == nil && running > 0 {
				cond.Wait()
			}
			if ready.Len() == 0 || firstEr != nil || ctx.Err() != nil || soft.Err() != nil || sw.target > 0 && base+ps.Gained >= sw.target {
				cond.Broadcast()
				return
			}
			k := sign * heap.Pop(ready).(int)
			running++
			w := &wins[ord[k]]
			for _, high := range rules {
				if sw.clean[ord[k]] {
					break
				}
				o := opt
				o.branchHigh = high
				// Release the window's served candidates and build its
				// program under the lock (the slack tree is shared), solve
				// it without.
				m, pick, cur := pr.releaseWindow(st, served, w.free)
				var (
					ws  wideStats
					err error
				)
				t0 := time.Now()
				if !m.fits(pick) {
					err = fmt.Errorf("slo: internal error: the served set does not fit a wide window's residual capacities")
				} else {
					mu.Unlock()
					ws, err = m.solveWide(ctx, pick, o)
					mu.Lock()
				}
				sw.stamp[ord[k]] = sw.sweeps
				gain := 0
				if got := count(pick); err == nil && got > cur {
					gain = got - cur
					for q, i := range w.free {
						served[i] = pick[q]
					}
				}
				for _, i := range w.free {
					if served[i] {
						c := pr.cands[i]
						st.Add(c.a, c.n-1, c.d)
					}
				}
				if err != nil {
					if firstEr == nil {
						firstEr = err
					}
					break
				}
				ps.Windows++
				ps.Nodes += ws.Nodes
				if ws.Exact {
					ps.Exact++
				}
				ps.Gained += gain
				if par.log != nil {
					par.log(wideWindowLog{Window: ord[k], Free: len(w.free), Gain: gain, Nodes: ws.Nodes, Exact: ws.Exact, Wall: time.Since(t0), Root: ws.Root, Cur: cur})
				}
				if gain > 0 {
					for _, j := range sw.nbr[ord[k]] {
						sw.clean[j] = false
					}
				}
				// solved to the end without gain, or proven optimal
				sw.clean[ord[k]] = ctx.Err() == nil && (ws.Exact || gain == 0 && high == rules[len(rules)-1])
				if gain > 0 || ws.Exact || ctx.Err() != nil {
					break // gained, or proven nothing to gain
				}
			}
			running--
			done++
			for _, s := range succ[k] {
				if pending[s]--; pending[s] == 0 {
					heap.Push(ready, sign*int(s))
				}
			}
			cond.Broadcast()
		}
	}
	workers := max(1, par.workers)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	return ps, firstEr
}
