package prefixcache

import (
	"fmt"

	"github.com/tailbound/tailbound/models/instance"
)

// Cache is one prefix cache of a fixed number of blocks under one policy.
// Serve looks a request up and admits its chain; the cache enforces the
// orphan-free rule (see the package documentation) and checks the policy's
// victims against it.
type Cache struct {
	capacity  int
	used      int
	nodes     []node
	policy    Policy
	observer  Observer
	checker   Checker
	pin       BlockID
	evictions int64
}

type node struct {
	kids   int32 // cached children
	parent BlockID
	cached bool
}

// New returns an empty cache of capacity tokens, in blocks of block
// tokens, under p. The capacity must be a whole number of blocks, ≥ 0.
func New(capacity, block int64, p Policy) (*Cache, error) {
	if err := (instance.Params{Capacity: capacity, BlockSize: block}).Validate(); err != nil {
		return nil, fmt.Errorf("prefix cache: %w", err)
	}
	c := &Cache{capacity: int(capacity / block), policy: p, pin: -1}
	c.observer, _ = p.(Observer)
	c.checker, _ = p.(Checker)
	return c, nil
}

// Capacity returns the cache size in blocks.
func (c *Cache) Capacity() int { return c.capacity }

// Len returns the number of cached blocks.
func (c *Cache) Len() int { return c.used }

// Evictions returns the number of blocks evicted so far.
func (c *Cache) Evictions() int64 { return c.evictions }

// Cached reports whether block id is cached.
func (c *Cache) Cached(id BlockID) bool { return int(id) < len(c.nodes) && c.nodes[id].cached }

// Parent returns the parent of a cached block (-1 for a chain's first
// block).
func (c *Cache) Parent(id BlockID) BlockID { return c.nodes[id].parent }

// Children returns the number of cached children of a cached block.
func (c *Cache) Children(id BlockID) int { return int(c.nodes[id].kids) }

// Serve serves request r: it returns the number of leading blocks of its
// chain that were cached (the hit, in blocks), then admits the rest of the
// chain, evicting the policy's victims to make room. When even evicting
// every evictable block leaves too little room, only the part of the
// chain that fits is admitted (the chain is cut at the first block that
// does not fit). r.Blocks must be a chain numbered by an Interner.
func (c *Cache) Serve(r *Req) (int, error) {
	if c.observer != nil {
		c.observer.Observe(r)
	}
	bs := r.Blocks
	k := 0
	for k < len(bs) && c.Cached(bs[k]) {
		k++
	}
	if k > 0 {
		t := bs[k-1]
		if c.nodes[t].kids == 0 {
			c.policy.Evictable(t, false)
		}
		c.pin = t
	}
	for i, id := range bs[:k] {
		c.policy.Access(r, id, i, true)
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
		if int(id) >= len(c.nodes) {
			c.nodes = grow(c.nodes, id)
		}
		nd := &c.nodes[id]
		if nd.cached {
			return k, fmt.Errorf("request %d: block %d occurs twice in its chain", r.Index, id)
		}
		*nd = node{parent: parent, cached: true}
		if parent >= 0 {
			c.nodes[parent].kids++
		}
		parent = id
	}
	c.used += m
	for i, id := range bs[k : k+m] {
		c.policy.Access(r, id, k+i, false)
	}
	c.pin = -1
	if parent >= 0 && c.nodes[parent].kids == 0 {
		c.policy.Evictable(parent, true)
	}
	if c.checker != nil {
		if err := c.checker.Err(); err != nil {
			return k, fmt.Errorf("request %d: %w", r.Index, err)
		}
	}
	return k, nil
}

func (c *Cache) evict(v BlockID) error {
	if int(v) >= len(c.nodes) || !c.nodes[v].cached || c.nodes[v].kids > 0 || v == c.pin {
		return fmt.Errorf("policy chose block %d, which is not an evictable leaf", v)
	}
	nd := &c.nodes[v]
	nd.cached = false
	c.used--
	c.evictions++
	if p := nd.parent; p >= 0 {
		c.nodes[p].kids--
		if c.nodes[p].kids == 0 && p != c.pin {
			c.policy.Evictable(p, true)
		}
	}
	return nil
}

// Check verifies the cache's invariants in O(n) for n blocks ever cached:
// the count of cached blocks, the cached-children counts, and that every
// cached block's parent is cached (no orphans). Tests call it.
func (c *Cache) Check() error {
	kids := make([]int32, len(c.nodes))
	used := 0
	for id, nd := range c.nodes {
		if !nd.cached {
			continue
		}
		used++
		if p := nd.parent; p >= 0 {
			if !c.nodes[p].cached {
				return fmt.Errorf("prefix cache: block %d is cached but its parent %d is not", id, p)
			}
			kids[p]++
		}
	}
	if used != c.used || used > c.capacity {
		return fmt.Errorf("prefix cache: %d blocks cached, %d counted, capacity %d", used, c.used, c.capacity)
	}
	for id, nd := range c.nodes {
		if nd.cached && nd.kids != kids[id] {
			return fmt.Errorf("prefix cache: block %d has %d cached children, %d counted", id, kids[id], nd.kids)
		}
	}
	return nil
}
