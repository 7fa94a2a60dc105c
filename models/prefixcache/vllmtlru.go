package prefixcache

import (
	"fmt"
	"strconv"
)

// NewVLLMTLRU returns the tail-latency paper's engine T-LRU: the authors'
// fork of vLLM (TianyiPeng/vllm-tail-optimized-caching; docs/block-level.md
// names the commit), which changes vLLM **v0**'s prefix-caching block
// allocator (vllm/core/block/prefix_caching_block.py, vllm/core/evictor.py,
// vllm/core/block_manager.py), replayed under the sequential model. Its
// rules:
//
//   - the pool has C/B blocks; free blocks without a hash are taken first,
//     most recently freed first (NaiveBlockAllocator's deque: popleft,
//     appendleft); only when none is left is a cached block evicted;
//   - the evictor takes the block with the smallest last-access time, among
//     equals the one with most prefix tokens (the deepest), then the
//     smallest block id (LRUEvictor's heap of (last_accessed,
//     −num_hashed_tokens, block_id), stale entries skipped when popped and
//     dropped when the heap outgrows 50 × the evictor);
//   - a request's cached prefix is found by binary search over its full
//     blocks' hashes (find_cached_blocks_prefix, which assumes that a
//     cached block's parent is cached); a fully cached prompt recomputes
//     its last token only (the scheduler's "at least 1 uncached token");
//   - the request's full blocks are allocated in chain order, each reusing
//     the cached block of its hash if there is one (an identical block is
//     never cached twice), the partial last block from the free blocks;
//   - when it finishes, each block's last-access time becomes the
//     request's time except for its last ⌊N/B⌋ blocks
//     (mark_blocks_as_accessed with caching_low_priority_last_num_tokens =
//     N): those keep the time they were given when the request took them,
//     −1, and so go first. As written (block_ids[:-n] in Python), n = 0
//     updates no block at all: with N < B every block keeps −1 and the
//     evictor takes the deepest block first, not the least recently used.
//
// N is the option low-priority-tokens (tokens, ≥ 0), by default ξ rounded
// down to an integer; the engine refuses an N that is not a multiple of B,
// and uses ⌊N/B⌋ blocks, which is what this replay uses for any N.
//
// Because a short request's blocks get −1 while a longer request's deeper
// blocks keep their time, a parent can be evicted before its child (an
// orphan). The binary search then may report as cached a prefix that
// includes an uncached block; the engine would skip computing it (and
// compute what follows it from KV it does not hold). The replay counts
// what the engine reports (its TTFT is the engine's) and counts the
// reported blocks from the first uncached one on in Phantoms.
func NewVLLMTLRU(cfg Config) (Policy, error) {
	n, err := poolBlocks(cfg)
	if err != nil {
		return nil, err
	}
	low := int64(max(cfg.Xi, 0))
	if v, ok := cfg.Options["low-priority-tokens"]; ok {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 0 {
			return nil, fmt.Errorf("vllm-tlru: option low-priority-tokens=%q: want a whole number of tokens ≥ 0", v)
		}
		low = x
	}
	p := &vllmV0{block: cfg.BlockSize, low: int(low / cfg.BlockSize), blocks: make([]v0block, n), free: make([]int32, n)}
	for i := range n {
		p.blocks[i].hash = -1
		p.free[i] = int32(i)
	}
	return p, nil
}

type vllmV0 struct {
	engineOnly
	block  int64
	low    int       // ⌊N/B⌋ blocks
	blocks []v0block // by physical block id
	// free is the hashless deque: free[head:] are the free blocks without
	// a hash, the next to be taken first.
	free      []int32
	head      int
	byHash    []int32 // byHash[h] is 1 + the block caching hash h, 0: none
	heap      []v0entry
	inEvictor int
	cached    int
	clock     int32
	evictions int64
	phantoms  int64
	scratch   []int32
}

// Times are the request count (the engine's time.time() of the step that
// served the request: increasing), −1 for untouched; a block's
// num_hashed_tokens is its depth times B, so the depth orders the same.
type v0block struct {
	hash       BlockID // -1: none
	lastAccess int32
	depth      int32 // blocks up to and including this one
	refs       int32
	evictable  bool // in the evictor's free table
}

type v0entry struct {
	lastAccess, depth, id int32
}

func (a v0entry) less(b v0entry) bool {
	if a.lastAccess != b.lastAccess {
		return a.lastAccess < b.lastAccess
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return a.id < b.id
}

const v0Untouched = -1 // _DEFAULT_LAST_ACCESSED_TIME

// Phantoms returns the number of blocks reported as hit beyond the longest
// cached prefix of their chain (the binary search's answer on a prefix
// with a hole).
func (p *vllmV0) Phantoms() int64 { return p.phantoms }

func (p *vllmV0) cachedBlock(h BlockID) int32 {
	if int(h) < len(p.byHash) {
		return p.byHash[h] - 1
	}
	return -1
}

// take returns a block for new content: a hashless free block, else the
// evictor's choice; -1 when neither exists. The block is tracked anew
// (last access −1) with one reference.
func (p *vllmV0) take() int32 {
	var b int32 = -1
	if p.head < len(p.free) {
		b = p.free[p.head]
		p.head++
	} else {
		b = p.evict()
		if b < 0 {
			return -1
		}
	}
	p.blocks[b].refs = 1
	p.blocks[b].lastAccess = v0Untouched
	return b
}

func (p *vllmV0) evict() int32 {
	for len(p.heap) > 0 {
		e := p.pop()
		bl := &p.blocks[e.id]
		if bl.evictable && bl.lastAccess == e.lastAccess {
			bl.evictable = false
			p.inEvictor--
			p.byHash[bl.hash] = 0
			bl.hash = -1
			p.cached--
			p.evictions++
			return e.id
		}
	}
	return -1
}

func (p *vllmV0) ServeEngine(r *Req) (int, int64, error) {
	n := len(r.Blocks)
	full := fullBlocks(n, r.Input, p.block)
	// find_cached_blocks_prefix: bisect_left for the first uncached hash.
	lo, hi := 0, full
	for lo < hi {
		mid := (lo + hi) / 2
		if p.cachedBlock(r.Blocks[mid]) >= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	k := lo
	for i, h := range r.Blocks[:k] {
		if p.cachedBlock(h) < 0 {
			p.phantoms += int64(k - i) // from the hole on
			break
		}
	}
	tokens := int64(k) * p.block
	if tokens >= r.Input && r.Input > 0 {
		tokens = r.Input - 1 // all cached: the last token is recomputed
	}
	own := p.scratch[:0]
	for i, h := range r.Blocks[:full] {
		b := p.cachedBlock(h)
		if b >= 0 {
			bl := &p.blocks[b]
			bl.refs++
			if bl.refs == 1 {
				if bl.evictable {
					bl.evictable = false // evictor.remove: its heap entry goes stale
					p.inEvictor--
				}
				bl.lastAccess = v0Untouched
			}
		} else {
			if b = p.take(); b < 0 {
				break // the pool is full of this request (the engine would not schedule it)
			}
			p.blocks[b].hash = h
			p.blocks[b].depth = int32(i + 1)
			p.byHash = grow(p.byHash, h)
			p.byHash[h] = b + 1
			p.cached++
		}
		own = append(own, b)
	}
	if len(own) == full && n > full {
		if b := p.take(); b >= 0 {
			own = append(own, b) // the partial last block: never hashed
		}
	}
	// free: mark_blocks_as_accessed, then each block in chain order.
	p.clock++
	if p.low > 0 && len(own) > p.low {
		for _, b := range own[:len(own)-p.low] {
			p.blocks[b].lastAccess = p.clock
		}
	}
	for _, b := range own {
		bl := &p.blocks[b]
		bl.refs--
		if bl.hash < 0 {
			p.head--
			p.free[p.head] = b // appendleft
			continue
		}
		bl.evictable = true
		p.inEvictor++
		p.push(v0entry{bl.lastAccess, bl.depth, b})
		if len(p.heap) > 50*p.inEvictor {
			p.cleanup()
		}
	}
	p.scratch = own
	return k, tokens, nil
}

// push adds e to the evictor's heap. A block's lastAccess is the
// tracker's while the block is in use and the evictor's copy (the tracker's
// value when it was freed) while it waits in the evictor.
func (p *vllmV0) push(e v0entry) { p.heap = heapPush(p.heap, e) }

func (p *vllmV0) pop() v0entry {
	top, h := heapPop(p.heap)
	p.heap = h
	return top
}

// cleanup rebuilds the heap from the evictor's blocks (_cleanup), by
// heapify: the pop order is that of the keys, which are distinct once the
// stale entries are gone.
func (p *vllmV0) cleanup() {
	h := p.heap[:0]
	for id := range p.blocks {
		if bl := &p.blocks[id]; bl.evictable {
			h = append(h, v0entry{bl.lastAccess, bl.depth, int32(id)})
		}
	}
	p.heap = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(p.heap, i)
	}
}

func (p *vllmV0) Evictions() int64 { return p.evictions }
func (p *vllmV0) Len() int         { return p.cached }

// Check verifies, between requests, that every block is either free
// without a hash or cached in the evictor, and that the hash table and the
// counts agree.
func (p *vllmV0) Check() error {
	free, evictable, hashed := len(p.free)-p.head, 0, 0
	for id, bl := range p.blocks {
		if bl.refs != 0 {
			return fmt.Errorf("vllm-tlru: block %d still referenced", id)
		}
		if bl.hash >= 0 {
			hashed++
			if !bl.evictable {
				return fmt.Errorf("vllm-tlru: cached block %d not in the evictor", id)
			}
			if p.cachedBlock(bl.hash) != int32(id) {
				return fmt.Errorf("vllm-tlru: hash %d maps to block %d, not %d", bl.hash, p.cachedBlock(bl.hash), id)
			}
			evictable++
		}
	}
	if free+hashed != len(p.blocks) || hashed != p.cached || evictable != p.inEvictor {
		return fmt.Errorf("vllm-tlru: %d free + %d cached of %d blocks (counted %d cached, %d in the evictor)", free, hashed, len(p.blocks), p.cached, p.inEvictor)
	}
	return nil
}
