package prefixcache

// NewGDSF returns Greedy-Dual-Size-Frequency (Cherkasova 1998), the
// baseline the workload study calls GDFS: a block's priority is
// H = L + frequency·cost/size, set at its latest use, where L is the
// priority of the latest victim (the inflation clock); the lowest H goes
// first, the least recently used among equals. Every block has the same
// size (one block) and, in the linear TTFT model, the same cost to bring
// back (α·B ms of prefill), so H = L + frequency: GDSF is LFU with dynamic
// aging here. Frequency counts uses since admission.
func NewGDSF(Config) (Policy, error) { return &gdsf{}, nil }

type gdsf struct {
	order Order
	clock float64
	uses  []int64
	h     []float64
	last  []int64
}

func (p *gdsf) Access(r *Req, id BlockID, _ int, hit bool) {
	p.uses = grow(p.uses, id)
	p.h = grow(p.h, id)
	p.last = grow(p.last, id)
	if hit {
		p.uses[id]++
	} else {
		p.uses[id] = 1
	}
	p.h[id] = p.clock + float64(p.uses[id])
	p.last[id] = int64(r.Index)
}

func (p *gdsf) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: p.h[id], T: p.last[id]})
	} else {
		p.order.Remove(id)
	}
}

func (p *gdsf) Victim() BlockID {
	id, k := p.order.Min()
	if id >= 0 {
		p.clock = k.P
		p.order.Remove(id)
	}
	return id
}

// CachedOnly marks GDSF as keeping state for cached blocks only: a block's
// frequency and priority are reset when it is admitted, and the inflation
// clock is one number, so the cache names blocks to it by slot. Names never
// decide the order: two evictable blocks with the same latest use lie on
// one chain, of which only the deepest cached block is a leaf.
func (*gdsf) CachedOnly() {}
