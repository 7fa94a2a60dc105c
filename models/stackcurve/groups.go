package stackcurve

import "github.com/tailbound/tailbound/models/trace"

// group is a run of consecutive points, lo … hi−1 (in increasing order of
// capacity), whose caches end at the same conversation y, the boundary:
// each point caches the conversations ahead of y (more recent) whole, y's
// first capB − d blocks (1 … n_y of them, d the blocks of the
// conversations ahead of y), and nothing behind y. y is none for the
// points whose capacity exceeds every conversation's blocks together
// (nothing evicted yet; d is then those blocks, Σ n): a boundary behind
// the list's tail that never loses blocks. The boundary's place, and so
// the group, depends on the capacity only through capB ∈ (d, d + n_y],
// which is why points sharing one move together (the package doc,
// "Capacities that share a boundary move together").
type group struct {
	lo, hi int
	y      int32 // boundary conversation, or none
	last   int   // y's latest turn (e.convs[y].last), −1 for none
	d      int64 // blocks of the conversations ahead of y, Σ n for none
}

// run replays turns at every capacity of the engine.
func (e *engine) run(turns []trace.Turn) {
	K := len(e.points)
	for _, t := range turns {
		e.grow(t.Conv)
		c := int32(t.Conv)
		cs := &e.convs[c]
		h := cs.hist
		nOld := cs.n
		cs.hist = h + t.Prompt + t.Response
		nNew := cs.hist / e.block
		d := h + t.Prompt
		e.charge(d)
		if nNew == 0 {
			// c holds no block before or after (nOld ≤ nNew): it caches
			// nothing at any point, and nothing moves.
			clear(e.xb)
			e.sums(h, d, nOld, K, K, 0, false)
			e.histogram(d, nOld, K, K, 0, false)
			continue
		}
		in := nOld > 0 // c is in the list
		lastC := cs.last
		var pc int32 = none // c's more recent neighbour before the turn
		if in {
			pc = cs.prev
			e.unlink(c) // the rest of the list, S' of the package doc
		}
		lo, hi := e.move(c, pc, in, lastC, nOld, nNew, t.Index)
		a, ok := e.middle(lo, hi)
		e.sums(h, d, nOld, lo, hi, a, ok)
		e.histogram(d, nOld, lo, hi, a, ok)
		e.convs[c].n = nNew
		e.convs[c].last = t.Index
		e.pushFront(c)
		e.blocks += nNew - nOld
	}
}

// move updates every group for a turn (index idx) of conversation c,
// already unlinked from the list if it was in it (pc its more recent
// neighbour, lastC its previous turn), whose whole blocks go from nOld to
// nNew > 0. It returns lo and hi: the points 0 … lo−1 cached nothing of c
// and hi … K−1 all nOld blocks; e.xb holds c's cached blocks at the points
// lo … hi−1, and at every point when the sums are not exact.
//
// A group whose boundary y is ahead of c (or c was in no cache) sees nNew
// more blocks ahead of y, one behind y but ahead of c nNew − nOld more;
// its points whose capacity that reaches walk towards the front (shift).
// The group whose boundary is c caches capB − d blocks of it, and every
// point of it walks from c's neighbour (its new boundary is c if
// capB ≤ nNew). Evictions count the conversations that lose blocks at a
// point: y when it lost some, each conversation a walk passes, and the one
// it stops at unless its capacity ends exactly there.
func (e *engine) move(c, pc int32, in bool, lastC int, nOld, nNew int64, idx int) (lo, hi int) {
	K := len(e.points)
	lo, hi = K, K
	all := !e.exact
	if all {
		clear(e.xb)
	}
	e.addMin(nNew)
	// The groups are rewritten in place (emit), each at or before its
	// own slot, until a walk splits one into more groups than there is room
	// for; from there on into e.next.
	e.w, e.copying = 0, false
	for gi := range e.groups {
		e.limit = gi + 1
		// The fields are read one by one, not the group copied: a wide
		// copy of a slot just written field by field (below) stalls.
		gp := &e.groups[gi]
		a, y := gp.lo, gp.y
		var delta int64 // blocks added ahead of the boundary
		switch {
		case gp.hi != a+1: // more than one point
			lo, hi = e.many(gi, c, pc, in, lastC, nOld, nNew, idx, lo, hi)
			continue
		case !in || gp.last > lastC: // c behind the boundary: nothing of it cached
			delta = nNew
		case y != c: // c ahead of the boundary: cached whole
			lo, hi = min(lo, a), min(hi, a)
			e.cst[a] -= nOld
			e.cst[a+1] += nOld
			if all {
				e.xb[a] = nOld
			}
			delta = nNew - nOld
		default:
			lo, hi = e.many(gi, c, pc, in, lastC, nOld, nNew, idx, lo, hi)
			continue
		}
		// One point (every group, when no two capacities share a
		// boundary): shift, walk and emit in place, with no group passed
		// or gathered. The point walks from the boundary as in walk's
		// one-point case if its capacity no longer exceeds the blocks
		// ahead of it, and its group is written at e.w (≤ gi: the slot
		// read), joined to the group before when that has landed on the
		// same boundary.
		last := gp.last
		d := gp.d + delta
		capB := e.capB[a]
		var passed int64 // the conversations losing blocks at the point
		if delta != 0 && y != none {
			passed = 1 // y, whether it stays the boundary or is passed
		}
		if capB > d && !e.copying && e.w == gi && (gi == 0 || e.groups[gi-1].y != y) {
			// No walk, nothing joined or moved before: the group stays
			// in its slot, only d changes.
			if passed != 0 {
				e.ev[a]++
				e.ev[a+1]--
			}
			gp.d = d
			e.w++
			continue
		}
		if capB <= d {
			z := e.tail // the sentinel's more recent neighbour
			if y != none {
				z = e.convs[y].prev
			}
			var dz int64
			if z == none {
				z = c
			} else {
				dz = d - e.convs[z].n
			}
			for capB <= dz {
				passed++
				z = e.convs[z].prev
				if z == none {
					z, dz = c, 0
				} else {
					dz -= e.convs[z].n
				}
			}
			if z == c {
				y, last, d = c, idx, 0
			} else {
				if capB < dz+e.convs[z].n {
					passed++
				}
				y, last, d = z, e.convs[z].last, dz
			}
		}
		if passed != 0 {
			e.ev[a] += passed
			e.ev[a+1] -= passed
		}
		if e.copying {
			e.emit(group{lo: a, hi: a + 1, y: y, last: last, d: d})
			continue
		}
		if w := e.w; w > 0 && e.groups[w-1].y == y && e.groups[w-1].hi == a {
			e.groups[w-1].hi = a + 1
			continue
		}
		// Field by field: a group built on the stack and copied here
		// costs a stalled load (its wide copy reads the narrower stores
		// just made).
		s := &e.groups[e.w]
		s.lo, s.hi, s.y, s.last, s.d = a, a+1, y, last, d
		e.w++
	}
	if e.copying {
		e.groups, e.next = e.next, e.groups
	} else {
		e.groups = e.groups[:e.w]
	}
	return lo, hi
}

// many is move for group gi of more than one point, or whose boundary is
// c; lo and hi are move's so far, returned updated.
func (e *engine) many(gi int, c, pc int32, in bool, lastC int, nOld, nNew int64, idx int, lo, hi int) (int, int) {
	g := e.groups[gi]
	switch {
	case !in || g.last > lastC: // c behind the boundary: nothing of it cached
		if !e.stay(gi, nNew) {
			e.shift(g, nNew, c, idx)
		}
	case g.y == c:
		lo = min(lo, g.lo)
		for i := g.lo; i < g.hi; i++ {
			e.xb[i] = e.capB[i] - g.d
		}
		j := g.hi // the points caching all nOld blocks: capB = d + nOld
		for j > g.lo && e.capB[j-1]-g.d >= nOld {
			j--
		}
		if j < g.hi {
			hi = min(hi, j)
		}
		// −xb = d − capB in the evicted blocks' sums
		e.cst[g.lo] += g.d
		e.cst[g.hi] -= g.d
		e.cf[g.lo]--
		e.cf[g.hi]++
		z, dz := pc, int64(0)
		if z == none {
			z = c
		} else {
			dz = g.d + nNew - e.convs[z].n
		}
		e.walk(g.lo, g.hi, z, dz, 0, c, idx)
	default: // c ahead of the boundary: cached whole
		lo, hi = min(lo, g.lo), min(hi, g.lo)
		e.cst[g.lo] -= nOld
		e.cst[g.hi] += nOld
		if !e.exact {
			for i := g.lo; i < g.hi; i++ {
				e.xb[i] = nOld
			}
		}
		if !e.stay(gi, nNew-nOld) {
			e.shift(g, nNew-nOld, c, idx)
		}
	}
	return lo, hi
}

// stay is shift's common case done in place: group gi, read at its own
// slot (nothing before it split or merged at the turn, e.w = gi), gets
// delta ≥ 0 blocks ahead of its boundary and no point of it walks (its
// least capacity still exceeds the blocks ahead of the boundary). Its
// boundary and points are unchanged, so it stays a group of its own
// unless the group written before it (which ends at its first point)
// has landed on the same boundary, which emit joins; stay reports false
// then, and whenever a point walks, and leaves the group to shift.
func (e *engine) stay(gi int, delta int64) bool {
	if e.copying || e.w != gi {
		return false
	}
	g := &e.groups[gi]
	d := g.d + delta
	if e.capB[g.lo] <= d || (gi > 0 && e.groups[gi-1].y == g.y) {
		return false
	}
	if delta != 0 && g.y != none {
		e.ev[g.lo]++ // y loses delta blocks at every point of the group
		e.ev[g.hi]--
	}
	g.d = d
	e.w = gi + 1
	return true
}

// shift adds delta ≥ 0 blocks ahead of group g's boundary: a point whose
// capacity is now at most the blocks ahead of it caches nothing of y any
// more and walks towards the front; the others stay at y, which (if a
// conversation) loses delta blocks at each, an eviction.
func (e *engine) shift(g group, delta int64, c int32, idx int) {
	if delta == 0 {
		e.emit(g)
		return
	}
	d := g.d + delta
	var lossY int64 // y, if a conversation, loses blocks at every point
	if g.y != none {
		lossY = 1
	}
	m := g.lo
	if e.capB[g.lo] <= d {
		m = above(e.capB, g.lo, g.hi, d)
		z := e.tail // the sentinel's more recent neighbour
		if g.y != none {
			z = e.convs[g.y].prev
		}
		var dz int64
		if z == none {
			z = c
		} else {
			dz = d - e.convs[z].n
		}
		e.walk(g.lo, m, z, dz, lossY, c, idx)
	}
	if m < g.hi {
		e.addEv(m, g.hi, lossY)
		g.lo, g.d = m, d
		e.emit(g)
	}
}

// walk moves the points a … b−1 to their new boundaries, conversation z
// (dz blocks ahead of it after the turn) or one ahead of it; each point
// has capB ≤ dz + n_z (n_c being nNew once c is at the front). A point
// stops at the first conversation with dz < capB: it lost every
// conversation passed before, and the one it stops at unless capB =
// dz + n_z or it is c (whose blocks only grow). The groups landed on are
// emitted in order of the points.
func (e *engine) walk(a, b int, z int32, dz, passed int64, c int32, idx int) {
	if b == a+1 { // one point: no landings to gather
		capB := e.capB[a]
		for capB <= dz {
			passed++
			z = e.convs[z].prev
			if z == none {
				z, dz = c, 0
			} else {
				dz -= e.convs[z].n
			}
		}
		if z == c {
			e.addEv(a, b, passed)
			e.emit(group{lo: a, hi: b, y: c, last: idx})
			return
		}
		if capB < dz+e.convs[z].n {
			passed++
		}
		e.addEv(a, b, passed)
		e.emit(group{lo: a, hi: b, y: z, last: e.convs[z].last, d: dz})
		return
	}
	land := e.land[:0]
	top := b
	for {
		bot := above(e.capB, a, top, dz)
		if bot < top {
			if z == c {
				e.addEv(bot, top, passed)
				land = append(land, group{lo: bot, hi: top, y: c, last: idx})
			} else {
				whole := top // the points whose capacity ends at z's last block
				for whole > bot && e.capB[whole-1] == dz+e.convs[z].n {
					whole--
				}
				e.addEv(bot, whole, passed+1)
				e.addEv(whole, top, passed)
				land = append(land, group{lo: bot, hi: top, y: z, last: e.convs[z].last, d: dz})
			}
			top = bot
		}
		if top == a {
			break
		}
		passed++
		z = e.convs[z].prev
		if z == none {
			z, dz = c, 0
		} else {
			dz -= e.convs[z].n
		}
	}
	for i := len(land) - 1; i >= 0; i-- {
		e.emit(land[i])
	}
	e.land = land
}

// above returns the first i in lo … hi−1 with caps[i] > v (hi if none);
// caps is in increasing order.
func above(caps []int64, lo, hi int, v int64) int {
	if lo < hi && caps[lo] > v {
		return lo
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if caps[m] > v {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// emit appends g to the groups after the turn, joined to the last one if
// it has the same boundary: in place, at e.groups[e.w], while that slot
// has been read (e.w < e.limit, the groups read so far), else in e.next.
func (e *engine) emit(g group) {
	if e.copying {
		if n := len(e.next); n > 0 && e.next[n-1].y == g.y && e.next[n-1].hi == g.lo {
			e.next[n-1].hi = g.hi
			return
		}
		e.next = append(e.next, g)
		return
	}
	if w := e.w; w > 0 && e.groups[w-1].y == g.y && e.groups[w-1].hi == g.lo {
		e.groups[w-1].hi = g.hi
		return
	}
	if e.w < e.limit {
		e.groups[e.w] = g
		e.w++
		return
	}
	e.copying = true
	e.next = append(append(e.next[:0], e.groups[:e.w]...), g)
}

// addEv adds v evictions to the points a … b−1.
func (e *engine) addEv(a, b int, v int64) {
	if a < b && v != 0 {
		e.ev[a] += v
		e.ev[b] -= v
	}
}

// addMin adds min(n, capB) blocks, those c keeps at each point, to the
// evicted blocks' sums.
func (e *engine) addMin(n int64) {
	K := len(e.capB)
	j := 0 // the points with capB < n keep capB blocks
	if K > 0 && e.capB[0] < n {
		j = above(e.capB, 1, K, n-1) // capB ≥ n: above n − 1, point 0 not
		e.cf[0]++
		e.cf[j]--
	}
	e.cst[j] += n
}

// giveEvictions sets each point's evictions and evicted blocks from the
// difference arrays: a turn brings min(n'_c, capB) − xb blocks into a
// point's cache, and what has come in and not been evicted is what the
// cache holds at the end, min(capB, Σ n) (the package doc's claim).
func (e *engine) giveEvictions() {
	var ev, cst, cf int64
	for k := range e.points {
		ev += e.ev[k]
		cst += e.cst[k]
		cf += e.cf[k]
		p := &e.points[k]
		p.evictions = ev
		p.evictedBlocks = cst + cf*p.capB - min(p.capB, e.blocks)
	}
}
