package prefixcache

// NewLFU returns LFU: the evictable block used the fewest times since its
// admission goes first, the least recently used among equals.
func NewLFU(Config) (Policy, error) {
	return &frequency{rank: func(uses, _ int64) float64 { return float64(uses) }}, nil
}

// NewAgingLFU returns the Aging-LFU evictor of the prefix-sharing study
// (seed 001): a block's retention score is S = N − A, N its uses since
// admission and A the cache operations (requests served) since its latest
// use; the lowest score goes first. As the study does with its global
// inflation counter, the rank is kept as N + (request index of the latest
// use), which orders blocks exactly as S does at any moment (S plus the
// current request index); ties go to the least recently used.
func NewAgingLFU(Config) (Policy, error) {
	return &frequency{rank: func(uses, last int64) float64 { return float64(uses + last) }}, nil
}

// frequency is a frequency-based evictor: the evictable block of lowest
// rank goes first, the least recently used among equals. rank computes a
// block's rank from its uses since admission (the admission counts as one)
// and the request index of its latest use.
type frequency struct {
	rank  func(uses, last int64) float64
	order Order
	uses  []int64 // uses since admission
	last  []int64 // request index of the latest use
}

func (p *frequency) Access(r *Req, id BlockID, _ int, hit bool) {
	p.uses = grow(p.uses, id)
	p.last = grow(p.last, id)
	if hit {
		p.uses[id]++
	} else {
		p.uses[id] = 1
	}
	p.last[id] = int64(r.Index)
}

func (p *frequency) Evictable(id BlockID, on bool) {
	if on {
		p.order.Push(id, Key{P: p.rank(p.uses[id], p.last[id]), T: p.last[id]})
	} else {
		p.order.Remove(id)
	}
}

func (p *frequency) Victim() BlockID { return p.order.Pop() }

// CachedOnly marks LFU and Aging-LFU as keeping state for cached blocks
// only: a block's uses and latest use are reset when it is admitted, so
// nothing of an evicted block survives its eviction, and the cache names
// blocks to them by slot. Names never decide the order: two evictable
// blocks with the same latest use were used by the same request, so they
// lie on one chain, and only the deepest cached block of a chain is a leaf.
func (*frequency) CachedOnly() {}
