package slo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Improver improves the schedule of one component in place: served
// (indexed like problem.cands) holds a feasible set of pairs on entry and
// must hold one serving at least as many of members (candidate indices,
// increasing) on return. The branch and bound calls it on its starting
// incumbent (see componentImprover) and checks the count never drops.
type Improver func(ctx context.Context, members []int, served []bool)

// searchStats reports a branch and bound.
type searchStats struct {
	Nodes      int
	Lagrange   lagrangeStats
	RootBound  int // certified upper bound on pairs served, at the root
	Incumbent  int // pairs served by the best schedule found
	Proven     bool
	Stopped    string // why the search stopped early, if it did
	LagrangeIn time.Duration
	Decomp     decompStats  // the windows' part of the root bound
	Stretch    stretchStats // the stretches' bound (stretch.go), before the cuts
	// Cuts are the root's cut pool (valid at every integer point of the
	// component; local member indices) and CutMu their best multipliers
	// (μ·2^muBits), for a backend's program (ip.go).
	Cuts  []cut
	CutMu []int64
}

// maxSearchNodes bounds the nodes of a search without a deadline.
const maxSearchNodes = 200_000

// searchLagrangeIter bounds the subgradient iterations at the root.
const searchLagrangeIter = 300

// branchAndBound solves the 0/1 program of the component of members
// (candidate indices) exactly, by depth-first branch and bound: each node
// fixes some pairs in or out and is bounded by the Lagrangian flow bound
// of lagrange.go with the root's cuts and multipliers (valid at every
// node, since the cuts hold at every integer point); a node whose bound's
// floor is not above the incumbent is pruned, and a node whose LP point is
// integral gives a schedule. The incumbent starts from served (the
// heuristic's), improved by improve when not nil, and every better
// schedule found is written back into served. It returns a certified
// upper bound on the pairs of members served (the root's, or the optimum
// when proven) and whether the search completed before ctx was done (then
// served is optimal on members).
//
// Before the cuts, the decomposition into stretches of rows (stretch.go)
// bounds the component on its own within stretchBudget (0: no time limit
// of its own; negative: skipped), and the answer is never above its
// bound either.
func (pr *problem) branchAndBound(ctx context.Context, members []int, served []bool, improve Improver, lagrangeBudget, stretchBudget time.Duration) (int, searchStats, error) {
	var st searchStats
	if improve != nil {
		improve(ctx, members, served)
	}
	m := pr.newComponent(members)
	inc := 0
	for _, i := range members {
		if served[i] {
			inc++
		}
	}
	st.Incumbent = inc
	stretchUB := len(members)
	if stretchBudget >= 0 {
		sctx, scancel := ctx, context.CancelFunc(func() {})
		if stretchBudget > 0 {
			sctx, scancel = context.WithTimeout(ctx, stretchBudget)
		}
		if b, ss, ok := m.rootStretch(sctx, inc); ok {
			stretchUB, st.Stretch = b.floor(len(members)), ss
		}
		scancel()
		if stretchUB <= inc {
			st.RootBound, st.Proven = inc, true
			return inc, st, nil
		}
	}
	// Root: Lagrangian bound with cuts, within its share of the time.
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if lagrangeBudget > 0 {
		lctx, cancel = context.WithTimeout(ctx, lagrangeBudget)
	}
	start := time.Now()
	l, root, ls, err := m.lagrangeBound(lctx, ctx, inc, searchLagrangeIter)
	cancel()
	st.LagrangeIn = time.Since(start)
	st.Lagrange = ls
	if err != nil && ctx.Err() != nil {
		// The time ran out before the root's LP was solved.
		st.Stopped = "time limit before the root bound"
		st.RootBound = stretchUB
		return stretchUB, st, nil
	}
	if err != nil {
		return 0, st, err
	}
	// Then windows of rows solved exactly (decomp.go), in what the cuts
	// left of the root's time (all of it without a budget): at equal
	// time they gain less than the cuts' steps (docs/tail-bounds.md).
	dctx, dcancel := ctx, context.CancelFunc(func() {})
	if lagrangeBudget > 0 {
		dctx, dcancel = context.WithTimeout(ctx, max(lagrangeBudget-time.Since(start), 0))
	}
	dc, root, ds := m.refineRoot(dctx, l, root, inc)
	dcancel()
	st.Decomp = ds
	st.LagrangeIn = time.Since(start)
	st.Cuts, st.CutMu = l.pool.cuts, l.mu
	ub := min(root.floor(len(members)), stretchUB)
	st.RootBound = ub
	if ub <= inc {
		st.Proven = true
		return inc, st, nil
	}
	P, muR := dc.profits(nil)
	noDeadline := false
	if _, ok := ctx.Deadline(); !ok {
		noDeadline = true
	}
	pick := make([]bool, len(members))
	record := func(y []float64, fix []int8) {
		if n := m.roundFill(y, fix, pick); n > inc {
			inc = n
			st.Incumbent = inc
			for i, c := range members {
				served[c] = pick[i]
			}
		}
	}
	// Best-first: the open node of the highest parent bound next; a node
	// is its parent and one more fixing, so open nodes cost little.
	h := &nodeHeap{}
	h.push(&bbNode{member: -1, bound: root.value()})
	fix := make([]int8, len(members))
	for h.len() > 0 {
		if ctx.Err() != nil {
			st.Stopped = "time limit"
			break
		}
		if noDeadline && st.Nodes >= maxSearchNodes {
			st.Stopped = fmt.Sprintf("%d nodes", st.Nodes)
			break
		}
		nd := h.pop()
		if math.Floor(nd.bound+1e-9) <= float64(inc) && nd.parent != nil {
			// its parent's bound, certified below, already says so
			continue
		}
		clear(fix)
		for a := nd; a != nil && a.member >= 0; a = a.parent {
			fix[a.member] = a.value
		}
		st.Nodes++
		nodeR, err := dc.nodeTerms(muR, fix)
		if errors.Is(err, errInfeasible) {
			continue
		}
		b, y, err := m.flowBound(ctx, P, nodeR, fix)
		if errors.Is(err, errInfeasible) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				st.Stopped = "time limit"
				h.push(nd) // not explored: still open
				break
			}
			return 0, st, err
		}
		nb := b.floor(len(members))
		if nb <= inc {
			continue
		}
		record(y, fix)
		if nb <= inc {
			continue
		}
		branch, frac := -1, 2.0
		for i, v := range y {
			if fix[i] == 0 && v > 0 && v < 1 {
				if f := math.Abs(v - 0.5); f < frac {
					branch, frac = i, f
				}
			}
		}
		if branch < 0 {
			// An integral point (recorded above): the Lagrangian terms
			// keep the bound above its count, so branch on a free pair,
			// a served one first.
			for i, v := range y {
				if fix[i] == 0 && (branch < 0 || v == 1 && y[branch] != 1) {
					branch = i
				}
			}
			if branch < 0 {
				continue // every pair fixed
			}
		}
		bv := b.value()
		h.push(&bbNode{parent: nd, member: branch, value: 1, bound: bv})
		h.push(&bbNode{parent: nd, member: branch, value: -1, bound: bv})
	}
	if st.Stopped != "" {
		// The open nodes' bounds cover every schedule not yet seen.
		open := float64(inc)
		for _, nd := range h.nodes {
			open = max(open, nd.bound)
		}
		return min(ub, max(inc, int(math.Floor(open+1e-9)))), st, nil
	}
	st.Proven = true
	return inc, st, nil
}

// nodeWith returns a copy of fix with member i fixed to v.
func nodeWith(fix []int8, i int, v int8) []int8 {
	f := make([]int8, len(fix))
	copy(f, fix)
	f[i] = v
	return f
}

// bbNode is a node of the branch and bound: its parent's fixings and
// member fixed to value (1 in, −1 out); bound is its parent's bound, pairs.
type bbNode struct {
	parent *bbNode
	member int
	value  int8
	bound  float64
}

// nodeHeap is a max-heap of nodes by bound (then deeper first).
type nodeHeap struct{ nodes []*bbNode }

func (h *nodeHeap) len() int { return len(h.nodes) }

func (h *nodeHeap) less(i, j int) bool { return h.nodes[i].bound > h.nodes[j].bound }

func (h *nodeHeap) push(n *bbNode) {
	h.nodes = append(h.nodes, n)
	for i := len(h.nodes) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.nodes[i], h.nodes[p] = h.nodes[p], h.nodes[i]
		i = p
	}
}

func (h *nodeHeap) pop() *bbNode {
	top := h.nodes[0]
	last := len(h.nodes) - 1
	h.nodes[0] = h.nodes[last]
	h.nodes = h.nodes[:last]
	for i := 0; ; {
		l, r, b := 2*i+1, 2*i+2, i
		if l < len(h.nodes) && h.less(l, b) {
			b = l
		}
		if r < len(h.nodes) && h.less(r, b) {
			b = r
		}
		if b == i {
			break
		}
		h.nodes[i], h.nodes[b] = h.nodes[b], h.nodes[i]
		i = b
	}
	return top
}

// roundFill builds a schedule from an LP point of a node: the members
// fixed in and those the point serves fully, then every other member that
// fits, in decreasing order of y and then of increasing area (demand ×
// segments spanned). It writes the schedule into pick and returns its
// size; pick is feasible for every row (checked while it is built).
func (m *component) roundFill(y []float64, fix []int8, pick []bool) int {
	nseg := len(m.segCap)
	load := make([]int64, nseg+1)
	n := 0
	clear(pick)
	// the members fixed in and those served fully, by their loads'
	// differences summed once (their spans are long: checking each
	// member's segments was a fifth of the split's time)
	var rest []int
	for i, v := range y {
		switch {
		case fix[i] == 1 || v == 1 && fix[i] == 0:
			load[m.lo[i]] += m.d[i]
			load[m.hi[i]] -= m.d[i]
			pick[i] = true
			n++
		case fix[i] == 0:
			rest = append(rest, i)
		}
	}
	load = load[:nseg]
	var run int64
	for j, dl := range load {
		run += dl
		load[j] = run
		if run > m.segCap[j] {
			clear(pick)
			return 0 // cannot happen for an LP point; no schedule then
		}
	}
	fits := func(i int) bool {
		for j := m.lo[i]; j < m.hi[i]; j++ {
			if load[j]+m.d[i] > m.segCap[j] {
				return false
			}
		}
		return true
	}
	take := func(i int) {
		for j := m.lo[i]; j < m.hi[i]; j++ {
			load[j] += m.d[i]
		}
		pick[i] = true
		n++
	}
	area := func(i int) int64 { return m.d[i] * int64(m.ends[m.hi[i]]-m.ends[m.lo[i]]) }
	slices.SortFunc(rest, func(a, b int) int {
		switch {
		case y[a] > y[b]:
			return -1
		case y[a] < y[b]:
			return 1
		}
		return cmp.Compare(area(a), area(b))
	})
	for _, i := range rest {
		if fits(i) {
			take(i)
		}
	}
	return n
}
