package prefixcache

import (
	"fmt"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"

	"github.com/tailbound/tailbound/models/instance"
)

// Cache is one prefix cache of a fixed number of blocks under one policy.
// Serve looks a request up and admits its chain; the cache enforces the
// orphan-free rule (see the package documentation) and checks the policy's
// victims against it.
//
// Its memory follows the number of blocks it holds, not the trace: each
// cached block has a slot (a dense number below the capacity in blocks,
// reused after an eviction), found from its BlockID through a table of the
// cached blocks, and the cache's arrays are indexed by slot. Policies that
// keep state for cached blocks only (CachedOnly) are told slots too.
type Cache struct {
	capacity  int
	used      int
	nodes     []node    // by slot
	ids       []BlockID // ids[slot] is the block held in slot
	free      []int32   // slots whose blocks were evicted
	table     slotTable // BlockID → slot, cached blocks only
	chain     []int32   // the slots of the request's cached chain (scratch)
	slotted   bool      // the policy is told slots (CachedOnly)
	policy    Policy
	engine    Engine // the policy when it is a whole cache (engine.go)
	block     int64  // block size, tokens
	observer  Observer
	checker   Checker
	pin       int32 // slot of the pinned block, -1 when none
	evictions int64
	onEvict   func(BlockID)
	// lru is the policy when it is LRU itself (IsLRU), so that serveSingle
	// calls it directly: most of a single-block request's cost was the
	// calls through the Policy interface.
	lru *lru
	// general turns serveSingle off (tests compare the two paths).
	general bool
	// objs, objTable and onEvictObject are the object mode's slots, table
	// and eviction callback (objects.go); objs is nil in the chain mode.
	objs          []int64 // the key of the object in each slot
	objTable      objTable
	onEvictObject func(key int64)
	// olru is the object mode under LRU itself (objectlru.go), which
	// keeps its own slots and table; nil otherwise.
	olru *objectLRU
}

type node struct {
	kids   int32 // cached children
	parent int32 // slot of the parent, -1 for a chain's first block
	cached bool
}

// New returns an empty cache of capacity tokens, in blocks of block
// tokens, under p. The capacity must be a whole number of blocks, ≥ 0.
func New(capacity, block int64, p Policy) (*Cache, error) {
	if err := (instance.Params{Capacity: capacity, BlockSize: block}).Validate(); err != nil {
		return nil, fmt.Errorf("prefix cache: %w", err)
	}
	c := &Cache{capacity: int(capacity / block), policy: p, pin: -1, block: block}
	c.engine, _ = p.(Engine)
	c.observer, _ = p.(Observer)
	c.checker, _ = p.(Checker)
	_, c.slotted = p.(CachedOnly)
	c.lru, _ = p.(*lru)
	return c, nil
}

// Capacity returns the cache size in blocks.
func (c *Cache) Capacity() int { return c.capacity }

// Len returns the number of cached blocks.
func (c *Cache) Len() int {
	if c.engine != nil {
		return c.engine.Len()
	}
	return c.used
}

// Evictions returns the number of blocks evicted so far.
func (c *Cache) Evictions() int64 {
	if c.engine != nil {
		return c.engine.Evictions()
	}
	return c.evictions
}

// OnEvict sets f to be called with the id of every block evicted from now
// on, after the cache has let it go (a Forgetter's Forget); nil: none.
func (c *Cache) OnEvict(f func(BlockID)) { c.onEvict = f }

// Cached reports whether block id is cached.
func (c *Cache) Cached(id BlockID) bool { return id >= 0 && c.table.find(id) >= 0 }

// Parent returns the parent of a cached block (-1 for a chain's first
// block).
func (c *Cache) Parent(id BlockID) BlockID {
	if p := c.nodes[c.table.find(id)].parent; p >= 0 {
		return c.ids[p]
	}
	return -1
}

// Children returns the number of cached children of a cached block.
func (c *Cache) Children(id BlockID) int { return int(c.nodes[c.table.find(id)].kids) }

// name is how the policy knows the block in slot s.
func (c *Cache) name(s int32) BlockID {
	if c.slotted {
		return s
	}
	return c.ids[s]
}

// Serve serves request r: it returns the number of leading blocks of its
// chain that were cached (the hit, in blocks), then admits the rest of the
// chain, evicting the policy's victims to make room. When even evicting
// every evictable block leaves too little room, only the part of the
// chain that fits is admitted (the chain is cut at the first block that
// does not fit). r.Blocks must be a chain numbered by an Interner. Under
// an Engine the engine serves r by its own rules (engine.go); Cached,
// Parent and Children then know nothing of its blocks.
func (c *Cache) Serve(r *Req) (int, error) {
	if c.engine != nil {
		k, _, err := c.serveEngine(r)
		return k, err
	}
	if c.objectMode() {
		return 0, fmt.Errorf("request %d: a cache of objects cannot serve chains", r.Index)
	}
	if len(r.Blocks) == 1 && !c.general {
		return c.serveSingle(r)
	}
	if c.observer != nil {
		c.observer.Observe(r)
	}
	bs := r.Blocks
	c.chain = c.chain[:0]
	for _, id := range bs {
		s := c.table.find(id)
		if s < 0 {
			break
		}
		c.chain = append(c.chain, s)
	}
	k := len(c.chain)
	if k > 0 {
		t := c.chain[k-1]
		if c.nodes[t].kids == 0 {
			c.policy.Evictable(c.name(t), false)
		}
		c.pin = t
	}
	for i, s := range c.chain {
		c.policy.Access(r, c.name(s), i, true)
	}
	need := len(bs) - k
	for need > c.capacity-c.used {
		v := c.policy.Victim()
		if v < 0 {
			break
		}
		if err := c.evict(v); err != nil {
			return k, fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	m := min(need, c.capacity-c.used)
	parent := c.pin
	for _, id := range bs[k : k+m] {
		s, err := c.admit(id, parent)
		if err != nil {
			return k, fmt.Errorf("request %d: %w", r.Index, err)
		}
		c.chain = append(c.chain, s)
		parent = s
	}
	c.used += m
	for i, s := range c.chain[k:] {
		c.policy.Access(r, c.name(s), k+i, false)
	}
	c.pin = -1
	if parent >= 0 && c.nodes[parent].kids == 0 {
		c.policy.Evictable(c.name(parent), true)
	}
	if c.checker != nil {
		if err := c.checker.Err(); err != nil {
			return k, fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	return k, nil
}

// Touch asks the processor to start loading block id's entry in the
// cache's table (package internal/prefetch) and changes nothing: a caller
// that knows the requests it will serve next touches their first blocks a
// few requests ahead, so that the memory is being fetched while it serves
// the requests before.
func (c *Cache) Touch(id BlockID) {
	if c.table.n > 0 {
		prefetch.Line(unsafe.Pointer(&c.table.e[c.table.home(id)]))
	}
}

// serveSingle is Serve for a request of one block: the same calls to the
// policy in the same order, without the chain walk, the scratch chain and
// the pinning bookkeeping that a longer chain needs (single-block streams,
// such as libCacheSim's object traces, are served one block at a time).
// With LRU as the policy, a hit is one move to the front of its list: the
// pinning of the hit block and its release, Evictable(b, false) and
// Evictable(b, true), cancel out, as LRU's Access does not read the flag.
func (c *Cache) serveSingle(r *Req) (int, error) {
	if c.observer != nil {
		c.observer.Observe(r)
	}
	id := r.Blocks[0]
	if s := c.table.find(id); s >= 0 {
		if c.lru != nil {
			c.lru.Access(r, s, 0, true) // LRU is CachedOnly: named by slot
			return 1, nil
		}
		// The block is the whole hit prefix: pinned while it is accessed,
		// evictable again afterwards when it is a leaf.
		leaf := c.nodes[s].kids == 0
		if leaf {
			c.policy.Evictable(c.name(s), false)
		}
		c.pin = s
		c.policy.Access(r, c.name(s), 0, true)
		c.pin = -1
		if leaf {
			c.policy.Evictable(c.name(s), true)
		}
		return 1, c.checked(r)
	}
	for c.used >= c.capacity {
		v := c.victim()
		if v < 0 {
			return 0, c.checked(r) // nothing evictable: the block is not admitted
		}
		if err := c.evict(v); err != nil {
			return 0, fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	s, err := c.admit(id, -1)
	if err != nil {
		return 0, fmt.Errorf("request %d: %w", r.Index, err)
	}
	c.used++
	if c.lru != nil {
		c.lru.Access(r, s, 0, false)
		c.lru.Evictable(s, true)
		return 0, nil
	}
	c.policy.Access(r, c.name(s), 0, false)
	c.policy.Evictable(c.name(s), true)
	return 0, c.checked(r)
}

// victim asks the policy for its victim (LRU directly: see serveSingle).
func (c *Cache) victim() BlockID {
	if c.lru != nil {
		return c.lru.Victim()
	}
	return c.policy.Victim()
}

// checked returns the checker's error, if any, naming request r.
func (c *Cache) checked(r *Req) error {
	if c.checker != nil {
		if err := c.checker.Err(); err != nil {
			return fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	return nil
}

// admit caches block id under the block in slot parent (-1: none) in a
// free slot and returns the slot.
func (c *Cache) admit(id BlockID, parent int32) (int32, error) {
	s := int32(len(c.nodes))
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
	}
	if !c.table.add(id, s) {
		return 0, fmt.Errorf("block %d occurs twice in its chain", id)
	}
	if n := len(c.free); n > 0 {
		c.free = c.free[:n-1]
	} else {
		c.nodes = append(c.nodes, node{})
		c.ids = append(c.ids, 0)
	}
	c.nodes[s] = node{parent: parent, cached: true}
	c.ids[s] = id
	if parent >= 0 {
		c.nodes[parent].kids++
	}
	return s, nil
}

// evict evicts the block the policy calls v.
func (c *Cache) evict(v BlockID) error {
	s := v
	if !c.slotted {
		s = c.table.find(v)
	}
	if s < 0 || int(s) >= len(c.nodes) || !c.nodes[s].cached || c.nodes[s].kids > 0 || s == c.pin {
		return fmt.Errorf("policy chose block %d, which is not an evictable leaf", v)
	}
	nd := &c.nodes[s]
	nd.cached = false
	c.table.remove(c.ids[s])
	c.free = append(c.free, s)
	c.used--
	c.evictions++
	if c.onEvict != nil {
		c.onEvict(c.ids[s])
	}
	if p := nd.parent; p >= 0 {
		c.nodes[p].kids--
		if c.nodes[p].kids == 0 && p != c.pin {
			c.policy.Evictable(c.name(p), true)
		}
	}
	return nil
}

// Check verifies the cache's invariants in O(n) for n slots (at most the
// capacity): the count of cached blocks, the cached-children counts, that
// every cached block's parent is cached (no orphans), and that the table
// finds every cached block in its slot. Tests call it.
func (c *Cache) Check() error {
	if c.engine != nil {
		return c.engine.Check()
	}
	if c.objectMode() {
		return c.checkObjects()
	}
	kids := make([]int32, len(c.nodes))
	used := 0
	for s, nd := range c.nodes {
		if !nd.cached {
			continue
		}
		used++
		if got := c.table.find(c.ids[s]); got != int32(s) {
			return fmt.Errorf("prefix cache: block %d is in slot %d, the table says %d", c.ids[s], s, got)
		}
		if p := nd.parent; p >= 0 {
			if !c.nodes[p].cached {
				return fmt.Errorf("prefix cache: block %d is cached but its parent %d is not", c.ids[s], c.ids[p])
			}
			kids[p]++
		}
	}
	if used != c.used || used > c.capacity || c.table.n != used {
		return fmt.Errorf("prefix cache: %d blocks cached, %d counted, %d in the table, capacity %d", used, c.used, c.table.n, c.capacity)
	}
	for s, nd := range c.nodes {
		if nd.cached && nd.kids != kids[s] {
			return fmt.Errorf("prefix cache: block %d has %d cached children, %d counted", c.ids[s], kids[s], nd.kids)
		}
	}
	return nil
}
