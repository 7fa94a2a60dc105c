package slo

import (
	"math"
	"slices"
)

// wItem is a candidate freed in a window: it holds d blocks over steps
// a..n−1; served says whether the current schedule serves it.
type wItem struct {
	a, n   int
	d      int64
	served bool
	// w is the item's weight in the tie-break: among the choices of most
	// items, the least total weight wins.
	w int64
}

// windowSolver solves a window's 0/1 program exactly by depth-first branch
// and bound: choose a subset of items maximizing their number, then
// minimizing their block-steps Σ d·(n − a), such that on every step the
// chosen items' demands fit the step's residual capacity.
//
// Steps are grouped into segments between consecutive item endpoints (the
// same items span every step of a segment, so only its least residual
// capacity matters); a segment whose items all fit together is dropped,
// and an item spanning no remaining segment is always chosen. The bound at
// a node: assign each undecided item to one segment it spans (fixed at the
// root: the one whose items ask most relative to its capacity); the items
// assigned to a segment all span it, so at most as many of them fit as the
// greedy smallest-demand-first count within its remaining capacity, and
// the sum of those counts over segments bounds the undecided items that
// can be chosen.
type windowSolver struct {
	nodeLimit int
	items     []wItem

	rem     []int64 // remaining capacity of each kept segment, blocks
	cover   [][]int // kept segments each item spans
	always  []bool  // item spans no kept segment
	order   []int   // items to branch on, smallest demand first
	group   []int   // segment each item is charged to in the bound
	used    []int64 // scratch of bound, per segment
	touched []int

	// Lagrangian bound: multipliers per segment, Λ_i = Σ_{s∋i} λ_s, the
	// suffix sums over order of max(0, 1 − d_i·Λ_i), and Σ λ_s·rem_s.
	lambda, lamItem, suffix []float64
	lagBase                 float64

	pick      []bool
	best      []bool
	bestCount int
	bestArea  int64
	nodes     int
	aborted   bool
}

func (ws *windowSolver) reset() {
	ws.items = ws.items[:0]
}

// segments builds the kept segments, their residual capacities
// (resid(lo, hi): least residual capacity over steps lo..hi, blocks) and
// each item's cover.
func (ws *windowSolver) segments(resid func(lo, hi int) int64) {
	m := len(ws.items)
	pts := make([]int, 0, 2*m)
	for _, it := range ws.items {
		pts = append(pts, it.a, it.n)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	// demand over each elementary segment [pts[j], pts[j+1])
	dem := make([]int64, len(pts))
	for _, it := range ws.items {
		j, _ := slices.BinarySearch(pts, it.a)
		e, _ := slices.BinarySearch(pts, it.n)
		dem[j] += it.d
		dem[e] -= it.d
	}
	keep := make([]int, len(pts)) // index of kept segment, or −1
	ws.rem = ws.rem[:0]
	var run int64
	for j := 0; j+1 < len(pts); j++ {
		run += dem[j]
		keep[j] = -1
		if run == 0 {
			continue
		}
		r := resid(pts[j], pts[j+1]-1)
		if run <= r {
			continue
		}
		keep[j] = len(ws.rem)
		ws.rem = append(ws.rem, max(r, 0))
	}
	ws.cover = slices.Grow(ws.cover[:0], m)[:m]
	ws.always = slices.Grow(ws.always[:0], m)[:m]
	ws.group = slices.Grow(ws.group[:0], m)[:m]
	ask := make([]int64, len(ws.rem))
	for i, it := range ws.items {
		ws.cover[i] = ws.cover[i][:0]
		j, _ := slices.BinarySearch(pts, it.a)
		for ; pts[j] < it.n; j++ {
			if keep[j] >= 0 {
				ws.cover[i] = append(ws.cover[i], keep[j])
				ask[keep[j]] += it.d
			}
		}
		ws.always[i] = len(ws.cover[i]) == 0
	}
	for i := range ws.items {
		g, best := -1, -1.0
		for _, s := range ws.cover[i] {
			ratio := math.Inf(1)
			if ws.rem[s] > 0 {
				ratio = float64(ask[s]) / float64(ws.rem[s])
			}
			if ratio > best {
				g, best = s, ratio
			}
		}
		ws.group[i] = g
	}
	ws.used = slices.Grow(ws.used[:0], len(ws.rem))[:len(ws.rem)]
}

// solve runs the branch and bound from the incumbent given by the items'
// served flags (cur items over curArea block-steps) and reports whether it
// finished within the node limit. ws.best, ws.bestCount and ws.bestArea
// hold the best point found (the incumbent when nothing beats it).
func (ws *windowSolver) solve(cur int, curArea int64) bool {
	m := len(ws.items)
	ws.best = slices.Grow(ws.best[:0], m)[:m]
	ws.pick = slices.Grow(ws.pick[:0], m)[:m]
	for i, it := range ws.items {
		ws.best[i] = it.served
		ws.pick[i] = false
	}
	ws.bestCount, ws.bestArea = cur, curArea
	ws.nodes, ws.aborted = 0, false
	ws.order = ws.order[:0]
	cnt := 0
	var area int64
	for i, it := range ws.items {
		if ws.always[i] {
			ws.pick[i] = true
			cnt++
			area += it.w
			continue
		}
		ws.order = append(ws.order, i)
	}
	slices.SortStableFunc(ws.order, func(i, j int) int {
		x, y := ws.items[i], ws.items[j]
		if x.d != y.d {
			if x.d < y.d {
				return -1
			}
			return 1
		}
		return (x.n - x.a) - (y.n - y.a)
	})
	ws.lagrange()
	ws.dfs(0, cnt, area, ws.lagBase)
	return !ws.aborted
}

// lagrange chooses the multipliers by a short subgradient descent on the
// Lagrangian dual of the kept segments' rows, L(λ) = Σ_s λ_s·rem_s +
// Σ_i max(0, 1 − d_i·Σ_{s∋i} λ_s), an upper bound on the items of order
// that fit for every λ ≥ 0, and sets up its per-node evaluation: including
// item i lowers Σ λ_s·rem_s by d_i·Λ_i, and the undecided items of
// order[k:] add suffix[k].
func (ws *windowSolver) lagrange() {
	S := len(ws.rem)
	ws.lambda = slices.Grow(ws.lambda[:0], S)[:S]
	m := len(ws.items)
	ws.lamItem = slices.Grow(ws.lamItem[:0], m)[:m]
	var sumD float64
	for _, i := range ws.order {
		sumD += float64(ws.items[i].d)
	}
	if len(ws.order) == 0 || S == 0 {
		ws.suffix = append(ws.suffix[:0], 0)
		clear(ws.lamItem)
		ws.lagBase = 0
		return
	}
	avgD := sumD / float64(len(ws.order))
	for s := range ws.lambda {
		ws.lambda[s] = 0.5 / avgD / float64(len(ws.order))
	}
	best := math.Inf(1)
	bestLam := make([]float64, S)
	g := make([]float64, S)
	eval := func() float64 {
		L := 0.0
		for s, l := range ws.lambda {
			L += l * float64(ws.rem[s])
			g[s] = float64(ws.rem[s])
		}
		for _, i := range ws.order {
			Li := 0.0
			for _, s := range ws.cover[i] {
				Li += ws.lambda[s]
			}
			if r := 1 - float64(ws.items[i].d)*Li; r > 0 {
				L += r
				for _, s := range ws.cover[i] {
					g[s] -= float64(ws.items[i].d)
				}
			}
		}
		return L
	}
	step := 1 / avgD
	for it := 0; it < 60; it++ {
		L := eval()
		if L < best {
			best = L
			copy(bestLam, ws.lambda)
		}
		var norm float64
		for _, x := range g {
			norm += x * x
		}
		if norm == 0 {
			break
		}
		// normalized step, shrinking
		eta := step / math.Sqrt(norm) / (1 + float64(it)/8)
		for s := range ws.lambda {
			ws.lambda[s] = max(0, ws.lambda[s]-eta*g[s]/avgD*avgD)
		}
	}
	copy(ws.lambda, bestLam)
	ws.lagBase = 0
	for s, l := range ws.lambda {
		ws.lagBase += l * float64(ws.rem[s])
	}
	for i := range ws.lamItem {
		ws.lamItem[i] = 0
		for _, s := range ws.cover[i] {
			ws.lamItem[i] += ws.lambda[s]
		}
	}
	n := len(ws.order)
	ws.suffix = slices.Grow(ws.suffix[:0], n+1)[:n+1]
	ws.suffix[n] = 0
	for k := n - 1; k >= 0; k-- {
		i := ws.order[k]
		ws.suffix[k] = ws.suffix[k+1] + max(0, 1-float64(ws.items[i].d)*ws.lamItem[i])
	}
}

func (ws *windowSolver) dfs(k, cnt int, area int64, lag float64) {
	if ws.aborted {
		return
	}
	ws.nodes++
	if ws.nodes > ws.nodeLimit {
		ws.aborted = true
		return
	}
	if k == len(ws.order) {
		if cnt > ws.bestCount || cnt == ws.bestCount && area < ws.bestArea {
			ws.bestCount, ws.bestArea = cnt, area
			copy(ws.best, ws.pick)
		}
		return
	}
	// lag + suffix[k] bounds the items of order[k:] that fit (a
	// Lagrangian bound; 10^−6 absorbs floating-point rounding, which
	// only loosens it). The node is pruned when either bound prunes it,
	// so the segments' bound (linear in the undecided items) is computed
	// only when the Lagrangian one, in constant time, leaves it open.
	pruned := func(b int) bool { return b < ws.bestCount || b == ws.bestCount && area >= ws.bestArea }
	if lb := int(math.Floor(lag + ws.suffix[k] + 1e-6)); pruned(cnt+lb) || pruned(cnt+ws.bound(k)) {
		return
	}
	i := ws.order[k]
	it := ws.items[i]
	// take it where it fits, in one pass (giving back what it took
	// where it does not)
	fits := true
	for x, s := range ws.cover[i] {
		if ws.rem[s] < it.d {
			for _, s := range ws.cover[i][:x] {
				ws.rem[s] += it.d
			}
			fits = false
			break
		}
		ws.rem[s] -= it.d
	}
	if fits {
		ws.pick[i] = true
		ws.dfs(k+1, cnt+1, area+it.w, lag-float64(it.d)*ws.lamItem[i])
		ws.pick[i] = false
		for _, s := range ws.cover[i] {
			ws.rem[s] += it.d
		}
	}
	ws.dfs(k+1, cnt, area, lag)
}

// bound is an upper bound on the items of order[k:] that can be chosen
// within the remaining capacities (see windowSolver).
func (ws *windowSolver) bound(k int) int {
	n := 0
	for _, i := range ws.order[k:] {
		g := ws.group[i]
		d := ws.items[i].d
		if ws.used[g]+d <= ws.rem[g] {
			if ws.used[g] == 0 {
				ws.touched = append(ws.touched, g)
			}
			ws.used[g] += d
			n++
		}
	}
	for _, g := range ws.touched {
		ws.used[g] = 0
	}
	ws.touched = ws.touched[:0]
	return n
}
