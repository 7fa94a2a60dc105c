// Package prefix holds the hindsight optimum of the block-level prefix
// cache (models/prefixcache): Belady over block-hash chains. It keeps the
// cache's rules — a request hits the longest cached prefix of its chain,
// its whole chain is admitted after it is served, only leaves of the cached
// prefix tree are evicted — and, when room is needed, evicts the evictable
// leaf whose next use is furthest in the future (blocks never used again
// first).
//
// Among the cached blocks a leaf is always one whose next use is furthest
// within its own subtree: every request that uses a block uses its parent,
// so a parent's next use is never later than its child's. Evicting the
// furthest leaf is therefore Belady's rule restricted to what the prefix
// rule allows. It is feasible by construction (it runs in the real cache)
// and it is exact: it maximizes block hits (minimizes misses) over every
// eviction schedule the cache's rules allow. The proof, and the integer
// program and LP it is checked against, are in package lp/prefix. It runs
// in O(R log R) time for R block references.
package prefix

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Future holds, for every block reference of a trace (request t, depth d),
// the index of the next request whose chain contains the same block.
type Future struct {
	off  []int   // off[t] = index of request t's first reference in next
	next []int32 // next request using the block, -1 for none
}

// NewFuture indexes reqs, whose chains must be numbered by one
// prefixcache.Interner and whose Index fields must be 0, 1, 2, … in order.
// It takes O(total chain length) time and space.
func NewFuture(reqs []prefixcache.Req) (*Future, error) {
	f := &Future{off: make([]int, len(reqs)+1)}
	total := 0
	for t := range reqs {
		if reqs[t].Index != t {
			return nil, fmt.Errorf("request %d: index %d, want its position %d", t, reqs[t].Index, t)
		}
		f.off[t] = total
		total += len(reqs[t].Blocks)
	}
	f.off[len(reqs)] = total
	f.next = make([]int32, total)
	var last []int32 // last[id] = 1 + the latest request (scanning backwards) that used id
	for t := len(reqs) - 1; t >= 0; t-- {
		for d, id := range reqs[t].Blocks {
			if id < 0 {
				return nil, fmt.Errorf("request %d: block id %d at depth %d is negative", t, id, d)
			}
			if int(id) >= len(last) {
				last = append(last, make([]int32, int(id)+1-len(last))...)
			}
			f.next[f.off[t]+d] = last[id] - 1
			last[id] = int32(t) + 1
		}
	}
	return f, nil
}

// Next returns the index of the next request after t that uses the block at
// depth d of request t's chain, or -1 when no later request uses it.
func (f *Future) Next(t, d int) int { return int(f.next[f.off[t]+d]) }

// NewBelady returns a factory of the hindsight policy over the future f,
// for caches replaying the very requests f was built from (blocksim replays
// them through the same numbering). Each policy it builds is independent;
// f is only read.
func NewBelady(f *Future) prefixcache.Factory {
	return func(prefixcache.Config) (prefixcache.Policy, error) { return &belady{f: f}, nil }
}

type belady struct {
	f     *Future
	keys  []prefixcache.Key
	order prefixcache.Order
}

// Access keys the block by its next use, negated so that the furthest is
// the smallest key; a block never used again keys −∞ and goes first.
func (b *belady) Access(r *prefixcache.Req, id prefixcache.BlockID, depth int, _ bool) {
	if int(id) >= len(b.keys) {
		b.keys = append(b.keys, make([]prefixcache.Key, int(id)+1-len(b.keys))...)
	}
	k := prefixcache.Key{P: math.Inf(-1)}
	if n := b.f.Next(r.Index, depth); n >= 0 {
		k.P = -float64(n)
	}
	b.keys[id] = k
}

func (b *belady) Evictable(id prefixcache.BlockID, on bool) {
	if on {
		b.order.Push(id, b.keys[id])
		return
	}
	b.order.Remove(id)
}

func (b *belady) Victim() prefixcache.BlockID { return b.order.Pop() }

// Misses replays reqs through a prefix cache of capacity blocks under the
// hindsight policy and returns the number of block references that missed
// (chain blocks beyond each request's hit prefix) and the number that hit.
func Misses(reqs []prefixcache.Req, capacity int) (misses, hits int64, err error) {
	f, err := NewFuture(reqs)
	if err != nil {
		return 0, 0, err
	}
	in := instance.Params{Capacity: int64(capacity), BlockSize: 1} // capacity counted in 1-token units: blocks
	p, _ := NewBelady(f)(prefixcache.Config{Params: in})
	c, err := prefixcache.New(in.Capacity, in.BlockSize, p)
	if err != nil {
		return 0, 0, err
	}
	for i := range reqs {
		h, err := c.Serve(&reqs[i])
		if err != nil {
			return 0, 0, err
		}
		hits += int64(h)
		misses += int64(len(reqs[i].Blocks) - h)
	}
	return misses, hits, nil
}
