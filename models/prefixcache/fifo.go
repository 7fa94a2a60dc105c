package prefixcache

// NewFIFO returns FIFO: the evictable block admitted earliest goes first
// (the deepest among blocks admitted by the same request); hits do not
// move a block. A block evicted and admitted again counts from its new
// admission. No two cached blocks tie: those a request admits lie at
// different depths of its chain.
//
// It runs in O(1) per operation on the common paths. A block's rank
// (admission request, then depth, deepest first) is fixed while it is
// cached, so the evictable blocks are kept in a queue sorted by rank: a
// doubly linked list that takes a block at its back when its rank is above
// every rank in the list (an admission) or at its front when below every
// one (a parent whose last child was just evicted from the front). A block
// entering the evictable set with a rank in the middle goes to an indexed
// heap instead, and Victim takes the smaller of the list's front and the
// heap's minimum, so the order is exactly the one of a single sorted set.
// A block leaving the evictable set while in the list stays there marked
// not evictable (it is usually the pinned block of one request, evictable
// again at the request's end) and is dropped when it reaches the front.
func NewFIFO(Config) (Policy, error) { return &fifo{}, nil }

// fifo's list is intrusive over block ids shifted by one; node 0 is the
// sentinel.
type fifo struct {
	nodes []fifoNode
	heap  Order // evictable blocks whose rank fell inside the list's range
}

type fifoNode struct {
	in         int64 // request index of the admission
	depth      int32
	prev, next BlockID
	inList     bool // linked into the list (evictable or not)
	evictable  bool
}

// before reports whether block a (node na) ranks before block b (node nb):
// earlier admission, then deeper, as Key orders them (the final
// comparison of names never decides: see NewFIFO).
func (p *fifo) before(na, nb BlockID) bool {
	a, b := &p.nodes[na], &p.nodes[nb]
	if a.in != b.in {
		return a.in < b.in
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return na < nb
}

func (p *fifo) key(n BlockID) Key {
	return Key{P: float64(p.nodes[n].in), T: -int64(p.nodes[n].depth)}
}

func (p *fifo) Access(r *Req, id BlockID, depth int, hit bool) {
	if hit {
		return
	}
	n := id + 1
	p.nodes = grow(p.nodes, n)
	nd := &p.nodes[n]
	nd.in, nd.depth = int64(r.Index), int32(depth)
}

func (p *fifo) Evictable(id BlockID, on bool) {
	n := id + 1
	ns := p.nodes
	if !on {
		ns[n].evictable = false
		if !ns[n].inList {
			p.heap.Remove(id)
		}
		return
	}
	ns[n].evictable = true
	if ns[n].inList {
		return
	}
	front, back := ns[0].next, ns[0].prev
	switch {
	case back == 0 || p.before(back, n):
		p.link(n, back)
	case p.before(n, front):
		p.link(n, 0)
	default:
		p.heap.Push(id, p.key(n))
	}
}

// link puts node n into the list right after node after.
func (p *fifo) link(n, after BlockID) {
	ns := p.nodes
	nx := ns[after].next
	ns[n].prev, ns[n].next = after, nx
	ns[nx].prev = n
	ns[after].next = n
	ns[n].inList = true
}

func (p *fifo) unlink(n BlockID) {
	ns := p.nodes
	pv, nx := ns[n].prev, ns[n].next
	ns[pv].next = nx
	ns[nx].prev = pv
	ns[n].inList = false
}

func (p *fifo) Victim() BlockID {
	if len(p.nodes) == 0 {
		return -1
	}
	n := p.nodes[0].next
	for n != 0 && !p.nodes[n].evictable {
		p.unlink(n)
		n = p.nodes[0].next
	}
	h, _ := p.heap.Min()
	if h >= 0 && (n == 0 || p.before(h+1, n)) {
		p.heap.Remove(h)
		p.nodes[h+1].evictable = false
		return h
	}
	if n == 0 {
		return -1
	}
	p.unlink(n)
	p.nodes[n].evictable = false
	return n - 1
}

// CachedOnly marks FIFO as keeping state for cached blocks only: the cache
// names blocks to it by slot, so its arrays are bounded by the capacity.
func (*fifo) CachedOnly() {}
