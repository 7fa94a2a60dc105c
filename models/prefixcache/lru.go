package prefixcache

// NewLRU returns LRU: the evictable block whose latest use (hit or
// admission) is oldest goes first. Among the leaves the latest uses are
// distinct (two leaves used by one request would lie on one chain), so no
// tie-break is needed; deeper first is used all the same.
func NewLRU(Config) (Policy, error) { return &lru{}, nil }

type lru struct {
	order Order
	last  []int64 // request index of the latest use
	depth []int32
}

func (p *lru) Access(r *Req, id BlockID, depth int, _ bool) {
	p.last = grow(p.last, id)
	p.depth = grow(p.depth, id)
	p.last[id], p.depth[id] = int64(r.Index), int32(depth)
}

func (p *lru) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: float64(p.last[id]), T: -int64(p.depth[id])})
	} else {
		p.order.Remove(id)
	}
}

func (p *lru) Victim() BlockID { return p.order.Pop() }
