package prefixcache

import (
	"fmt"
	"strconv"
)

// NewSGLang returns SGLang's radix cache (sgl-project/sglang,
// python/sglang/srt/mem_cache/radix_cache.py with the allocation helpers
// of mem_cache/common.py and Req.adjust_max_prefix_ids; docs/block-level.md
// names the commit) under its default LRU eviction, replayed under the
// sequential model. The tree is over tokens, in pages of P tokens (option
// page-size, default 1, a divisor of the block size); a token is known by
// its block's id and its offset, so two prompts share exactly the tokens of
// their common leading blocks. Its rules:
//
//   - the token pool holds C tokens; the tree's nodes are runs of tokens,
//     a node's children keyed by their first page;
//   - a request's match is over its first L − 1 tokens rounded down to
//     pages (at least one token is computed); every node on the matched
//     path gets the match's time, and a match ending inside a node splits
//     it, the new upper node (created now) taking the shared prefix
//     (match_prefix, _split_node);
//   - the matched path is locked while the request runs (inc_lock_ref);
//   - to allocate the L − hit new tokens (plus one page when P > 1) the
//     cache, when fewer are free, evicts that many tokens (not the
//     shortfall): unlocked leaves, least recently accessed first, each
//     node whole; a parent left childless and unlocked becomes a candidate
//     (evict_from_tree_cache, evict);
//   - the prompt's first ⌊L/P⌋·P tokens are inserted, refreshing the times
//     on the path, splitting where it diverges and adding the rest as one
//     new leaf; the partial page is freed (insert, cache_unfinished_req,
//     cache_finished_req); the lock is released.
//
// Times are a counter: each match or insert takes one tick for its path
// and each node created takes its own; equal times (nodes of one path)
// are broken by node creation order.
func NewSGLang(cfg Config) (Policy, error) {
	if _, err := poolBlocks(cfg); err != nil {
		return nil, err
	}
	page := int64(1)
	if v, ok := cfg.Options["page-size"]; ok {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 1 || cfg.BlockSize%x != 0 {
			return nil, fmt.Errorf("sglang: option page-size=%q: want a whole number of tokens ≥ 1 that divides the block size %d", v, cfg.BlockSize)
		}
		page = x
	}
	p := &sglang{block: cfg.BlockSize, page: page, capacity: cfg.Capacity, kids: map[sgKey]int32{}}
	p.nodes = append(p.nodes, sgNode{parent: -1, lock: 1, alive: true}) // the root
	return p, nil
}

type sglang struct {
	engineOnly
	block, page int64
	capacity    int64 // tokens
	size        int64 // tokens in the tree
	nodes       []sgNode
	spare       []int32 // slots of deleted nodes
	kids        map[sgKey]int32
	heap        []sgEntry // evictable leaves, stale entries skipped
	tick        int64
	born        int64 // creation counter (ties)
	evicted     int64 // tokens
}

type sgKey struct {
	parent int32
	first  BlockID // the block of the node's first token
}

type sgNode struct {
	parent     int32
	start, end int64     // token positions [start, end)
	blocks     []BlockID // the blocks of positions start … end−1
	last       int64     // last access time
	born       int64
	lock       int32
	nkids      int32
	alive      bool
}

type sgEntry struct {
	last, born int64
	id         int32
}

func (a sgEntry) less(b sgEntry) bool {
	if a.last != b.last {
		return a.last < b.last
	}
	return a.born < b.born
}

// blockAt returns the block of node x's token at position t.
func (p *sglang) blockAt(x *sgNode, t int64) BlockID {
	return x.blocks[t/p.block-x.start/p.block]
}

// common returns how many tokens from position pos on node x shares with
// the chain bs, up to position end (exclusive); x starts at pos.
func (p *sglang) common(x *sgNode, bs []BlockID, pos, end int64) int64 {
	e := min(x.end, end)
	for j := pos / p.block; j*p.block < e; j++ {
		if p.blockAt(x, max(pos, j*p.block)) != bs[j] {
			return max(pos, j*p.block) - pos
		}
	}
	return e - pos
}

func (p *sglang) newNode(n sgNode) int32 {
	p.born++
	n.born, n.alive = p.born, true
	if k := len(p.spare); k > 0 {
		id := p.spare[k-1]
		p.spare = p.spare[:k-1]
		p.nodes[id] = n
		return id
	}
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

// split cuts node c after l tokens; the new upper node, created now,
// takes the prefix and c keeps the rest as its only child.
func (p *sglang) split(c int32, l int64) int32 {
	old := p.nodes[c]
	cut := old.start + l
	p.tick++
	up := p.newNode(sgNode{parent: old.parent, start: old.start, end: cut,
		blocks: old.blocks[:(cut-1)/p.block-old.start/p.block+1], last: p.tick, lock: old.lock, nkids: 1})
	x := &p.nodes[c]
	x.blocks = x.blocks[cut/p.block-old.start/p.block:]
	x.start, x.parent = cut, up
	p.kids[sgKey{old.parent, old.blocks[0]}] = up
	p.kids[sgKey{up, x.blocks[0]}] = c
	return up
}

// match returns the matched tokens of bs's first end tokens and the last
// node of the match. It is the walk of match_prefix and of insert alike:
// every node on the path, the root included, gets one new time, and a
// match ending inside a node splits it (split).
func (p *sglang) match(bs []BlockID, end int64) (int64, int32) {
	p.tick++
	t := p.tick
	node, pos := int32(0), int64(0)
	p.nodes[0].last = t
	for pos < end {
		c, ok := p.kids[sgKey{node, bs[pos/p.block]}]
		if !ok {
			break
		}
		p.nodes[c].last = t
		l := p.common(&p.nodes[c], bs, pos, end)
		if l < p.nodes[c].end-p.nodes[c].start {
			up := p.split(c, l)
			p.offer(c) // its time changed while it may wait as a leaf
			return pos + l, up
		}
		node, pos = c, pos+l
	}
	return pos, node
}

// insert adds bs's first end tokens and returns the deepest node: match's
// walk, then the tokens past the match as one new leaf under its last
// node, created after the walk.
func (p *sglang) insert(bs []BlockID, end int64) int32 {
	pos, node := p.match(bs, end)
	if pos < end {
		blocks := append([]BlockID(nil), bs[pos/p.block:(end-1)/p.block+1]...)
		p.tick++
		leaf := p.newNode(sgNode{parent: node, start: pos, end: end, blocks: blocks, last: p.tick})
		p.kids[sgKey{node, blocks[0]}] = leaf
		p.nodes[node].nkids++
		p.size += end - pos
		node = leaf
	}
	return node
}

func (p *sglang) lock(x int32, d int32) {
	for ; x != 0; x = p.nodes[x].parent {
		p.nodes[x].lock += d
		if d < 0 {
			p.offer(x)
		}
	}
}

// offer pushes x as an eviction candidate when it is an unlocked leaf.
func (p *sglang) offer(x int32) {
	n := &p.nodes[x]
	if x == 0 || !n.alive || n.lock > 0 || n.nkids > 0 {
		return
	}
	p.heap = heapPush(p.heap, sgEntry{n.last, n.born, x})
}

func (p *sglang) popEntry() sgEntry {
	top, h := heapPop(p.heap)
	p.heap = h
	return top
}

// evict deletes least recently accessed unlocked leaves until at least
// want tokens are freed or none is left.
func (p *sglang) evict(want int64) {
	var got int64
	for got < want && len(p.heap) > 0 {
		e := p.popEntry()
		n := &p.nodes[e.id]
		if !n.alive || n.born != e.born || n.last != e.last || n.lock > 0 || n.nkids > 0 {
			continue // stale
		}
		size := n.end - n.start
		got += size
		p.size -= size
		p.evicted += size
		n.alive = false
		par := n.parent
		delete(p.kids, sgKey{par, n.blocks[0]})
		n.blocks = nil
		p.spare = append(p.spare, e.id)
		p.nodes[par].nkids--
		p.offer(par)
	}
}

func (p *sglang) ServeEngine(r *Req) (int, int64, error) {
	bs := r.Blocks
	// The tokens the chain names: at most r.Input, and a chain shorter
	// than the prompt names only its blocks.
	tokens := min(max(r.Input, 0), int64(len(bs))*p.block)
	if tokens == 0 {
		return 0, 0, nil
	}
	hit, last := p.match(bs, (tokens-1)/p.page*p.page)
	p.lock(last, 1)
	need := tokens - hit
	if p.page > 1 {
		need += p.page
	}
	if p.capacity-p.size < need {
		p.evict(need)
	}
	end := tokens / p.page * p.page
	// A prompt larger than the free pool keeps only what fits (the engine
	// would not schedule it).
	end = min(end, hit+(p.capacity-p.size)/p.page*p.page)
	deepest := p.insert(bs, end)
	p.lock(last, -1)
	p.offer(deepest)
	return int(hit / p.block), hit, nil
}

func (p *sglang) Evictions() int64 { return p.evicted / p.block }
func (p *sglang) Len() int         { return int(p.size / p.block) }

// Check verifies the tree between requests: sizes, child counts and keys,
// that every node lies inside its parent's end, that no lock is held, and
// that the tree fits the pool.
func (p *sglang) Check() error {
	var size int64
	kids := make([]int32, len(p.nodes))
	for id := 1; id < len(p.nodes); id++ {
		n := &p.nodes[id]
		if !n.alive {
			continue
		}
		size += n.end - n.start
		par := &p.nodes[n.parent]
		if !par.alive || n.start != par.end || n.end <= n.start {
			return fmt.Errorf("sglang: node %d [%d, %d) under [%d, %d)", id, n.start, n.end, par.start, par.end)
		}
		if n.lock != 0 {
			return fmt.Errorf("sglang: node %d still locked", id)
		}
		if p.kids[sgKey{n.parent, n.blocks[0]}] != int32(id) {
			return fmt.Errorf("sglang: node %d not found under its key", id)
		}
		kids[n.parent]++
	}
	for id := range p.nodes {
		if p.nodes[id].alive && p.nodes[id].nkids != kids[id] {
			return fmt.Errorf("sglang: node %d has %d children, counted %d", id, kids[id], p.nodes[id].nkids)
		}
	}
	if size != p.size || size > p.capacity || len(p.kids) != int(sumKids(kids)) {
		return fmt.Errorf("sglang: %d tokens in nodes, %d counted, capacity %d", size, p.size, p.capacity)
	}
	return nil
}

func sumKids(k []int32) int64 {
	var s int64
	for _, x := range k {
		s += int64(x)
	}
	return s
}

// cachedTokens returns how many of bs's first end tokens the tree holds,
// without touching it (tests).
func (p *sglang) cachedTokens(bs []BlockID, end int64) int64 {
	node, pos := int32(0), int64(0)
	for pos < end {
		c, ok := p.kids[sgKey{node, bs[pos/p.block]}]
		if !ok {
			break
		}
		l := p.common(&p.nodes[c], bs, pos, end)
		pos += l
		if l < p.nodes[c].end-p.nodes[c].start {
			break
		}
		node = c
	}
	return pos
}
