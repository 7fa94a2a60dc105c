package prefixcache

import "fmt"

// Engine is implemented by policies that are a whole cache with their own
// rules: a serving engine's block pool or radix tree, replayed rule for
// rule (vllm.go, vllmtlru.go, sglang.go). Such a cache is not a prefix
// tree evicted leaf by leaf, so the Cache does not run it through Policy:
// it hands every request to ServeEngine and reads its counts from it, and
// Access, Evictable and Victim are never called.
//
// The interface exists because the Cache enforces the orphan-free rule
// (only leaves evicted, every cached block's parent cached, a partial last
// block cached like a full one) and vLLM breaks all three: its pool can
// keep a block whose parent it evicted, holds identical blocks twice, and
// never caches a partial block. An engine is added like any policy: one
// file implementing Engine and one line in All.
type Engine interface {
	Policy
	// ServeEngine serves r (requests come one at a time, in trace order,
	// each finished before the next) and returns its hit: the number of
	// leading blocks of r.Blocks the engine reused and the number of
	// prompt tokens it did not compute, at most r.Input.
	ServeEngine(r *Req) (blocks int, tokens int64, err error)
	// Evictions returns the number of blocks evicted so far (for a
	// token-granular engine, the tokens evicted divided by the block size).
	Evictions() int64
	// Len returns the number of blocks cached now (tokens over the block
	// size, rounded down, for a token-granular engine).
	Len() int
	// Check verifies the engine's invariants; tests call it.
	Check() error
}

// engineOnly gives an Engine the Policy methods, which the Cache never
// calls on it.
type engineOnly struct{}

func (engineOnly) Access(*Req, BlockID, int, bool) {}
func (engineOnly) Evictable(BlockID, bool)         {}
func (engineOnly) Victim() BlockID                 { return -1 }

// ServeTokens serves r like Serve and also returns the tokens of r's
// prompt that were hit: the engine's own count for an Engine, else
// min(hit blocks × block size, r.Input) (a partial last block cached like
// a full one).
func (c *Cache) ServeTokens(r *Req) (int, int64, error) {
	if c.engine != nil {
		return c.serveEngine(r)
	}
	k, err := c.Serve(r)
	return k, min(int64(k)*c.block, r.Input), err
}

func (c *Cache) serveEngine(r *Req) (int, int64, error) {
	if c.observer != nil {
		c.observer.Observe(r)
	}
	k, t, err := c.engine.ServeEngine(r)
	if err != nil {
		return k, t, fmt.Errorf("request %d: %w", r.Index, err)
	}
	return k, t, nil
}

// fullBlocks returns how many leading blocks of a chain of n blocks are
// full for a prompt of input tokens in blocks of block tokens: the blocks
// an engine that caches only full blocks can hash.
func fullBlocks(n int, input, block int64) int {
	return int(min(int64(n), max(input, 0)/block))
}
