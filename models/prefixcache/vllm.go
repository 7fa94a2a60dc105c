package prefixcache

import "fmt"

// NewVLLM returns vLLM v1's prefix cache (vllm-project/vllm, vllm/v1/core;
// docs/block-level.md names the files, functions and commit) replayed
// under the sequential model: one request at a time, each freed before the
// next, prompt blocks only. Its rules:
//
//   - the pool has C/B blocks (the engine's null block not counted), every
//     free block in one queue, initially in block-id order;
//   - a request's hit is the longest run of leading chain blocks whose
//     hashes are cached, at most ⌊(L − 1)/B⌋ blocks for a prompt of L
//     tokens (the last token is always computed; get_computed_blocks,
//     find_longest_cache_hit); a hash cached in several blocks is found in
//     the first of them cached;
//   - the hit blocks leave the queue (touch); the other ⌈L/B⌉ − hit blocks
//     are popped from the queue's head, and a popped block that holds a
//     hash loses it: that is an eviction (get_new_blocks,
//     _maybe_evict_cached_block);
//   - the request's full blocks beyond the hit get their hashes, even a
//     hash already cached in another block (no de-duplication); the
//     partial last block never does (cache_full_blocks);
//   - when the request finishes its blocks go back to the queue's tail in
//     reverse chain order, the last block first (free, free_blocks).
//
// A block whose parent was evicted stays cached (the pool is not a tree),
// but the hit stops at the first uncached hash, so it is only found again
// after a request has recomputed its parent.
func NewVLLM(cfg Config) (Policy, error) {
	n, err := poolBlocks(cfg)
	if err != nil {
		return nil, err
	}
	p := &vllm{block: cfg.BlockSize, blocks: make([]vblock, n+1)}
	// Node 0 is the queue's sentinel; block i is node i+1.
	for i := 1; i <= n; i++ {
		p.blocks[i].hash = -1
		p.pushBack(int32(i))
	}
	return p, nil
}

// poolBlocks returns the capacity in blocks, refusing a capacity that is
// not a positive whole number of blocks.
func poolBlocks(cfg Config) (int, error) {
	if cfg.BlockSize <= 0 || cfg.Capacity < 0 || cfg.Capacity%cfg.BlockSize != 0 {
		return 0, fmt.Errorf("capacity %d tokens is not a whole number of %d-token blocks", cfg.Capacity, cfg.BlockSize)
	}
	return int(cfg.Capacity / cfg.BlockSize), nil
}

type vllm struct {
	engineOnly
	block  int64
	blocks []vblock // by node: 0 is the sentinel
	// first[h] is the node of the earliest cached block holding hash h, 0
	// when none; later copies follow through vblock.dup.
	first     []int32
	queued    int
	cached    int
	evictions int64
	scratch   []int32
}

type vblock struct {
	prev, next int32   // the free queue
	dup        int32   // the next block caching the same hash, 0: none
	hash       BlockID // -1: none
	queued     bool
}

func (p *vllm) pushBack(b int32) {
	bs := p.blocks
	last := bs[0].prev
	bs[b].prev, bs[b].next = last, 0
	bs[last].next = b
	bs[0].prev = b
	bs[b].queued = true
	p.queued++
}

func (p *vllm) remove(b int32) {
	bs := p.blocks
	bs[bs[b].prev].next = bs[b].next
	bs[bs[b].next].prev = bs[b].prev
	bs[b].queued = false
	p.queued--
}

// lookup returns the block a hit on hash h reuses, 0 when h is not cached.
func (p *vllm) lookup(h BlockID) int32 {
	if int(h) < len(p.first) {
		return p.first[h]
	}
	return 0
}

// cache gives block b hash h, after every block already caching h.
func (p *vllm) cache(b int32, h BlockID) {
	p.first = grow(p.first, h)
	p.blocks[b].hash, p.blocks[b].dup = h, 0
	p.cached++
	if p.first[h] == 0 {
		p.first[h] = b
		return
	}
	x := p.first[h]
	for p.blocks[x].dup != 0 {
		x = p.blocks[x].dup
	}
	p.blocks[x].dup = b
}

// uncache takes block b's hash away (an eviction).
func (p *vllm) uncache(b int32) {
	h := p.blocks[b].hash
	if p.first[h] == b {
		p.first[h] = p.blocks[b].dup
	} else {
		x := p.first[h]
		for p.blocks[x].dup != b {
			x = p.blocks[x].dup
		}
		p.blocks[x].dup = p.blocks[b].dup
	}
	p.blocks[b].hash, p.blocks[b].dup = -1, 0
	p.cached--
	p.evictions++
}

func (p *vllm) ServeEngine(r *Req) (int, int64, error) {
	n := len(r.Blocks)
	full := fullBlocks(n, r.Input, p.block)
	maxHit := 0
	if r.Input > 0 {
		maxHit = min(full, int((r.Input-1)/p.block))
	}
	own := p.scratch[:0]
	for _, h := range r.Blocks[:maxHit] {
		b := p.lookup(h)
		if b == 0 {
			break
		}
		own = append(own, b)
	}
	k := len(own)
	for _, b := range own {
		p.remove(b) // touch: ref_cnt 0 → 1
	}
	// The rest of the chain takes blocks from the queue's head; a request
	// longer than the pool gets what there is (the engine would not
	// schedule it).
	m := min(n-k, p.queued)
	for range m {
		b := p.blocks[0].next
		p.remove(b)
		if p.blocks[b].hash >= 0 {
			p.uncache(b)
		}
		own = append(own, b)
	}
	for i := k; i < min(full, k+m); i++ {
		p.cache(own[i], r.Blocks[i])
	}
	for i := len(own) - 1; i >= 0; i-- {
		p.pushBack(own[i])
	}
	p.scratch = own
	return k, int64(k) * p.block, nil
}

func (p *vllm) Evictions() int64 { return p.evictions }
func (p *vllm) Len() int         { return p.cached }

// Check verifies that every block is in the queue (between requests), that
// the queue's links agree, and that the hash chains hold exactly the
// blocks with hashes.
func (p *vllm) Check() error {
	n := len(p.blocks) - 1
	if p.queued != n {
		return fmt.Errorf("vllm: %d of %d blocks in the free queue", p.queued, n)
	}
	seen := 0
	for b, prev := p.blocks[0].next, int32(0); b != 0; prev, b = b, p.blocks[b].next {
		if p.blocks[b].prev != prev || !p.blocks[b].queued {
			return fmt.Errorf("vllm: free queue broken at block %d", b)
		}
		if seen++; seen > n {
			return fmt.Errorf("vllm: free queue loops")
		}
	}
	hashed := 0
	for b := 1; b <= n; b++ {
		if p.blocks[b].hash >= 0 {
			hashed++
		}
	}
	listed := 0
	for h, b := range p.first {
		for ; b != 0; b = p.blocks[b].dup {
			if p.blocks[b].hash != BlockID(h) {
				return fmt.Errorf("vllm: block %d listed under hash %d holds %d", b, h, p.blocks[b].hash)
			}
			listed++
		}
	}
	if hashed != p.cached || listed != p.cached {
		return fmt.Errorf("vllm: %d blocks hashed, %d listed, %d counted", hashed, listed, p.cached)
	}
	return nil
}
