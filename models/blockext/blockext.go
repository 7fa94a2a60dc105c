// Package blockext opens the block level (simulate --level block) to
// policies written outside tailbound: schedules of evicted blocks and
// external processes, both checked against the prefix cache's rules.
//
// # Block ids
//
// A block is named by its dense id: the blocks of the trace (nodes of its
// prefix tree, package prefixcache) numbered 0, 1, 2, … in order of first
// appearance, reading each request's chain root first. With prefix-chained
// hashes (Mooncake, vLLM-style) a block is its hash, and its id is the rank
// of the hash's first appearance. The exec protocol sends every request's
// chain as ids, so a client never needs to number blocks itself.
//
// # Schedules
//
// One JSON line per request of the trace, in order (or addressed by
// "request", the 0-based index), listing the blocks evicted to admit its
// chain, in order:
//
//	{"request":0}
//	{"request":1,"evict":[3,2]}
//
// The cache admits every request's chain (as many of its blocks as fit)
// and evicts only to make room, so a line lists exactly as many blocks as
// the cache must free for its request: the request's chain blocks not
// already cached, less the free blocks. The rules, checked at every
// request, are:
//
//   - prefix: each victim is an evictable leaf: cached, without a cached
//     child (its descendants go first), and not the last block of the
//     request's hit prefix, which the request is using;
//   - capacity: exactly the blocks needed are evicted (fewer only when no
//     evictable block is left, as with a built-in policy).
//
// The first violation stops the replay with one line naming the request
// and the rule. simulate --level block --emit-schedule FILE writes the
// schedule of any built-in policy; scoring it reproduces the policy's
// figures exactly.
//
// # Exec protocol
//
// `--policies exec:CMD` at the block level runs CMD with /bin/sh -c. After a
// header line
//
//	{"tailbound":"exec/1","level":"block","capacity":512,"block_tokens":16,"xi":1500,"qhat":0,"options":{}}
//
// (capacity in blocks), tailbound writes one line per request and reads one
// answer, the evict list of a schedule line:
//
//	→ {"request":9,"time":4.5,"input":70,"output":12,"conv":3,"blocks":[0,7,8,11,12],"hit":3,"need":1,"free":0}
//	← {"evict":[5]}
//
// blocks is the request's chain (ids), hit the number of its leading
// blocks cached, need the number of blocks to evict (the chain's uncached
// blocks less the free ones, 0 when they fit) and free the free blocks.
// The process keeps its own copy of the prefix tree (every block's parent
// is the block before it in some chain). Errors are as for the turn level
// (package execpolicy): one line naming the request and the rule, for a bad
// answer, a process that exits, or one silent for the time limit.
package blockext

import (
	"fmt"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// BlockID is prefixcache's dense block id.
type BlockID = prefixcache.BlockID

// decider returns the victims of request r, whose first hit blocks are
// cached, when need blocks must be evicted to admit its chain.
type decider func(r *prefixcache.Req, hit, need int) ([]BlockID, error)

// adapter is a prefixcache.Policy whose victims come from a decider; it
// mirrors the cache (cached blocks, the evictable set) to check them.
type adapter struct {
	capacity   int
	used       int
	cached     []bool
	evictable  []bool
	nEvictable int
	decide     decider

	req     *prefixcache.Req
	hit     int
	victims []BlockID
	next    int
	err     error
}

func newAdapter(capacity int, d decider) *adapter {
	return &adapter{capacity: capacity, decide: d}
}

func grow(s []bool, id BlockID) []bool {
	if int(id) < len(s) {
		return s
	}
	n := max(2*len(s), int(id)+1, 64)
	return append(s, make([]bool, n-len(s))...)
}

// Observe implements prefixcache.Observer: it asks for the request's
// victims.
func (a *adapter) Observe(r *prefixcache.Req) {
	if a.err != nil {
		return
	}
	k := 0
	for k < len(r.Blocks) && int(r.Blocks[k]) < len(a.cached) && a.cached[r.Blocks[k]] {
		k++
	}
	need := max(0, len(r.Blocks)-k-(a.capacity-a.used))
	a.req, a.hit, a.next = r, k, 0
	a.victims, a.err = a.decide(r, k, need)
}

// Access implements prefixcache.Policy.
func (a *adapter) Access(_ *prefixcache.Req, id BlockID, _ int, hit bool) {
	if !hit {
		a.cached = grow(a.cached, id)
		a.cached[id] = true
		a.used++
	}
}

// Evictable implements prefixcache.Policy.
func (a *adapter) Evictable(id BlockID, on bool) {
	a.evictable = grow(a.evictable, id)
	if a.evictable[id] != on {
		a.evictable[id] = on
		if on {
			a.nEvictable++
		} else {
			a.nEvictable--
		}
	}
}

// Victim implements prefixcache.Policy: the next block of the list, if it
// is an evictable leaf.
func (a *adapter) Victim() BlockID {
	if a.err != nil {
		return -1
	}
	if a.next == len(a.victims) {
		if a.nEvictable > 0 {
			a.err = fmt.Errorf("evicts %d blocks, but the cache needs room for more of the chain's %d uncached blocks (%d free) (rule: capacity)",
				len(a.victims), len(a.req.Blocks)-a.hit, a.capacity-a.used)
		}
		return -1
	}
	v := a.victims[a.next]
	a.next++
	switch {
	case v < 0 || int(v) >= len(a.cached) || !a.cached[v]:
		a.err = fmt.Errorf("block %d is not cached (rule: prefix: only evictable leaves are evicted)", v)
	case a.hit > 0 && v == a.req.Blocks[a.hit-1]:
		a.err = fmt.Errorf("block %d ends the request's hit prefix, which it is using (rule: prefix: only evictable leaves are evicted)", v)
	case int(v) >= len(a.evictable) || !a.evictable[v]:
		a.err = fmt.Errorf("block %d has a cached child (rule: prefix: only evictable leaves are evicted)", v)
	}
	if a.err != nil {
		return -1
	}
	a.evictable[v] = false
	a.nEvictable--
	a.cached[v] = false
	a.used--
	return v
}

// Err implements prefixcache.Checker.
func (a *adapter) Err() error {
	if a.err == nil && a.next < len(a.victims) {
		a.err = fmt.Errorf("evicts %d blocks, but the cache needed %d (blocks are evicted only to make room) (rule: capacity)", len(a.victims), a.next)
	}
	return a.err
}
