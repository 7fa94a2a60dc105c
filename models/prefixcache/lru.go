package prefixcache

// NewLRU returns LRU: the evictable block whose latest use (hit or
// admission) is oldest goes first, the deepest among blocks last used by
// the same request.
//
// It runs in O(1) per operation. Every cached block sits in one recency
// list, most recent first, where each request moves the blocks it uses to
// the front in chain order (root first, so deeper blocks lie behind their
// parents). The list is then sorted by (latest use, depth) over all cached
// blocks, and the victim is the first evictable block from its back. That
// block is the back itself unless the back is the pinned block of the
// request being served: a block's child is never used after the block
// itself, so the back is always a leaf, and the pinned block can only be
// at the back when the request's chain is all that is cached.
func NewLRU(Config) (Policy, error) { return &lru{}, nil }

// lru is an intrusive doubly linked list over block ids shifted by one;
// node 0 is the sentinel. Whether a node is evictable is a bit apart, so
// that a node is 8 bytes and the bits of 20,000 nodes 2.5 KiB.
type lru struct {
	nodes     []lruNode
	evictable []uint64 // bit n: node n is evictable
	cursor    BlockID  // the request's latest used node, or the sentinel
}

type lruNode struct {
	prev, next BlockID
}

func (p *lru) Access(_ *Req, id BlockID, depth int, hit bool) {
	n := id + 1
	if int(n) >= len(p.nodes) {
		p.nodes = grow(p.nodes, n)
		p.evictable = grow(p.evictable, BlockID(len(p.nodes)>>6))
	}
	if depth == 0 { // a request's first block: back to the front
		p.cursor = 0
	}
	if hit {
		p.unlink(n)
	}
	ns := p.nodes
	after := p.cursor
	nx := ns[after].next
	ns[n].prev, ns[n].next = after, nx
	ns[nx].prev = n
	ns[after].next = n
	p.cursor = n
}

func (p *lru) unlink(n BlockID) {
	ns := p.nodes
	pv, nx := ns[n].prev, ns[n].next
	ns[pv].next = nx
	ns[nx].prev = pv
}

func (p *lru) Evictable(id BlockID, on bool) {
	n := id + 1
	if on {
		p.evictable[n>>6] |= 1 << (n & 63)
	} else {
		p.evictable[n>>6] &^= 1 << (n & 63)
	}
}

func (p *lru) Victim() BlockID {
	if len(p.nodes) == 0 {
		return -1
	}
	for n := p.nodes[0].prev; n != 0; n = p.nodes[n].prev {
		if p.evictable[n>>6]&(1<<(n&63)) != 0 {
			p.unlink(n)
			p.evictable[n>>6] &^= 1 << (n & 63)
			return n - 1
		}
	}
	return -1
}

// CachedOnly marks LRU as keeping state for cached blocks only: the cache
// names blocks to it by slot, so its arrays are bounded by the capacity.
func (*lru) CachedOnly() {}

// IsLRU reports whether p is the policy NewLRU returns (not a wrapper of
// it): block-level LRU, which models/stackcurve replays at every capacity
// in one pass.
func IsLRU(p Policy) bool {
	_, ok := p.(*lru)
	return ok
}
