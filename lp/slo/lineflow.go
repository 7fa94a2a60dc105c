package slo

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tailbound/tailbound/lp/mcf"
)

// A warm-started flow LP for the branch and bounds over a component's
// line (issue 32): the stretches' best-first search (stretchflow.go) and
// the wide windows' depth-first one (window_wide.go) bound every node by
// the same min-cost flow, which differs from its parent's by a few of the
// members' bounds. Solved from scratch (the network simplex, then
// Bellman–Ford for potentials) it was most of their time: 47 s of 80 s of
// CPU in a profile of the 60 s solve of the 10^4-turn instance of
// docs/tail-bounds.md.
//
// lineFlow keeps an optimal flow with potentials that prove it (every
// residual arc of reduced cost ≥ 0) for a set of fixings. Under more
// fixings it moves each newly fixed member's flow to its bound, which
// leaves some nodes with excess and others short, and restores balance by
// successive shortest paths (Dijkstra over the reduced costs, which stay
// ≥ 0 because removing a member's arcs only removes constraints): a few
// paths per node, each over the line's few hundred nodes. The result is an
// optimal flow of the same LP, so the bound is the one the cold solve
// gives, to the unit; the LP point and the reduced costs may be those of
// another optimum (any optimal potentials give valid reduced-cost
// fixings). Under fixings that are not a superset of its own (a sibling's,
// after backtracking) it solves from scratch, so callers keep snapshots
// (flowState) of the nodes they return to.
//
// The network is lineNetwork's with the fixed-in members' blocks carried
// as flow on their own arcs rather than taken off the capacities: segment
// arc j → j+1 carries s_j = segCap_j − load_j, and member i's arc
// lo_i → hi_i carries f_i blocks at cost −w_i per block; a fixed member's
// flow stays at its bound and its arc leaves the residual network. The
// two networks have the same optimal value (s_j ≤ segCap_j is implied by
// f ≥ 0, so the bound of segment arcs is never binding).
type lineFlow struct {
	m *component
	w []int64 // per member, −(its arc's cost per block); 0: no arc (the member is never served by the LP)
	// the state: fixings, flows of the members and of the segments
	// (blocks), potentials (cost units), excesses (supply − (outflow −
	// inflow), blocks)
	fix  []int8
	f, s []int64
	pi   []int64
	ex   []int64
	// members by first and last node: byLo[loStart[v]:loStart[v+1]]
	// start at node v, byHi[hiStart[v]:hiStart[v+1]] end there
	byLo, loStart, byHi, hiStart []int32
	// Dijkstra's scratch
	dist []int64
	prev []int32 // per node, the arc that reached it (4·k + segFwd … memBack, −1: a source)
	seen []int32 // per node, the pass that reached it
	pass int32
	heap []heapEntry
	// the distance being settled, and the nodes settled at it whose
	// arcs are still to scan
	level int64
	zero  []int32
	// valid: the state is an optimal flow for its fixings
	valid bool
	// big: some demand exceeds an int32, so snapshots keep int64 flows
	big bool
}

// flowState is a snapshot of a lineFlow's valid state: its fixings, the
// members' flows (blocks; as int32 when every demand fits, which halves
// the snapshots the best-first search keeps, else as int64) and the
// nodes' potentials (cost units); the segments' flows follow from the
// members'.
type flowState struct {
	fix  []int8
	f    []int32
	fBig []int64
	pi   []int64
}

// stateBytes is the size of every snapshot of lf.
func (lf *lineFlow) stateBytes() int {
	per := 4
	if lf.big {
		per = 8
	}
	return len(lf.fix) + per*len(lf.f) + 8*len(lf.pi)
}

// save sets st to the state, which must be valid (and balanced).
func (lf *lineFlow) save(st *flowState) {
	st.fix = append(st.fix[:0], lf.fix...)
	st.f, st.fBig = st.f[:0], st.fBig[:0]
	if lf.big {
		st.fBig = append(st.fBig, lf.f...)
	} else {
		for _, x := range lf.f {
			st.f = append(st.f, int32(x))
		}
	}
	st.pi = append(st.pi[:0], lf.pi...)
}

// load sets the state to st, saved from a valid state of the same lineFlow.
func (lf *lineFlow) load(st *flowState) {
	copy(lf.fix, st.fix)
	if lf.big {
		copy(lf.f, st.fBig)
	} else {
		for i, x := range st.f {
			lf.f[i] = int64(x)
		}
	}
	copy(lf.pi, st.pi)
	clear(lf.ex)
	lf.segments() // a saved state overfills no segment
	lf.valid = true
}

// newLineFlow returns the warm LP of m's members at costs −w per block
// (w ≤ 0: no arc), with no state yet.
func newLineFlow(m *component, w []int64) *lineFlow {
	n, nodes := len(m.members), len(m.segCap)+1
	lf := &lineFlow{m: m, w: w, ex: make([]int64, nodes),
		dist: make([]int64, nodes), prev: make([]int32, nodes), seen: make([]int32, nodes)}
	lf.fix, lf.f = make([]int8, n), make([]int64, n)
	lf.s, lf.pi = make([]int64, nodes-1), make([]int64, nodes)
	lf.byLo, lf.loStart = membersBy(m.lo, nodes)
	lf.byHi, lf.hiStart = membersBy(m.hi, nodes)
	lf.big = len(m.d) > 0 && slices.Max(m.d) > math.MaxInt32
	return lf
}

// membersBy groups members by node (at[i] for member i): the members at
// node v are by[start[v]:start[v+1]].
func membersBy(at []int32, nodes int) (by, start []int32) {
	start = make([]int32, nodes+1)
	for _, v := range at {
		start[v+1]++
	}
	for v := range nodes {
		start[v+1] += start[v]
	}
	by = make([]int32, len(at))
	next := slices.Clone(start[:nodes])
	for i, v := range at {
		by[next[v]] = int32(i)
		next[v]++
	}
	return by, start
}

// arc reports whether member i has an arc in the residual network: free,
// of positive weight.
func (lf *lineFlow) arc(i int32) bool { return lf.fix[i] == 0 && lf.w[i] > 0 }

// extends reports whether fix holds every fixing of the state (so that
// the state can be carried to fix by moving flows only).
func (lf *lineFlow) extends(fix []int8) bool {
	for i, v := range lf.fix {
		if v != 0 && fix[i] != v {
			return false
		}
	}
	return true
}

// setFlows sets the state to fixings fix and member flows f (fixed
// members at their bounds, the others within them), balanced, with the
// segments' flows that f leaves and potentials from Bellman–Ford.
func (lf *lineFlow) setFlows(fix []int8, f []int64) error {
	copy(lf.fix, fix)
	copy(lf.f, f)
	clear(lf.ex)
	if !lf.segments() {
		lf.valid = false
		return errInfeasible
	}
	return lf.potentials()
}

// segments sets the segments' flows to what the members' leave of the
// capacities; false when a segment is overfilled.
func (lf *lineFlow) segments() bool {
	m := lf.m
	clear(lf.s)
	for i, x := range lf.f {
		if x == 0 {
			continue
		}
		lf.s[m.lo[i]] -= x
		if h := m.hi[i]; int(h) < len(lf.s) {
			lf.s[h] += x
		}
	}
	ok := true
	var load int64
	for j, dl := range lf.s {
		load -= dl
		lf.s[j] = m.segCap[j] - load
		ok = ok && lf.s[j] >= 0
	}
	return ok
}

// potentials sets π from shortest distances over the residual network of
// the (balanced, optimal) state.
func (lf *lineFlow) potentials() error {
	m := lf.m
	var res []rarc
	for j, s := range lf.s {
		if s < m.segCap[j] {
			res = append(res, rarc{int32(j), int32(j + 1), 0})
		}
		if s > 0 {
			res = append(res, rarc{int32(j + 1), int32(j), 0})
		}
	}
	for i := range lf.f {
		if !lf.arc(int32(i)) {
			continue
		}
		if lf.f[i] < m.d[i] {
			res = append(res, rarc{m.lo[i], m.hi[i], -lf.w[i]})
		}
		if lf.f[i] > 0 {
			res = append(res, rarc{m.hi[i], m.lo[i], lf.w[i]})
		}
	}
	pi, err := residualPotentials(len(lf.pi), res)
	if err != nil {
		lf.valid = false
		return err
	}
	copy(lf.pi, pi)
	lf.valid = true
	return nil
}

// solve makes the state an optimal flow for fixings fix: carried from
// the current state when that is valid and fix extends its fixings,
// solved from scratch otherwise. errInfeasible reports that the fixed-in
// members overfill a segment; the state is then invalid.
func (lf *lineFlow) solve(ctx context.Context, fix []int8) error {
	if lf.valid && lf.extends(fix) {
		return lf.carry(ctx, fix)
	}
	return lf.cold(ctx, fix)
}

// cold solves from scratch: lineNetwork's flow under the capacities the
// fixed-in members leave, by the network simplex.
func (lf *lineFlow) cold(ctx context.Context, fix []int8) error {
	m := lf.m
	lf.valid = false
	caps, err := m.residualCaps(fix)
	if err != nil {
		return err
	}
	g := lineNetwork(caps)
	var arcs []int32
	for i, v := range fix {
		lf.f[i] = 0
		if v == 1 {
			lf.f[i] = m.d[i]
		}
		if v == 0 && lf.w[i] > 0 {
			arcs = append(arcs, int32(i))
			g.AddArc(int(m.lo[i]), int(m.hi[i]), m.d[i], -lf.w[i])
		}
	}
	if len(arcs) > 0 {
		flow, _, err := g.Solve(ctx, mcf.NetworkSimplex)
		if err != nil {
			return fmt.Errorf("slo: a line's flow LP: %w", err)
		}
		for k, i := range arcs {
			lf.f[i] = flow[len(caps)+k]
		}
	}
	return lf.setFlows(fix, lf.f)
}

// carry moves the valid state to fixings fix, a superset of its own:
// each newly fixed member's flow goes to its bound, and successive
// shortest paths restore balance. errInfeasible reports that fix leaves
// no feasible flow; the state is then invalid.
func (lf *lineFlow) carry(ctx context.Context, fix []int8) error {
	m := lf.m
	for i, v := range fix {
		if v == 0 || lf.fix[i] == v {
			continue
		}
		lf.fix[i] = v
		to := int64(0)
		if v == 1 {
			to = m.d[i]
		}
		if dl := to - lf.f[i]; dl != 0 {
			lf.f[i] = to
			lf.ex[m.lo[i]] -= dl
			lf.ex[m.hi[i]] += dl
		}
	}
	var left int64 // excess still to route
	for _, e := range lf.ex {
		left += max(e, 0)
	}
	for steps := 0; left > 0; steps++ {
		if steps%64 == 63 && ctx.Err() != nil {
			lf.valid = false
			return ctx.Err()
		}
		sent, err := lf.augment()
		if err != nil {
			lf.valid = false
			return err
		}
		left -= sent
	}
	if lf.piRange() > maxPotential {
		// keep the potentials' sums far within int64: restart them from
		// shortest distances
		return lf.potentials()
	}
	return nil
}

// maxPotential bounds |π| after a carry; beyond it the potentials are
// recomputed. Costs per block stay below 2^44 (flowScale and
// flowShareBits), a path's below 2^54 over 2^10 arcs, so distances and
// reduced costs stay below 2^62.
const maxPotential = 1 << 58

// piRange is the largest |π|.
func (lf *lineFlow) piRange() int64 {
	var r int64
	for _, p := range lf.pi {
		r = max(r, abs64(p))
	}
	return r
}

// Arc codes of prev: 4·k + kind, kind 0: segment k forward (k → k+1),
// 1: segment k backward (k+1 → k), 2: member k forward (lo → hi), 3:
// member k backward (hi → lo).
const (
	segFwd = iota
	segBack
	memFwd
	memBack
)

// augment sends flow along one shortest path (reduced costs) from a node
// with excess to one short of flow, as much as the path, the excess and
// the shortage allow, and updates the potentials so that every residual
// arc keeps a reduced cost ≥ 0. It returns the blocks sent, or
// errInfeasible when no short node is reachable.
func (lf *lineFlow) augment() (int64, error) {
	m := lf.m
	lf.pass++
	lf.heap = lf.heap[:0]
	for v, e := range lf.ex {
		if e > 0 {
			lf.reach(int32(v), 0, -1)
		}
	}
	t := int32(-1)
	var D int64 // t's distance
search:
	for len(lf.heap) > 0 {
		u := lf.popMin()
		if u < 0 {
			continue
		}
		// u and every node its arcs of reduced cost 0 reach are at u's
		// distance: they settle without the heap (in an optimal flow
		// every arc residual both ways, such as a segment neither empty
		// nor full, has reduced cost 0, so these are most of the nodes)
		D = lf.dist[u]
		lf.level = D
		lf.dist[u] = -1 - D
		lf.zero = append(lf.zero[:0], u)
		for len(lf.zero) > 0 {
			u := lf.zero[len(lf.zero)-1]
			lf.zero = lf.zero[:len(lf.zero)-1]
			if lf.ex[u] < 0 {
				t = u
				break search
			}
			lf.scan(u, D)
		}
	}
	if t < 0 {
		return 0, errInfeasible
	}
	// the path's capacity
	amt := -lf.ex[t]
	v := t
	for lf.prev[v] >= 0 {
		c := lf.prev[v]
		k, kind := c/4, c%4
		var r int64
		switch kind {
		case segFwd:
			r, v = m.segCap[k]-lf.s[k], k
		case segBack:
			r, v = lf.s[k], k+1
		case memFwd:
			r, v = m.d[k]-lf.f[k], m.lo[k]
		case memBack:
			r, v = lf.f[k], m.hi[k]
		}
		amt = min(amt, r)
	}
	amt = min(amt, lf.ex[v])
	for w := t; lf.prev[w] >= 0; {
		c := lf.prev[w]
		k, kind := c/4, c%4
		switch kind {
		case segFwd:
			lf.s[k] += amt
			w = k
		case segBack:
			lf.s[k] -= amt
			w = k + 1
		case memFwd:
			lf.f[k] += amt
			w = m.lo[k]
		case memBack:
			lf.f[k] -= amt
			w = m.hi[k]
		}
	}
	lf.ex[v] -= amt
	lf.ex[t] += amt
	// π += min(dist, D): settled nodes by their distance, the rest by D
	for u := range lf.pi {
		d := D
		if lf.seen[u] == lf.pass {
			if x := lf.dist[u]; x < 0 {
				d = min(-1-x, D)
			}
		}
		lf.pi[u] += d
	}
	return amt, nil
}

// scan relaxes the residual arcs out of node u, settled at distance du.
func (lf *lineFlow) scan(u int32, du int64) {
	m := lf.m
	pu := lf.pi[u]
	if j := u; int(j) < len(lf.s) && lf.s[j] < m.segCap[j] {
		lf.relax(j+1, du+pu-lf.pi[j+1], 4*j+segFwd)
	}
	if j := u - 1; j >= 0 && lf.s[j] > 0 {
		lf.relax(j, du+pu-lf.pi[j], 4*j+segBack)
	}
	for _, i := range lf.byLo[lf.loStart[u]:lf.loStart[u+1]] {
		if lf.arc(i) && lf.f[i] < m.d[i] {
			v := m.hi[i]
			lf.relax(v, du-lf.w[i]+pu-lf.pi[v], 4*i+memFwd)
		}
	}
	for _, i := range lf.byHi[lf.hiStart[u]:lf.hiStart[u+1]] {
		if lf.arc(i) && lf.f[i] > 0 {
			v := m.lo[i]
			lf.relax(v, du+lf.w[i]+pu-lf.pi[v], 4*i+memBack)
		}
	}
}

// reach records node v at distance d through arc code c (−1: a source)
// and puts it on the heap.
func (lf *lineFlow) reach(v int32, d int64, c int32) {
	lf.seen[v] = lf.pass
	lf.dist[v] = d
	lf.prev[v] = c
	lf.push(v)
}

// relax reaches v at distance d through arc code c when that is nearer:
// settled at once, onto the zero stack, when d is the distance being
// settled (lf.level; the arc's reduced cost is 0), on the heap otherwise.
func (lf *lineFlow) relax(v int32, d int64, c int32) {
	if lf.seen[v] == lf.pass {
		if x := lf.dist[v]; x < 0 || d >= x {
			return
		}
	}
	if d == lf.level {
		lf.seen[v] = lf.pass
		lf.dist[v] = -1 - d
		lf.prev[v] = c
		lf.zero = append(lf.zero, v)
		return
	}
	lf.reach(v, d, c)
}

// heapEntry is a node on Dijkstra's heap with its distance when pushed.
type heapEntry struct {
	v   int32
	key int64
}

// push adds v at its current distance (lazily: popMin skips an entry
// whose distance is no longer v's). The heap is written out, as
// stretchFlow's is, rather than shared with it: a generic heap taking the
// order as a function was 6–8 % slower on BenchmarkMIPStretches (flow-167
// and flow-333, 2026-11-30), most of whose time is this Dijkstra.
func (lf *lineFlow) push(v int32) {
	h := append(lf.heap, heapEntry{v, lf.dist[v]})
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if h[p].key <= h[k].key {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
	lf.heap = h
}

// popMin removes the nearest entry and returns its node, or −1 when the
// entry is stale (its node settled or reached again nearer).
func (lf *lineFlow) popMin() int32 {
	h := lf.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].key < h[c].key {
			c++
		}
		if h[k].key <= h[c].key {
			break
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
	lf.heap = h
	if d := lf.dist[top.v]; d < 0 || d != top.key {
		return -1
	}
	return top.v
}
