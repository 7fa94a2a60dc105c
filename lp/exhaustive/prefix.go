package exhaustive

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// PrefixOptimum returns the least total cost over every eviction sequence
// of the block-level prefix cache (models/prefixcache's rules, SPEC §8)
// replaying reqs at a capacity of capacity blocks, where request t costs
// cost(t, k) when it hits k blocks. It is written from the cache's rules,
// not from any program: request t hits the longest cached prefix of its
// chain; while the rest of its chain does not fit, an evictable leaf — a
// cached block with no cached child, other than the deepest hit block
// (pinned) — is evicted, every choice explored; then the whole chain is
// admitted. States (request, cached set) are memoized. The chains must be
// numbered by one prefixcache.Interner with fewer than 64 distinct blocks,
// and every chain must fit the capacity.
func PrefixOptimum(reqs []prefixcache.Req, capacity int, cost func(t, k int) float64) (float64, error) {
	parent := map[prefixcache.BlockID]prefixcache.BlockID{}
	for t, q := range reqs {
		if len(q.Blocks) > capacity {
			return 0, fmt.Errorf("request %d: chain of %d blocks exceeds the capacity of %d", t, len(q.Blocks), capacity)
		}
		for d, id := range q.Blocks {
			if id < 0 || id >= 64 {
				return 0, fmt.Errorf("request %d: block id %d outside 0..63", t, id)
			}
			parent[id] = -1
			if d > 0 {
				parent[id] = q.Blocks[d-1]
			}
		}
	}
	leaf := func(m uint64, id prefixcache.BlockID) bool {
		for c, p := range parent {
			if p == id && m&(1<<c) != 0 {
				return false
			}
		}
		return true
	}
	type state struct {
		t    int
		mask uint64
	}
	memo := map[state]float64{}
	var best func(t int, mask uint64) float64
	best = func(t int, mask uint64) float64 {
		if t == len(reqs) {
			return 0
		}
		if v, ok := memo[state{t, mask}]; ok {
			return v
		}
		q := reqs[t]
		k := 0
		for k < len(q.Blocks) && mask&(1<<q.Blocks[k]) != 0 {
			k++
		}
		need := len(q.Blocks) - k
		pin := prefixcache.BlockID(-1)
		if k > 0 {
			pin = q.Blocks[k-1]
		}
		var chain uint64
		for _, id := range q.Blocks {
			chain |= 1 << id
		}
		seen := map[uint64]bool{}
		out := math.Inf(1)
		var evict func(m uint64)
		evict = func(m uint64) {
			if seen[m] {
				return
			}
			seen[m] = true
			if bits.OnesCount64(m)+need <= capacity {
				out = min(out, best(t+1, m|chain))
				return
			}
			for id := prefixcache.BlockID(0); id < 64; id++ {
				if m&(1<<id) != 0 && id != pin && leaf(m, id) {
					evict(m &^ (1 << id))
				}
			}
		}
		evict(mask)
		v := cost(t, k) + out
		memo[state{t, mask}] = v
		return v
	}
	return best(0, 0), nil
}
