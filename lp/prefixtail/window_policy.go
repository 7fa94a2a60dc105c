package prefixtail

import (
	"math"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// lookPolicy is rule Guided with a bounded lookahead (package comment,
// "Bounded lookahead"), keeping its keys per cache slot (CachedOnly), so
// that they follow the cache, not the trace's blocks. While the replay
// serves window w, of horizon hz, a block last accessed at t with next
// use nx ranks
//
//   - (−∞, t·2³² + id) when nx ≥ hz or there is none: as a block never
//     used again, the least recently accessed first (then the lower id);
//     with the whole run's lookahead (−∞, id), as rule Guided ranks it;
//   - (+∞, id) when nx = t + 1 (a constant interval: hit whatever);
//   - (x, −nx·2³² + id) otherwise, x = 1 when the interval (t, nx) is a
//     column of the program before hz and carries one of flags, else 0;
//
// smallest evicted first. A key is set when its block is accessed, and a
// cached block's "unknown" key is re-set when a window's horizon reaches
// its next use (reveal), so that at every request the ranks are what the
// next uses before the current horizon say. Block ids and next uses are
// below 2³¹, so among known next uses the order is rule Guided's (keys
// (x, −nx), ties by id), and the slots never decide. Among blocks never
// used again the order differs from rule Guided's (ties by id alone), but
// no hit depends on it: those blocks rank below every other, their
// descendants are never used again either, so whichever of them goes,
// the blocks used again that stay cached and the count of the others are
// the same; with hz = n this is rule Guided's replay, hit for hit.
//
// A shard's run adds its joins (package comment, "Joins" and "One
// engine"): over the replay's first startN requests a block accessed
// ranks by the start join's rule on its problem (its key (P, T) as
// (P, T'·2³² + id), T' = T − a when T = −nx is a next use numbered from
// the join's first request a, else 0, so that it ranks among rule
// Guided's keys as before the one engine, with ties by id); while the end
// join's replay (sigma) holds a block, the block ranks above every other
// (pinned), and evicting it is an error (broken).
type lookPolicy struct {
	lr     *lookRun
	flags  uint8
	hz     int
	start  *ranked
	sigma  *prefixcache.Cache
	broken bool
	keys   []prefixcache.Key
	ids    []prefixcache.BlockID // the block in each slot
	// slot finds a cached block's slot, kept (slots) only when a block is
	// re-ranked by id: by reveal (a bounded lookahead) or the end join.
	slots bool
	slot  map[prefixcache.BlockID]int32
	order prefixcache.Order
}

// CachedOnly marks the policy as naming blocks by slot.
func (*lookPolicy) CachedOnly() {}

func (p *lookPolicy) Access(q *prefixcache.Req, slot prefixcache.BlockID, depth int, _ bool) {
	if int(slot) >= len(p.keys) {
		p.keys = append(p.keys, make([]prefixcache.Key, int(slot)+1-len(p.keys))...)
		p.ids = append(p.ids, make([]prefixcache.BlockID, int(slot)+1-len(p.ids))...)
	}
	id := q.Blocks[depth]
	p.ids[slot] = id
	if p.slots {
		p.slot[id] = slot
	}
	p.keys[slot] = p.key(q.Index, depth, id)
}

// key ranks the block id at depth d of request t.
func (p *lookPolicy) key(t, d int, id prefixcache.BlockID) prefixcache.Key {
	lr := p.lr
	if p.start != nil && t < lr.a+lr.startN {
		k := p.start.key(t-lr.a, d)
		if k.T != 0 { // −nx, the next use in the join's numbering: the trace's is a further
			k.T -= int64(lr.a)
		}
		return prefixcache.Key{P: k.P, T: k.T<<32 + int64(id)}
	}
	nx := int(lr.next[lr.ref(t, d)])
	switch {
	case (nx < 0 || nx >= p.hz) && lr.h == 0:
		return prefixcache.Key{P: math.Inf(-1), T: int64(id)}
	case nx < 0 || nx >= p.hz:
		return prefixcache.Key{P: math.Inf(-1), T: int64(t)<<32 + int64(id)}
	case nx == t+1:
		return prefixcache.Key{P: math.Inf(1), T: int64(id)}
	}
	return p.known(nx, d, id)
}

// known is the key of block id at depth d whose next use nx is known.
func (p *lookPolicy) known(nx, d int, id prefixcache.BlockID) prefixcache.Key {
	lr := p.lr
	x := 0.0
	if lr.column(nx, d) && lr.kept[lr.ref(nx, d)]&p.flags != 0 {
		x = 1
	}
	return prefixcache.Key{P: x, T: -int64(nx)<<32 + int64(id)}
}

// rank is the key of the block in slot now: pinned while the end join's
// replay holds it.
func (p *lookPolicy) rank(slot prefixcache.BlockID) prefixcache.Key {
	if p.sigma != nil && p.sigma.Cached(p.ids[slot]) {
		return pinned()
	}
	return p.keys[slot]
}

// reveal re-ranks block id, at depth d, when it is cached: its next use
// r (before the horizon now) was past the horizon when it was last
// accessed, before the window.
func (p *lookPolicy) reveal(id prefixcache.BlockID, r, d int) {
	s, ok := p.slot[id]
	if !ok {
		return
	}
	p.keys[s] = p.known(r, d, id)
	if p.order.Contains(s) {
		p.order.Push(s, p.rank(s))
	}
}

func (p *lookPolicy) Evictable(slot prefixcache.BlockID, on bool) {
	if on {
		p.order.Push(slot, p.rank(slot))
		return
	}
	p.order.Remove(slot)
}

func (p *lookPolicy) Victim() prefixcache.BlockID {
	v := p.order.Pop()
	if v >= 0 {
		if p.sigma != nil && p.sigma.Cached(p.ids[v]) {
			p.broken = true
		}
		delete(p.slot, p.ids[v])
	}
	return v
}

// held re-ranks the blocks of a chain the end join's replay has just
// served (it holds them all now).
func (p *lookPolicy) held(chain []prefixcache.BlockID) {
	for _, id := range chain {
		if s, ok := p.slot[id]; ok && p.order.Contains(s) {
			p.order.Push(s, pinned())
		}
	}
}

// released re-ranks a block the end join's replay has evicted.
func (p *lookPolicy) released(id prefixcache.BlockID) {
	if s, ok := p.slot[id]; ok && p.order.Contains(s) {
		p.order.Push(s, p.keys[s])
	}
}
