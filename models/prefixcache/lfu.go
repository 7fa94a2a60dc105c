package prefixcache

// NewLFU returns LFU: the evictable block used the fewest times since its
// admission goes first, the least recently used among equals.
func NewLFU(Config) (Policy, error) { return &lfu{}, nil }

type lfu struct {
	order Order
	uses  []int64 // uses since admission (the admission counts as one)
	last  []int64 // request index of the latest use
}

func (p *lfu) Access(r *Req, id BlockID, _ int, hit bool) {
	p.uses = grow(p.uses, id)
	p.last = grow(p.last, id)
	if hit {
		p.uses[id]++
	} else {
		p.uses[id] = 1
	}
	p.last[id] = int64(r.Index)
}

func (p *lfu) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: float64(p.uses[id]), T: p.last[id]})
	} else {
		p.order.Remove(id)
	}
}

func (p *lfu) Victim() BlockID { return p.order.Pop() }
