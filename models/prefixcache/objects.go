package prefixcache

import (
	"fmt"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"
)

// Object mode: a cache that serves an object trace (libCacheSim's
// oracleGeneral and csv traces: every request one block, no chain, named
// by its object id) keyed by the object id itself, so that the blocks need
// no numbering by an Interner. On a stream of single blocks from many
// objects the numbering was a lookup in a table of every object seen, one
// memory access the processor waits for per request, about as much as the
// cache's own work (docs/speed.md); a cache keyed by the object holds only
// the objects it caches.
//
// The cache runs any CachedOnly policy so (ServesObjects), making the
// same calls in the same order as Serve makes for a request of one block
// whose block is a root (serveSingle), with slots given out in the same
// order: the policy cannot tell the two modes apart, and the hits and
// victims are the same (TestObjectModeEqualsGeneral). A cache serves
// objects or chains, not both.

// ServesObjects reports whether a cache under p can serve objects
// (ServeObject): p names blocks by slot (CachedOnly), so that it needs no
// block ids, and it is not an Engine, which has rules of its own.
func ServesObjects(p Policy) bool {
	_, slotted := p.(CachedOnly)
	_, engine := p.(Engine)
	return slotted && !engine
}

// ServeObject serves r, a request of one block that is object key, and
// returns its hit in blocks (0 or 1); r.Blocks is not read. The policy
// must be one that ServesObjects, and the cache must not serve chains
// (Serve).
func (c *Cache) ServeObject(r *Req, key int64) (int, error) {
	if !c.slotted || c.engine != nil {
		return 0, fmt.Errorf("request %d: the policy does not serve objects (it keeps block ids)", r.Index)
	}
	if c.used > 0 && !c.objectMode() {
		return 0, fmt.Errorf("request %d: a cache of chains cannot serve objects", r.Index)
	}
	if c.lru != nil { // LRU has no observer and no checker
		if c.olru == nil {
			c.olru = newObjectLRU()
		}
		return c.olru.serve(c, key), nil
	}
	if c.observer != nil {
		c.observer.Observe(r)
	}
	if s := c.objTable.find(key, c.objs); s >= 0 {
		c.policy.Evictable(s, false) // an object is always a leaf
		c.pin = s
		c.policy.Access(r, s, 0, true)
		c.pin = -1
		c.policy.Evictable(s, true)
		return 1, c.checked(r)
	}
	for c.used >= c.capacity {
		v := c.victim()
		if v < 0 {
			return 0, c.checked(r) // nothing evictable: the object is not admitted
		}
		if err := c.evictObject(v); err != nil {
			return 0, fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	s := int32(len(c.objs))
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		c.objs = append(c.objs, 0)
	}
	c.objs[s] = key
	c.objTable.add(key, s)
	c.used++
	c.policy.Access(r, s, 0, false)
	c.policy.Evictable(s, true)
	return 0, c.checked(r)
}

// evictObject evicts the object in slot v, the policy's victim. A slot
// holds its last object's key after that object is evicted: v is cached
// when the table holds its key there.
func (c *Cache) evictObject(v BlockID) error {
	if v < 0 || int(v) >= len(c.objs) || v == c.pin || !c.objTable.remove(c.objs[v], v) {
		return fmt.Errorf("policy chose block %d, which is not an evictable leaf", v)
	}
	c.free = append(c.free, v)
	c.used--
	c.evictions++
	if c.onEvictObject != nil {
		c.onEvictObject(c.objs[v])
	}
	return nil
}

// objectMode reports whether the cache has served objects (ServeObject).
func (c *Cache) objectMode() bool { return c.objs != nil || c.olru != nil }

// TouchObject is Touch for object key (ServeObject).
func (c *Cache) TouchObject(key int64) {
	if c.olru != nil {
		c.olru.touch(key)
		return
	}
	if t := &c.objTable; t.n > 0 {
		prefetch.Line(unsafe.Pointer(&t.e[t.home(fingerprint(key))]))
	}
}

// CachedObject reports whether object key is cached (ServeObject).
func (c *Cache) CachedObject(key int64) bool {
	if c.olru != nil {
		return c.olru.find(key) != 0
	}
	return c.objTable.find(key, c.objs) >= 0
}

// OnEvictObject sets f to be called with the key of every object evicted
// from now on (ServeObject); nil: none.
func (c *Cache) OnEvictObject(f func(key int64)) { c.onEvictObject = f }

// checkObjects is Check for a cache of objects: the count of cached
// objects, and that the table finds every cached object in its slot and
// nothing else.
func (c *Cache) checkObjects() error {
	if c.olru != nil {
		return c.olru.check(c)
	}
	free := make([]bool, len(c.objs))
	for _, s := range c.free {
		if free[s] {
			return fmt.Errorf("prefix cache: slot %d is free twice", s)
		}
		free[s] = true
	}
	used := 0
	for s, key := range c.objs {
		if free[s] {
			continue
		}
		used++
		if got := c.objTable.find(key, c.objs); got != int32(s) {
			return fmt.Errorf("prefix cache: object %d is in slot %d, the table says %d", key, s, got)
		}
	}
	if used != c.used || used > c.capacity || c.objTable.n != used || len(c.objs)-used != len(c.free) {
		return fmt.Errorf("prefix cache: %d objects cached, %d counted, %d in the table, %d free slots of %d, capacity %d",
			used, c.used, c.objTable.n, len(c.free), len(c.objs), c.capacity)
	}
	return nil
}

// objTable maps the keys of the objects a cache holds to their slots:
// open addressing with linear probing, at most 3/4 full, backward-shift
// deletion (slotTable's scheme). An entry is 8 bytes, the slot and the
// high 32 bits of the key's hash (its fingerprint), not the key, so that
// the table of a cache of 20,000 objects is 256 KiB: the cache's slots
// hold the keys, read to confirm a fingerprint that matches. (Small, as
// the cache's other arrays: on a loaded machine the process finds little
// of its memory in the processor's caches after each pause, and what it
// fetches again grows with what it holds.) The home of
// an entry is the fingerprint's top bits, so the table is reorganised
// from the fingerprints alone (at most 2^32 entries, a capacity of 2^31
// slots).
type objTable struct {
	e     []objEntry
	n     int
	shift uint8 // 32 − log2(len(e))
}

type objEntry struct {
	fp    uint32 // the key's hash >> 32
	slot1 int32  // slot + 1; 0 marks an empty entry
}

// fingerprint is the high half of key's Fibonacci hash.
func fingerprint(key int64) uint32 { return uint32((uint64(key) * 0x9E3779B97F4A7C15) >> 32) }

// home is the first probe for a key of fingerprint fp.
func (t *objTable) home(fp uint32) int { return int(fp >> t.shift) }

// find returns the slot of key, or -1 when key is not in the table; objs
// holds the keys by slot.
func (t *objTable) find(key int64, objs []int64) int32 {
	if t.n == 0 {
		return -1
	}
	fp := fingerprint(key)
	mask := len(t.e) - 1
	for i := t.home(fp); ; i = (i + 1) & mask {
		e := t.e[i]
		if e.slot1 == 0 {
			return -1
		}
		if e.fp == fp && objs[e.slot1-1] == key {
			return e.slot1 - 1
		}
	}
}

// add stores slot for key, which is not in the table.
func (t *objTable) add(key int64, slot int32) {
	if 4*(t.n+1) > 3*len(t.e) {
		t.resize()
	}
	fp := fingerprint(key)
	mask := len(t.e) - 1
	i := t.home(fp)
	for t.e[i].slot1 != 0 {
		i = (i + 1) & mask
	}
	t.e[i] = objEntry{fp: fp, slot1: slot + 1}
	t.n++
}

// remove deletes the entry of key in slot, shifting the entries after it
// in its probe run back (see slotTable.remove), and reports true; or
// reports false, changing nothing, when the table does not hold key in
// slot.
func (t *objTable) remove(key int64, slot int32) bool {
	if t.n == 0 {
		return false
	}
	mask := len(t.e) - 1
	i := t.home(fingerprint(key))
	for t.e[i].slot1 != slot+1 {
		if t.e[i].slot1 == 0 {
			return false
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.e[j].slot1 != 0; j = (j + 1) & mask {
		h := t.home(t.e[j].fp)
		if (j-h)&mask < (j-i)&mask {
			continue
		}
		t.e[i] = t.e[j]
		i = j
	}
	t.e[i] = objEntry{}
	t.n--
	return true
}

func (t *objTable) resize() {
	old := t.e
	size := max(64, 2*len(old))
	t.e = make([]objEntry, size)
	t.shift = uint8(32 - log2(size))
	mask := size - 1
	for _, e := range old {
		if e.slot1 == 0 {
			continue
		}
		i := t.home(e.fp)
		for t.e[i].slot1 != 0 {
			i = (i + 1) & mask
		}
		t.e[i] = e
	}
}
