// Package prefixcache is the block-level prefix cache of production LLM
// serving (SPEC §8): a request names its prompt as a chain of fixed-size
// blocks, hits the longest cached prefix of that chain, and has its chain
// admitted after it is served; a capacity in blocks is enforced by evicting
// blocks chosen by a Policy.
//
// # Block identity
//
// A block is a node of the prefix tree of all chains: the pair (parent
// block, hash). An Interner numbers the distinct nodes densely (BlockID) in
// order of first appearance. When a trace's hashes are already chained
// (equal id implies equal prefix, as in Mooncake and vLLM-style hashes) the
// pair is equivalent to the hash alone; when they are not, the pair is what
// makes "same hash at the same position after the same prefix" the same
// block.
//
// # The orphan-free rule
//
// Only leaves of the cached prefix tree are evictable: a cached block with a
// cached child is never evicted, and the blocks of the request being served
// are pinned. A policy's victim order is therefore applied among the
// evictable leaves, and the cached set is always prefix-closed: every cached
// block's parent is cached. The rule is the one of SGLang's radix cache; it
// never evicts more than asked (unlike evicting a block with its cached
// descendants) and it keeps the cost per operation at O(log n): the cache
// keeps a cached-children count per block and tells the policy when a block
// enters or leaves the evictable set, so the policy orders only that set.
//
// # Adding a policy
//
// Implement Policy (three methods; Order does the bookkeeping of most) in
// one file and add one line to All in registry.go.
package prefixcache

import "github.com/tailbound/tailbound/models/instance"

// BlockID is the dense id of a distinct block (a prefix-tree node), as
// numbered by an Interner: 0, 1, 2, … in order of first appearance.
type BlockID = int32

// Req is a request as the cache and its policies see it.
type Req struct {
	// Index is the request's 0-based position in the trace.
	Index int
	// Time is the arrival time in seconds.
	Time float64
	// Input and Output are the prompt and response lengths in tokens.
	Input, Output int64
	// Category is the dense id of the request type (see
	// Interner.CategoryName); 0 is the first category seen.
	Category int
	// Conv is the derived conversation's id, -1 when not linked.
	Conv int
	// Turn is the 1-based turn number within Conv: 1 + the number of
	// earlier requests of the same conversation; 1 when not linked.
	Turn int
	// Blocks is the chain, root first.
	Blocks []BlockID
	// Seen is the number of leading blocks of the chain that appeared in an
	// earlier request: the hit of an infinite cache, in blocks.
	Seen int
}

// Policy orders the evictable blocks of one cache. The cache calls it for
// every request in three ways:
//
//   - Evictable(id, false) when a block leaves the evictable set without
//     being evicted (it gained a cached child, or it is the deepest cached
//     block of the request being served and so is pinned), and
//     Evictable(id, true) when a block enters it (it is cached, has no
//     cached child and is not pinned);
//   - Victim when a block must be evicted: the policy removes one block
//     from its evictable set and returns it, or -1 if the set is empty;
//   - Access for every block of the request's chain that is cached once
//     the request is served, root first (depth 0, 1, …): hit reports
//     whether it was cached before the request (false: just admitted).
//
// Within one request the calls come in this order: Evictable(tail of the
// hit prefix, false); Access of the hit blocks; any number of Victim calls
// (to make room); Access of the admitted blocks; Evictable(deepest cached
// chain block, true). This is the order a block-by-block simulator sees:
// hits, then a miss that evicts, then the insertion. A block is accessed
// only while it is not evictable, so a key computed from what Access saw
// stays valid while the block waits in the evictable set.
type Policy interface {
	Access(r *Req, id BlockID, depth int, hit bool)
	Evictable(id BlockID, on bool)
	Victim() BlockID
}

// Observer is implemented by policies that learn from the trace itself
// (reuse times, prompt lengths): Observe is called with every request,
// before the cache looks it up.
type Observer interface {
	Observe(r *Req)
}

// CachedOnly is implemented by policies whose state concerns the blocks
// cached now and nothing else (no history of evicted blocks, no use of
// the ids in Req.Blocks): the cache then names blocks to them by slot
// instead of BlockID. A slot is a number below the cache's capacity in
// blocks, fixed while its block is cached and reused after the block is
// evicted, so such a policy's memory is bounded by the cache and not by
// the trace. The policy must order blocks without comparing their names
// (or only where no two cached blocks tie otherwise), since slots do not
// follow the order of first appearance.
type CachedOnly interface {
	CachedOnly()
}

// Remembering is implemented by policies whose state concerns the blocks
// cached now and some ids of blocks they evicted (S3-FIFO's ghost), and
// nothing else: no use of the ids in Req.Blocks, no ordering by id. Where
// block ids are reused after a block is forgotten (a Forgetter, which the
// blocksim streaming replay passes as hold and release), Remember is
// called once, before the first request: the policy then calls hold(id)
// when it starts keeping the id of a block it evicted and release(id) when
// it stops (the id leaves its memory, or the block is admitted again), so
// that the id goes on naming that block meanwhile. Its memory is then
// bounded by the cache and its own bound on the ids it keeps.
type Remembering interface {
	Remember(hold, release func(BlockID))
}

// Checker is implemented by policies whose victims come from outside
// tailbound (a schedule, an external process; package blockext): Err is
// called at the end of every request and returns the first rule their
// victims broke, which stops the replay. Such a policy returns -1 from
// Victim instead of a block that is not an evictable leaf.
type Checker interface {
	Err() error
}

// Config is what a cache tells a policy when it builds one.
type Config struct {
	// Params are the cache's capacity and block size (tokens) and the TEL
	// threshold ξ (tokens, for tail-aware policies); Forced does not apply
	// at the block level (a request's chain is always admitted).
	instance.Params
	// QHat is the estimate of the tokens a follow-up request adds (its new
	// prompt), tokens; 0 means auto: the running mean, over the requests
	// seen so far, of their tokens beyond the longest previously seen prefix.
	QHat float64
	// Options holds policy-specific key=value settings.
	Options map[string]string
}

// Factory builds a policy.
type Factory func(cfg Config) (Policy, error)

// grow returns s extended with zero values so that s[id] exists.
func grow[T any](s []T, id BlockID) []T {
	if int(id) < len(s) {
		return s
	}
	n := max(2*len(s), int(id)+1, 64)
	return append(s, make([]T, n-len(s))...)
}
