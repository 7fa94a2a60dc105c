package mcf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tailbound/tailbound/internal/progress"
)

// Plan is how the Windows method cuts the line: windows of Size steps
// (≥ 1), each solved with Overlap (≥ 0) more steps on either side.
type Plan struct {
	Size, Overlap int
	// Progress, when not nil, is told the windows solved of all, then how
	// far along the line (nodes) the primal–dual stage is.
	Progress progress.Func
}

// DefaultPlan returns the plan of the Windows method. It was chosen by measurement in one run on a birth–death
// trace (10^5 turns, B = 16, C = 131072 tokens, ξ = 300 tokens, mean pair
// span ≈ 230 steps). With 5000-step windows an overlap of 500 steps left
// 24 primal–dual rounds (3.4 s in all), 1000 left 4 (1.8 s), 1500 left 1
// (2.0 s) and 2000 left 1 (2.4 s); 2000-step windows with 1000 steps of
// overlap took 2.2 s, 10000-step windows with 1500 took 2.0 s. 1500 steps
// costs a tenth more than 1000 here and leaves a margin for traces whose
// pairs span more steps, where the seams take more rounds (slower, never
// less exact).
func DefaultPlan() Plan { return Plan{Size: 5000, Overlap: 1500} }

// SolveWindows solves a line network — nodes 0..n−1, its first n−1 arcs the
// line t→t+1 and every other arc forward (src < dst), supplies making
// every cut carry its line arc's capacity, as SolveFlow builds — exactly,
// in two stages:
//
//  1. Prices. The line is cut into windows of plan.Size steps; each window,
//     widened by plan.Overlap steps on either side and without the arcs
//     that leave it, is a network of the same kind, solved by cost scaling
//     (on all cores, one window each). Each window's prices (in whole cost
//     units) over its own steps are shifted to agree with the previous
//     window at their common node and joined; each arc takes the flow of
//     the window its tail belongs to. Each window's share is written as
//     soon as it is solved, so the windows' flows are never all held.
//  2. The whole network is solved by the primal–dual method from those
//     prices and flows (primalDual), which is exact from any prices: the
//     windows only make its start good, because an arc's reduced cost
//     depends on prices over its own span, which the overlap gives each
//     window's solve to see whole.
//
// The answer is then checked by certify against the final prices. Cost
// scaling's work grows faster than linearly in the length of the line
// (its exchange cycles run along hundreds of steps, and every scaling
// phase revisits them); the windows keep that growth to the window size,
// and the primal–dual stage only repairs the seams.
func (g *Network) SolveWindows(ctx context.Context, plan Plan) ([]int64, string, error) {
	flow, _, stats, err := g.solveWindows(ctx, plan)
	return flow, stats, err
}

// solveWindows is SolveWindows that also returns the final prices, which
// certify the flow (SolveWindowsPrices, warm.go).
func (g *Network) solveWindows(ctx context.Context, plan Plan) ([]int64, []int64, string, error) {
	return g.solveWindowsFrom(ctx, plan, nil, 1)
}

// solveWindowsFrom is solveWindows whose windows' cost scaling starts from
// prices start (whole cost units, one per node of g; see warmStart), with
// its first phase relative to unit (see SolveWarmWindows), when start is
// not nil.
func (g *Network) solveWindowsFrom(ctx context.Context, plan Plan, start []int64, unit int64) ([]int64, []int64, string, error) {
	flow, pi, stats, _, err := g.solveWindowsPartial(ctx, plan, start, unit)
	if err != nil {
		return nil, nil, stats, err // no prices with an error
	}
	return flow, pi, stats, nil
}

// SolveWindowsPartial is SolveWindowsPrices that, when ctx ends before the
// solve does, still returns prices (whole cost units, one per node) with
// complete false, a nil flow and a nil error: the prices the windows'
// cost scaling had reached, joined as in SolveWindows — a solved window's
// own (ε = 1 for its widened part), one cut short its current phase's,
// one not begun zero. They certify nothing about any flow; what they are
// good for is any bound that holds for every price vector, as a weak
// duality bound does (lp/slo's dual bound), and they are the nearer the
// optimum's the more windows were solved. With complete true the answer
// is SolveWindowsPrices'. Other errors are returned as they are.
func (g *Network) SolveWindowsPartial(ctx context.Context, plan Plan) (flow, prices []int64, complete bool, stats string, err error) {
	flow, prices, stats, partial, err := g.solveWindowsPartial(ctx, plan, nil, 1)
	if err != nil && partial {
		return nil, prices, false, stats, nil
	}
	return flow, prices, err == nil, stats, err
}

// SolveWarmWindowsPartial is SolveWarmWindows (from prices pi, cost unit
// unit) that answers as SolveWindowsPartial when ctx ends first.
func (g *Network) SolveWarmWindowsPartial(ctx context.Context, pi []int64, unit int64, plan Plan) (flow, prices []int64, complete bool, stats string, err error) {
	if len(pi) != g.n {
		return nil, nil, false, "", fmt.Errorf("min-cost flow: warm start with %d prices for %d nodes", len(pi), g.n)
	}
	if unit < 1 {
		return nil, nil, false, "", fmt.Errorf("min-cost flow: warm start with cost unit %d (want ≥ 1)", unit)
	}
	flow, prices, stats, partial, err := g.solveWindowsPartial(ctx, plan, pi, unit)
	if err != nil && partial {
		return nil, prices, false, stats, nil
	}
	return flow, prices, err == nil, stats, err
}

// solveWindowsPartial is solveWindowsFrom that reports, with partial true
// and ctx's error, the windows' joined prices when ctx ended first.
func (g *Network) solveWindowsPartial(ctx context.Context, plan Plan, start []int64, unit int64) ([]int64, []int64, string, bool, error) {
	n := g.n
	count := 0
	if n > 1 {
		count = (n - 2 + plan.Size) / plan.Size
	}
	// Each worker writes its window's prices over its own steps (before
	// the shift that joins them) and its own arcs' flows straight into pi
	// and hint, and keeps only its prices at its two ends: the windows'
	// flows and arc lists are not all held until the join (about 16 bytes
	// per widened window arc, 0.7 GB at 10^7 turns).
	type part struct {
		start, end int64 // prices at the window's first and last own node
		err        error
		relabels   int64
		phases     int64
		warm       bool
	}
	parts := make([]part, count)
	pi := make([]int64, n)
	hint := make([]int64, len(g.src))
	first, arcs := g.bySource()
	var solved atomic.Int64
	plan.Progress.Report("windows", 0, int64(count))
	workers := inParallel(count, func(k int) {
		defer func() { plan.Progress.Report("windows", solved.Add(1), int64(count)) }()
		p := &parts[k]
		lo, hi := k*plan.Size, min(n-1, (k+1)*plan.Size)
		wlo := max(0, lo-plan.Overlap)
		whi := min(n-1, hi+plan.Overlap)
		h, ids := g.subLine(wlo, whi, first, arcs)
		cs := &costScaling{Network: h}
		if start != nil {
			cs.start = warmStart(start[wlo:whi+1], int64(h.n+1))
			cs.unit = unit
			cs.budget = warmBudget * int64(h.n)
			p.warm = cs.start != nil
		}
		if p.err = ctx.Err(); p.err == nil {
			p.err = cs.solve(ctx)
		}
		if errors.Is(p.err, errOverBudget) {
			p.warm, p.relabels = false, cs.relabels
			cs = &costScaling{Network: h}
			p.err = cs.solve(ctx)
		}
		if p.err != nil && (ctx.Err() == nil || len(cs.price) != h.n) {
			return // no prices (a window not begun keeps zeros)
		}
		// Cost scaling's prices are in units of 1/(n+1) cost;
		// any whole prices serve the primal–dual stage, so
		// truncating is enough. The windows' own nodes
		// [lo, hi) do not overlap, nor do their arcs' tails,
		// so the workers write disjoint parts of pi and hint;
		// node hi is the next window's first, except the last.
		mult := int64(h.n + 1)
		for v := lo; v < hi; v++ {
			pi[v] = cs.price[v-wlo] / mult
		}
		p.start, p.end = cs.price[lo-wlo]/mult, cs.price[hi-wlo]/mult
		if k == count-1 {
			pi[hi] = p.end
		}
		if p.err != nil {
			return // cut short: its prices only
		}
		for j, i := range ids {
			if t := int(g.src[i]); t >= lo && t < hi {
				hint[i] = cs.flowOn(j)
			}
		}
		p.relabels += cs.relabels
		p.phases = cs.phases
	})
	var relabels, phases, warm int64
	cut, done := false, 0
	for k, p := range parts {
		if p.err != nil && ctx.Err() != nil {
			cut = true
			continue
		}
		if p.err != nil {
			return nil, nil, fmt.Sprintf("window %d of %d", k+1, count), false, p.err
		}
		done++
		relabels += p.relabels
		phases += p.phases
		if p.warm {
			warm++
		}
	}
	how := "by cost scaling"
	if start != nil {
		how = fmt.Sprintf("by cost scaling (%d warm-started)", warm)
	}
	// Join: each window's prices are shifted to agree with the previous
	// window's (already shifted) at their common node.
	var shift int64
	for k, p := range parts {
		if k > 0 {
			shift += parts[k-1].end - p.start
		}
		lo, hi := k*plan.Size, min(n-1, (k+1)*plan.Size)
		if k == count-1 {
			hi++
		}
		for v := lo; v < hi; v++ {
			pi[v] += shift
		}
	}
	if cut {
		return nil, pi, fmt.Sprintf("in the windows' cost scaling: %d of %d windows of %d steps solved", done, count, plan.Size), true, ctx.Err()
	}
	joined := pi // newPrimalDual copies it
	s := newPrimalDual(g, pi, hint)
	s.progress = plan.Progress
	err := s.solve(ctx)
	stats := fmt.Sprintf("%d windows of %d steps, overlap %d, %s on %d cores (%d phases, %d relabels); primal–dual: %d clusters, %d rounds settling %d nodes, %d level graphs, %d augmentations",
		count, plan.Size, plan.Overlap, how, workers, phases, relabels, s.clusters, s.rounds, s.settled, s.levels, s.augments)
	if err != nil {
		if ctx.Err() != nil {
			return nil, joined, stats, true, err
		}
		return nil, nil, stats, false, err
	}
	flow := make([]int64, len(g.src))
	for i := range flow {
		flow[i] = s.flowOn(i)
	}
	if err := certify(g, flow, s.pi); err != nil {
		return nil, nil, stats, false, err
	}
	return flow, s.pi, stats, false, nil
}

// warmBudget is the relabels per node after which a window's warm-started
// cost scaling is abandoned and the window solved from scratch. A start
// from a neighbour's prices can be far worse than no start: where a line
// arc has capacity 0 at the neighbour's capacity (forced caching of a long
// history), nothing ties the prices across it, and at the next capacity
// the arc carries flow and the start may ask a single phase at ε = 1 to
// move prices by many cost units (measured: 8.6·10^8 relabels, 42 s, on a
// window of 2,001 nodes that takes 0.03 s from scratch). Solves from
// scratch of birth–death windows took 50–200 relabels per node; warm ones
// that paid, under 150.
const warmBudget = 400

// warmStart returns the start prices of one window's cost scaling: the
// window's part w of the warm prices, shifted so that the smallest is 0,
// or nil (start from scratch) when they span so much that, multiplied by
// the window's cost multiplier mult (its nodes + 1), they would leave less
// than a factor of 64 to int64's range. Cost scaling lowers prices from
// the start by a few n·ε per phase and its global updates by at most
// (2n+2)·ε, far inside that margin.
func warmStart(w []int64, mult int64) []int64 {
	lo, hi := slices.Min(w), slices.Max(w)
	if span := hi - lo; span < 0 || span >= math.MaxInt64/64/mult {
		return nil
	}
	out := make([]int64, len(w))
	for i, p := range w {
		out[i] = p - lo
	}
	return out
}

// bySource indexes the arcs of g that are not line arcs by their first
// node: node v's are arcs[first[v]:first[v+1]].
func (g *Network) bySource() (first, arcs []int32) {
	first = make([]int32, g.n+1)
	for i := g.n - 1; i < len(g.src); i++ {
		first[g.src[i]+1]++
	}
	for v := 0; v < g.n; v++ {
		first[v+1] += first[v]
	}
	fill := append([]int32(nil), first[:g.n]...)
	arcs = make([]int32, len(g.src)-(g.n-1))
	for i := g.n - 1; i < len(g.src); i++ {
		arcs[fill[g.src[i]]] = int32(i)
		fill[g.src[i]]++
	}
	return first, arcs
}

// subLine is the part of line network g over nodes lo..hi: its line arcs,
// the other arcs of g with both ends in the range (found through the index
// of bySource), and supplies that make every cut carry its line arc's
// capacity; ids maps its arcs to g's.
func (g *Network) subLine(lo, hi int, first, arcs []int32) (*Network, []int) {
	h := NewNetwork(hi - lo + 1)
	var ids []int
	var prev int64
	for t := lo; t < hi; t++ {
		h.AddArc(t-lo, t+1-lo, g.cap[t], g.cost[t])
		ids = append(ids, t)
		h.supply[t-lo] += g.cap[t] - prev
		prev = g.cap[t]
	}
	h.supply[hi-lo] -= prev
	for _, i := range arcs[first[lo]:first[hi]] {
		if int(g.dst[i]) <= hi {
			h.AddArc(int(g.src[i])-lo, int(g.dst[i])-lo, g.cap[i], g.cost[i])
			ids = append(ids, int(i))
		}
	}
	return h, ids
}

// inParallel calls do(k) for k = 0..count−1 on at most GOMAXPROCS
// goroutines, each taking the next k when it is done with one, and returns
// when all calls have returned, with the number of goroutines it used.
func inParallel(count int, do func(k int)) (workers int) {
	next := make(chan int)
	var wg sync.WaitGroup
	workers = max(1, min(runtime.GOMAXPROCS(0), count))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				do(k)
			}
		}()
	}
	for k := range count {
		next <- k
	}
	close(next)
	wg.Wait()
	return workers
}
