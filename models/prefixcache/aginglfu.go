package prefixcache

// NewAgingLFU returns the Aging-LFU evictor of the prefix-sharing study
// (seed 001): a block's retention score is S = N − A, N its uses since
// admission and A the cache operations (requests served) since its latest
// use; the lowest score goes first. As the study does with its global
// inflation counter, the rank is kept as N + (request index of the latest
// use), which orders blocks exactly as S does at any moment (S plus the
// current request index); ties go to the least recently used.
func NewAgingLFU(Config) (Policy, error) { return &agingLFU{}, nil }

type agingLFU struct {
	order Order
	uses  []int64
	last  []int64
}

func (p *agingLFU) Access(r *Req, id BlockID, _ int, hit bool) {
	p.uses = grow(p.uses, id)
	p.last = grow(p.last, id)
	if hit {
		p.uses[id]++
	} else {
		p.uses[id] = 1
	}
	p.last[id] = int64(r.Index)
}

func (p *agingLFU) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: float64(p.uses[id] + p.last[id]), T: p.last[id]})
	} else {
		p.order.Remove(id)
	}
}

func (p *agingLFU) Victim() BlockID { return p.order.Pop() }
