package slo

import (
	"math"
	"slices"
)

// Best-first search of one stretch (issue 32).
//
// The depth-first branch and bound (stretchSolver.dfs) answers, when its
// node budget runs out, the largest bound of the nodes it left open; those
// include the root's other child, whose bound is about the root's, so a
// larger budget does not lower the answer until that whole subtree is
// closed (docs/tail-bounds.md: 25.9023 at 50,000 and at 400,000 nodes).
// Here the open nodes are kept in a priority queue by bound, and the node
// explored next is one of largest bound; from it the search dives depth
// first (the preferred child, as dfs orders them), queueing each other
// child whose bound beats the best point, until a leaf or a pruned node.
// The dive finds points early, as dfs does; the queue makes the answer
// under a budget — the best point's value or the largest bound still
// queued, whichever is larger — the largest bound of the open frontier,
// which falls as nodes are spent. Every node's bound is the dfs one (the
// same Lagrangian and knapsack bounds, whole numbers), taken no larger
// than its parent's, so a node is an upper bound on every point below it
// and the answer is an upper bound on V_w when the budget stops the
// search, and V_w exactly when the queue empties (every node closed:
// pruned by a bound not above the best point, or a leaf evaluated
// exactly).
//
// A queued node stores its depth k, its value cur and Lagrangian term lag
// (2^−S units), its bound, and which of order[:k] it takes (one bit each);
// its residual capacities are rebuilt from those bits when it is
// explored.

// bfNode is an open node of the best-first search.
type bfNode struct {
	bound, cur, lag int64
	k               int32
	slot            int32 // its bits: words slot·nw .. (slot+1)·nw−1 of bits
	seq             int64 // order of queueing (ties: the later first, deterministic)
}

// bfQueue is a max-heap of open nodes by bound (then deeper, then later).
type bfQueue struct {
	h     []bfNode
	bits  []uint64
	free  []int32
	nw    int
	slots int32
	seq   int64
}

func (q *bfQueue) reset(nw int) {
	q.h, q.bits, q.free = q.h[:0], q.bits[:0], q.free[:0]
	q.nw, q.slots, q.seq = nw, 0, 0
}

func (q *bfQueue) less(a, b int) bool { // a above b
	x, y := &q.h[a], &q.h[b]
	if x.bound != y.bound {
		return x.bound > y.bound
	}
	if x.k != y.k {
		return x.k > y.k
	}
	return x.seq > y.seq
}

// push queues a node taking the items of order[:k] marked in pick.
func (q *bfQueue) push(n bfNode, order []int32, pick []bool) {
	var s int32
	if l := len(q.free); l > 0 {
		s, q.free = q.free[l-1], q.free[:l-1]
	} else {
		s = q.slots
		q.slots++
		q.bits = append(q.bits, make([]uint64, q.nw)...)
	}
	b := q.bits[int(s)*q.nw : int(s+1)*q.nw]
	clear(b)
	for j := range int(n.k) {
		if pick[order[j]] {
			b[j>>6] |= 1 << (j & 63)
		}
	}
	n.slot, n.seq = s, q.seq
	q.seq++
	q.h = append(q.h, n)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// pop removes the node of largest bound; its bits stay readable until the
// next push.
func (q *bfQueue) pop() bfNode {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	q.free = append(q.free, top.slot)
	return top
}

// nodeBound is a node's bound at depth k with value cur and Lagrangian
// term lag at the current residual capacities ws.rem (the lesser of the
// Lagrangian bound cur + lag + Σ of the open items' positive reduced
// profits, the A items' included, and cur + F_A(least rem) + Σ of the
// open items' shares), and the least residual capacity.
func (ws *stretchSolver) nodeBound(k int, cur, lag int64) (int64, int64) {
	minRem := slices.Min(ws.rem)
	fa := ws.fA[minRem] << ws.shift
	return min(cur+lag+ws.suffix[k], cur+fa+ws.suffixP[k]), minRem
}

// knapsackA is the A items' knapsack (stretch.go): f[c], c = 0 ..
// capacity, the most Σ p over the items (p > 0) of at most c blocks, and
// keep, one bit per item and capacity, for recoverA. It is knapsack's
// table (decomp.go) computed with less work: after items 0 .. k every
// capacity of at least their summed demand holds all of them, so item k's
// pass stops at top_k = min(capacity, Σ_{j≤k} d_j) and the capacities
// above it hold the total (item k's bits there stay clear: recoverA takes
// every item whose top is below the capacity it looks at).
func knapsackA(items []int32, p, d []int64, capacity int64, f []int64, keep []uint64, tops []int64) ([]int64, []uint64, []int64) {
	w := int(capacity) + 1
	nw := (w + 63) / 64
	f = slices.Grow(f[:0], w)[:w]
	keep = slices.Grow(keep[:0], len(items)*nw)[:len(items)*nw]
	clear(keep)
	tops = slices.Grow(tops[:0], len(items))[:len(items)]
	top, total := 0, int64(0) // f[c] = total for every c > top
	f[0] = 0
	for k, i := range items {
		tops[k] = math.MaxInt64
		if p[k] <= 0 || d[i] > capacity {
			continue
		}
		di := int(d[i])
		nt := min(w-1, top+di)
		for c := top + 1; c <= nt; c++ {
			f[c] = total
		}
		row := keep[k*nw : (k+1)*nw]
		for c := nt; c >= di; c-- {
			if v := f[c-di] + p[k]; v > f[c] {
				f[c] = v
				row[c>>6] |= 1 << (c & 63)
			}
		}
		total += p[k]
		top = nt
		tops[k] = int64(nt)
	}
	for c := top + 1; c < w; c++ {
		f[c] = total
	}
	return f, keep, tops
}

// recoverA marks, by position k in items, an optimal subset of at most c
// blocks from knapsackA's keep bits and tops (capacity: knapsackA's).
func recoverA(items []int32, d []int64, capacity int64, keep []uint64, tops []int64, c int64, set func(k int)) {
	nw := (int(capacity) + 1 + 63) / 64
	for k := len(items) - 1; k >= 0; k-- {
		if c > tops[k] || keep[k*nw+int(c>>6)]&(1<<(c&63)) != 0 {
			set(k)
			c -= d[items[k]]
		}
	}
}

// apply takes (sign 1) or returns (sign −1) item it's blocks on its rows.
func (ws *stretchSolver) apply(it int32, sign int64) {
	w := ws.w
	d := sign * ws.d[w.items[it]]
	for q := w.cLo[it]; q < w.cHi[it]; q++ {
		ws.rem[q] -= d
	}
	ws.pick[it] = sign > 0
}

// bestFirst is the search of the comment above from the root (lag = base
// at full capacities, ws.rem); it sets ws.best, ws.bestMin, ws.bestPick,
// ws.nodes, ws.aborted and ws.openMax as dfs does.
func (ws *stretchSolver) bestFirst(base int64) {
	w := ws.w
	caps := slices.Clone(ws.rem)
	q := &ws.queue
	q.reset((len(ws.order) + 63) / 64)
	// dive from the node in ws.rem/ws.pick at depth k, whose parent's
	// bound is ub; false when the budget stopped it (the node queued)
	dive := func(k int, cur, lag, ub int64) bool {
		for {
			bound, minRem := ws.nodeBound(k, cur, lag)
			bound = min(bound, ub)
			if bound <= ws.best {
				return true
			}
			if ws.nodes >= ws.limit {
				q.push(bfNode{bound: bound, cur: cur, lag: lag, k: int32(k)}, ws.order, ws.pick)
				return false
			}
			ws.nodes++
			if ws.nodes&1023 == 0 && ws.ctx.Err() != nil {
				ws.limit = ws.nodes // stop: the rest is left open
			}
			if k == len(ws.order) {
				if v := cur + (ws.fA[minRem] << ws.shift); v > ws.best {
					ws.best, ws.bestMin = v, minRem
					copy(ws.bestPick, ws.pick)
				}
				return true
			}
			it := ws.order[k]
			d := ws.d[w.items[it]]
			fits := true
			for r := w.cLo[it]; r < w.cHi[it]; r++ {
				if ws.rem[r] < d {
					fits = false
					break
				}
			}
			tCur, tLag := cur+ws.p[it], lag-d*ws.lamSum[it]
			if fits && ws.red[it] >= 0 {
				// dive into take; queue skip
				if b, _ := ws.nodeBound(k+1, cur, lag); min(b, bound) > ws.best {
					q.push(bfNode{bound: min(b, bound), cur: cur, lag: lag, k: int32(k + 1)}, ws.order, ws.pick)
				}
				ws.apply(it, 1)
				cur, lag = tCur, tLag
			} else if fits {
				// dive into skip; queue take
				ws.apply(it, 1)
				if b, _ := ws.nodeBound(k+1, tCur, tLag); min(b, bound) > ws.best {
					q.push(bfNode{bound: min(b, bound), cur: tCur, lag: tLag, k: int32(k + 1)}, ws.order, ws.pick)
				}
				ws.apply(it, -1)
			}
			k, ub = k+1, bound
		}
	}
	restore := func(n bfNode) {
		copy(ws.rem, caps)
		clear(ws.pick)
		b := q.bits[int(n.slot)*q.nw : int(n.slot+1)*q.nw]
		for j := range int(n.k) {
			if b[j>>6]&(1<<(j&63)) != 0 {
				ws.apply(ws.order[j], 1)
			}
		}
	}
	done := dive(0, 0, base, math.MaxInt64)
	for done && len(q.h) > 0 {
		if q.h[0].bound <= ws.best {
			q.h = q.h[:0] // every open node is pruned
			break
		}
		n := q.pop()
		restore(n)
		done = dive(int(n.k), n.cur, n.lag, n.bound)
	}
	// leave ws.rem at the capacities, as dfs does
	copy(ws.rem, caps)
	clear(ws.pick)
	if !done {
		ws.aborted = true
		ws.openMax = q.h[0].bound // the largest open bound (the heap's top)
	}
}
