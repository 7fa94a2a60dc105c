package prefixcache

// NewFIFO returns FIFO: the evictable block admitted earliest goes first;
// hits do not move a block. A block evicted and admitted again counts from
// its new admission.
func NewFIFO(Config) (Policy, error) { return &fifo{}, nil }

type fifo struct {
	order Order
	in    []int64 // request index of the admission
	depth []int32
}

func (p *fifo) Access(r *Req, id BlockID, depth int, hit bool) {
	if hit {
		return
	}
	p.in = grow(p.in, id)
	p.depth = grow(p.depth, id)
	p.in[id], p.depth[id] = int64(r.Index), int32(depth)
}

func (p *fifo) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: float64(p.in[id]), T: -int64(p.depth[id])})
	} else {
		p.order.Remove(id)
	}
}

func (p *fifo) Victim() BlockID { return p.order.Pop() }
