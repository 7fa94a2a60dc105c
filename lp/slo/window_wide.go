package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// Wide windows: an exact subproblem of the large-neighbourhood search at a
// few hundred freed pairs (issue 32; docs/tail-bounds.md, "Wide windows
// solved exactly"). Used by Violations under a time limit only (the wide
// stage, lns_wide.go), so its output without one is unchanged.
//
// Shape. A wide window frees every unpinned candidate whose span
// INTERSECTS a range of steps [t0, t1) — long ones included — and keeps
// every other candidate as it is; the freed candidates' program is most
// pairs served under the residual capacity the kept ones leave on every
// step. The slabs of upper_slab.go free only candidates whose span lies
// INSIDE an interval, so a long pair crossing the slab's edge stays fixed
// and holds its blocks on every step of the slab; outside reference runs
// (HiGHS on the 10^4-turn component) gained with the intersecting shape
// where slabs never did.
//
// Solver (wideSolver). Depth-first branch and bound on the window's
// program as a component (component.go, under the residual capacities),
// each node bounded by the flow LP with the node's fixings (wideLP:
// flowBound's network in int64, with the root's cover cuts and
// multipliers when rootIter > 0: the cuts hold at every integer point of
// the window, so at every node), pruned when the bound's floor is not
// above the incumbent; every node's LP point is rounded into a schedule
// (roundFill) and checked against the window's capacities (fits) before
// it is taken. Reduced-cost fixing (rcFix): exact potentials of the
// node's optimal flow give each pair's reduced cost, and a pair whose move
// to its other bound would take the bound to the incumbent or below keeps
// its LP value in the subtree. Branching on the most fractional pair
// proves windows sooner; on the largest fraction, in first (branchHigh),
// finds gains the other misses (docs/tail-bounds.md).
//
// Dominance. Pair a dominates pair b when d_a ≤ d_b and a's span lies
// inside b's, ties (equal demand and span) broken by index. Serving a in
// place of b never raises a step's load, so from any optimum, swapping a
// served b for a left-out a dominating it gives an optimum again; the
// relation is a strict order (each swap lowers the served multiset in
// (demand, span length, index)), so the swaps end, at an optimum with
// x_b ≤ x_a for every relation. The solver may therefore impose these
// inequalities: fixing a out fixes every b it dominates out, fixing b in
// fixes every a dominating b in (the relation is transitive, so one level
// of lists is the closure), and a fixing that contradicts an earlier one
// closes the node. This prunes schedules, never the optimal value
// (TestWideDominanceKeepsOptimum checks it against enumeration).
type wideSolver struct {
	m   *component
	P   []int64  // profits ·2^muBits (whole shares, less the cuts' multipliers)
	muR *big.Int // Σ μ_c r_c ·2^muBits

	dom   bool
	rcFix bool // reduced-cost fixing at every node
	// branchHigh branches on the free member of the largest fractional
	// value (in first), not the most fractional
	branchHigh bool
	fixed      int       // members fixed by reduced costs, in all
	noRound    bool      // take only integral LP points (tests: the tree alone must find the optimum)
	dominate   [][]int32 // dominate[a]: the pairs a dominates
	domBy      [][]int32 // domBy[b]: the pairs dominating b

	fix   []int8
	trail []int32
	pick  []bool
	best  []bool
	inc   int

	nodes, nodeLimit int
	aborted          bool

	// scale is S of wideLP (0: wideScale)
	scale uint
	// lf is the nodes' flow LP, kept from node to node (nil until the
	// first); snaps[k] holds dfs's node at depth k
	lf    *lineFlow
	snaps []*flowState
	depth int
}

// wideStats reports one wide window's solve.
type wideStats struct {
	// Nodes of the branch and bound; Exact: it finished (the window's
	// choice is optimal given the rest); Root the LP bound at the root
	// (pairs, with the cuts when any).
	Nodes int
	Exact bool
	Root  float64
	// Relations is the number of dominance relations among the freed
	// pairs (0 without dominance).
	Relations int
	// RCFixed counts the members fixed by reduced costs, over all nodes.
	RCFixed int
}

// wideOptions set a wide window's solve.
type wideOptions struct {
	// nodeLimit bounds the branch and bound's nodes (0: no limit).
	nodeLimit int
	// dom imposes the dominance relations.
	dom bool
	// rootIter is the subgradient iterations of cut separation at the
	// root (0: the plain LP bound at every node).
	rootIter int
	// rcFix fixes members by their reduced costs at every node.
	rcFix bool
	// branchHigh branches on the largest fractional value first, a dive
	// towards serving more, rather than on the most fractional.
	branchHigh bool
	// oneRule makes sweepWide try only branchHigh's rule (it tries the
	// largest fraction, then the most fractional, by default).
	oneRule bool
	// noRound takes only integral LP points as schedules, not the
	// rounding of every node's point (for tests of the tree alone).
	noRound bool
}

// solveWide solves window m's program exactly within opt.nodeLimit nodes
// from the feasible point pick (the current choice). On return pick holds
// the best point found: feasible for m, serving at least as many as on
// entry.
func (m *component) solveWide(ctx context.Context, pick []bool, opt wideOptions) (wideStats, error) {
	var st wideStats
	n := len(m.members)
	dom, rootIter := opt.dom, opt.rootIter
	ws := &wideSolver{m: m, dom: dom, nodeLimit: opt.nodeLimit, noRound: opt.noRound, rcFix: opt.rcFix, branchHigh: opt.branchHigh,
		fix: make([]int8, n), pick: make([]bool, n), best: slices.Clone(pick)}
	ws.inc = count(pick)
	ws.P, ws.muR = wholeShares(n), new(big.Int)
	if rootIter > 0 && len(m.rowSeg) > 0 {
		l, b, _, err := m.lagrangeBound(ctx, ctx, ws.inc, rootIter)
		if err != nil {
			return st, err
		}
		st.Root = b.value()
		if b.floor(n) <= ws.inc {
			st.Exact = true
			return st, nil
		}
		ws.P, ws.muR = l.profits()
	}
	if dom {
		ws.dominate, ws.domBy, st.Relations = m.dominance()
	}
	err := ws.dfs(ctx, true, &st)
	st.Nodes, st.RCFixed = ws.nodes, ws.fixed
	if err != nil {
		return st, err
	}
	st.Exact = !ws.aborted
	if !m.fits(ws.best) || count(ws.best) < count(pick) {
		return st, errors.New("slo: internal error: a wide window's point does not fit or serves fewer")
	}
	copy(pick, ws.best)
	if ctx.Err() != nil {
		st.Exact = false
	}
	return st, nil
}

// set fixes member i to v (1 in, −1 out) with the dominance closure,
// recording every change on the trail; false when a fixing contradicts an
// earlier one.
func (ws *wideSolver) set(i int32, v int8) bool {
	switch ws.fix[i] {
	case v:
		return true
	case -v:
		return false
	}
	ws.fix[i] = v
	ws.trail = append(ws.trail, i)
	if !ws.dom {
		return true
	}
	next := ws.dominate[i] // out: what i dominates goes out
	if v == 1 {
		next = ws.domBy[i] // in: what dominates i comes in
	}
	for _, j := range next {
		switch ws.fix[j] {
		case v:
		case -v:
			return false
		default:
			ws.fix[j] = v
			ws.trail = append(ws.trail, j)
		}
	}
	return true
}

// undo clears the fixings recorded after trail position mark.
func (ws *wideSolver) undo(mark int) {
	for _, i := range ws.trail[mark:] {
		ws.fix[i] = 0
	}
	ws.trail = ws.trail[:mark]
}

// dfs explores the node of the current fixings (root: the first call).
func (ws *wideSolver) dfs(ctx context.Context, root bool, st *wideStats) error {
	if ws.aborted {
		return nil
	}
	if ws.nodeLimit > 0 && ws.nodes >= ws.nodeLimit || ctx.Err() != nil {
		ws.aborted = true
		return nil
	}
	ws.nodes++
	m := ws.m
	num, y, rc, err := ws.wideLP(ctx)
	if errors.Is(err, errInfeasible) {
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			ws.aborted = true
			return nil
		}
		return err
	}
	if root && st.Root == 0 {
		st.Root = float64(num) / (1 << wideScale)
	}
	nb := int(num >> wideScale)
	if nb <= ws.inc {
		return nil
	}
	got := 0
	if ws.noRound {
		for i, v := range y {
			ws.pick[i] = v > 0.5
			if v > 1e-9 && v < 1-1e-9 {
				got = -1
				break
			}
		}
		if got == 0 {
			got = count(ws.pick)
		}
	} else {
		got = m.roundFill(y, ws.fix, ws.pick)
	}
	if got > ws.inc && m.fits(ws.pick) {
		ws.inc = got
		copy(ws.best, ws.pick)
		if nb <= ws.inc {
			return nil
		}
	}
	// Reduced-cost fixing: a member whose move to its other bound takes
	// the node's bound to the incumbent or below keeps its LP value in
	// this subtree (undone by the caller's trail mark).
	if ws.rcFix && !ws.fixByCost(num, rc, wideScale, int64(ws.inc)) {
		return nil
	}
	br, frac := -1, 2.0
	for i, v := range y {
		if ws.fix[i] == 0 && v > 1e-9 && v < 1-1e-9 {
			f := math.Abs(v - 0.5)
			if ws.branchHigh {
				f = 1 - v
			}
			if f < frac {
				br, frac = i, f
			}
		}
	}
	if br < 0 {
		// integral LP point above the incumbent only through the cuts'
		// terms
		if br = freeMember(y, ws.fix); br < 0 {
			return nil
		}
	}
	// the node's flow, to carry into the second child after the first's
	// subtree (lineflow.go)
	if len(ws.snaps) <= ws.depth {
		ws.snaps = append(ws.snaps, new(flowState))
	}
	here := ws.snaps[ws.depth]
	ws.lf.save(here)
	first := firstSide(y[br])
	for k, v := range [2]int8{first, -first} {
		mark := len(ws.trail)
		if k > 0 {
			ws.lf.load(here)
		}
		if ws.set(int32(br), v) {
			ws.depth++
			err := ws.dfs(ctx, false, st)
			ws.depth--
			if err != nil {
				return err
			}
		}
		ws.undo(mark)
	}
	return nil
}

// fixByCost fixes, for the subtree of the current node, every free member
// whose move to its other bound would take the node's bound num (LP
// numerator, reduced costs rc as wideLP's) to inc or below, num and
// |rc|·d read in units of 2^shift; false when a fixing contradicts an
// earlier one (the node holds no point above inc).
func (ws *wideSolver) fixByCost(num int64, rc []int64, shift uint, inc int64) bool {
	m := ws.m
	for i, r := range rc {
		if r == 0 || ws.fix[i] != 0 || (num-abs64(r)*m.d[i])>>shift > inc {
			continue
		}
		v := int8(-1)
		if r < 0 {
			v = 1
		}
		if !ws.set(int32(i), v) {
			return false
		}
		ws.fixed++
	}
	return true
}

// freeMember is the member to branch on at a node whose LP point y has no
// free fractional member: a free one (fix 0), a served one first; −1 when
// none is free.
func freeMember(y []float64, fix []int8) int {
	br := -1
	for i, v := range y {
		if fix[i] == 0 && (br < 0 || v == 1 && y[br] != 1) {
			br = i
		}
	}
	return br
}

// firstSide is the child a branch on a member of LP value v explores
// first: in (1) from v ≥ ½, out (−1) below.
func firstSide(v float64) int8 {
	if v < 0.5 {
		return -1
	}
	return 1
}

// wideScale is S of the wide windows' flow LP: costs ⌊P_i·2^(S−muBits)/d_i⌋
// per block, at most 2^30, so that every term of the bound's numerator
// (at most 2^30 per member) stays far within int64 for any window below
// 2^30 members.
const wideScale = 30

// wideLP is one node's flow LP (flowBound's network and bound, with
// S = wideScale, in int64) with each member's reduced cost: num/2^S bounds
// the pairs served at the node (the cuts' Lagrangian included), y is the
// LP point (fixed members at their value), and a free member k whose arc
// is at a bound of its capacity has |rc[k]|·d_k ≤ what the numerator
// loses when k is forced to the other bound (reduced-cost fixing), 0
// otherwise.
func (ws *wideSolver) wideLP(ctx context.Context) (num int64, y []float64, rc []int64, err error) {
	return ws.flowLP(ctx, true)
}

// flowLP is wideLP, with the reduced costs only when withRC is set (rc
// is nil otherwise): a bound alone needs no potentials. The LP is ws.lf,
// carried from its last state when the fixings extend that state's
// (lineflow.go); ws.P must not change once it is made.
func (ws *wideSolver) flowLP(ctx context.Context, withRC bool) (num int64, y []float64, rc []int64, err error) {
	m, fix := ws.m, ws.fix
	S := uint(wideScale)
	if ws.scale > 0 {
		S = ws.scale
	}
	n := len(m.members)
	if ws.lf == nil {
		w := make([]int64, n)
		for i, p := range ws.P {
			if p > 0 {
				w[i] = (p << (S - muBits)) / m.d[i]
			}
		}
		ws.lf = newLineFlow(m, w)
	}
	lf := ws.lf
	if err := lf.solve(ctx, fix); err != nil {
		if errors.Is(err, errInfeasible) {
			return 0, nil, nil, err
		}
		return 0, nil, nil, fmt.Errorf("slo: wide window flow: %w", err)
	}
	num = ws.muR.Int64() << (S - muBits)
	y = make([]float64, n)
	if withRC {
		rc = make([]int64, n)
	}
	for i, f := range fix {
		switch {
		case f == 1:
			num += ws.P[i] << (S - muBits)
			y[i] = 1
		case f != 0 || ws.P[i] <= 0:
		default:
			num += m.d[i] // rounding: the weight per block lies in [w, w+1)·2^−S
			w := lf.w[i]
			if w <= 0 {
				continue
			}
			num += w * lf.f[i]
			y[i] = float64(lf.f[i]) / float64(m.d[i])
			if !withRC {
				continue
			}
			// a member at a bound of its arc whose reduced cost keeps it
			// there
			r := -w + lf.pi[m.lo[i]] - lf.pi[m.hi[i]]
			switch x := lf.f[i]; {
			case x == 0 && r > 0, x == m.d[i] && r < 0:
				rc[i] = r
			}
		}
	}
	return num, y, rc, nil
}

// rarc is an arc u→v of cost c of a residual network.
type rarc struct {
	u, v int32
	c    int64
}

// residualPotentials returns potentials π over nodes 0..n−1 with
// c + π_u − π_v ≥ 0 on every arc of res: shortest distances from a source
// joined to every node at cost 0, by the queue-based Bellman–Ford method.
// An error reports a negative cycle (never, for an optimal flow's
// residual network).
func residualPotentials(n int, res []rarc) ([]int64, error) {
	start := make([]int32, n+1)
	for _, e := range res {
		start[e.u+1]++
	}
	for v := 0; v < n; v++ {
		start[v+1] += start[v]
	}
	adj := make([]int32, len(res))
	next := slices.Clone(start[:n])
	for k, e := range res {
		adj[next[e.u]] = int32(k)
		next[e.u]++
	}
	pi := make([]int64, n)
	inQ := make([]bool, n)
	enq := make([]int32, n)
	q := make([]int32, 0, n)
	for v := range inQ {
		q = append(q, int32(v))
		inQ[v] = true
	}
	for h := 0; h < len(q); h++ {
		u := q[h]
		inQ[u] = false
		for _, k := range adj[start[u]:start[u+1]] {
			e := res[k]
			if d := pi[u] + e.c; d < pi[e.v] {
				pi[e.v] = d
				if !inQ[e.v] {
					// a node queued n+1 times lies on a negative cycle
					if enq[e.v]++; enq[e.v] > int32(n) {
						return nil, errors.New("slo: internal error: negative cycle in an optimal flow's residual network")
					}
					inQ[e.v] = true
					q = append(q, e.v)
				}
			}
		}
		if h > 4*n && h > len(q)/2 {
			// keep the queue's storage bounded
			q = append(q[:0], q[h+1:]...)
			h = -1
		}
	}
	return pi, nil
}
