package prefixcache

import (
	"fmt"
	"math"
	"strconv"
)

// NewTLRU returns prefix T-LRU, the tail-latency paper's T-LRU carried to
// shared prefixes, with a guard against dead blocks.
//
// T-LRU first evicts the blocks that lie beyond a conversation's TEL-safe
// budget — caching them cannot lower the next turn's excess over ξ — and
// then falls back to LRU. In a prefix tree the blocks a future request can
// use are the prefix of its chain, and under the orphan-free rule only
// leaves are evicted, so the question is asked of a leaf: evicting the leaf
// at depth d leaves d blocks of its path cached, and a request continuing
// that path with a load of D tokens then has D − d·B uncached tokens. The
// eviction is TEL-safe when D − d·B ≤ ξ for the continuation we expect,
// D̂ = reach + Q̂: reach is the input of the latest request that used the
// block (the history of the path, T-LRU's H) and Q̂ the tokens a
// continuation adds (T-LRU's next-prompt estimate). So a leaf is safe iff
//
//	d·B ≥ reach + Q̂ − ξ,
//
// which is T-LRU's budget ⌈(H + Q̂ − ξ)⁺/B⌉ blocks read from the leaf's
// side. A block shared by many chains stays a non-leaf while any of its
// continuations is cached, so it is never taken before them; once it is a
// leaf its reach is that of the latest chain through it.
//
// A block that will not be used again cannot lower any future request's
// excess either, and plain T-LRU would keep such a dead block, if unsafe,
// while it sheds live safe ones. So a leaf idle for longer than the
// lifespan L — the tlru-life-quantile (default 0.99) quantile of the reuse
// times seen so far (times between consecutive uses of a block, from a
// histogram with four bins per octave; +∞ until 16 reuses are seen) — is
// taken as dead.
//
// Eviction: the least recently used leaf if it is dead; else the least
// recently used safe leaf; else the least recently used leaf. Safety is
// decided when a block becomes evictable (with the Q̂ of that moment) and
// kept while it waits, as T-LRU keeps its values between a conversation's
// turns. Q̂ is cfg.QHat, or by default the running mean of the new tokens
// of continuations: requests whose first two blocks or more were seen
// before, counting the tokens beyond that seen prefix (the previous
// response and the new prompt). Until such a request is seen, the mean
// over all requests is used.
func NewTLRU(cfg Config) (Policy, error) {
	if cfg.BlockSize < 1 {
		return nil, fmt.Errorf("tlru: block size %d tokens must be ≥ 1", cfg.BlockSize)
	}
	p := &tlru{block: float64(cfg.BlockSize), xi: cfg.Xi, qhat: cfg.QHat, lifeQ: 0.99, life: math.Inf(1)}
	if v, ok := cfg.Options["tlru-life-quantile"]; ok {
		q, err := strconv.ParseFloat(v, 64)
		if err != nil || !(q > 0 && q <= 1) {
			return nil, fmt.Errorf("tlru: option tlru-life-quantile=%q: want a fraction in (0, 1]", v)
		}
		p.lifeQ = q
	}
	return p, nil
}

type tlru struct {
	safe, rest  Order
	block, xi   float64
	qhat        float64 // fixed Q̂, tokens; 0 = auto
	contSum     float64
	contN       float64
	allSum      float64
	allN        float64
	last, reach []int64
	depth       []int32
	// Reuse times: the histogram, the count and the lifespan L (s).
	lifeQ    float64
	hist     [waBins]int64
	reuses   int64
	nextLife int64
	life     float64
	now      float64
	used     []float64 // time of a block's latest use, s; NaN before its first
}

// Observe updates the running means of new tokens and the reuse times.
func (p *tlru) Observe(r *Req) {
	p.now = r.Time
	for _, id := range r.Blocks {
		if int(id) >= len(p.used) {
			n := len(p.used)
			p.used = grow(p.used, id)
			for i := n; i < len(p.used); i++ {
				p.used[i] = math.NaN()
			}
		}
		if t := p.used[id]; !math.IsNaN(t) {
			p.hist[waBin(r.Time-t)]++
			p.reuses++
		}
		p.used[id] = r.Time
	}
	if p.reuses >= waMinSamples && p.reuses >= p.nextLife {
		p.life = quantile(p.hist[:], p.reuses, p.lifeQ)
		p.nextLife = p.reuses + max(p.reuses/64, 64)
	}
	novel := max(float64(r.Input)-float64(r.Seen)*p.block, 0)
	p.allSum += novel
	p.allN++
	if r.Seen >= 2 {
		p.contSum += novel
		p.contN++
	}
}

// QHat returns the current estimate Q̂ in tokens.
func (p *tlru) QHat() float64 {
	switch {
	case p.qhat > 0:
		return p.qhat
	case p.contN > 0:
		return p.contSum / p.contN
	case p.allN > 0:
		return p.allSum / p.allN
	}
	return 0
}

func (p *tlru) Access(r *Req, id BlockID, depth int, _ bool) {
	p.last = grow(p.last, id)
	p.reach = grow(p.reach, id)
	p.depth = grow(p.depth, id)
	p.last[id], p.reach[id], p.depth[id] = int64(r.Index), r.Input, int32(depth)
}

func (p *tlru) Evictable(id BlockID, on bool) {
	if !on {
		if !p.safe.Remove(id) {
			p.rest.Remove(id)
		}
		return
	}
	k := Key{P: float64(p.last[id]), T: -int64(p.depth[id])}
	if float64(p.depth[id])*p.block >= float64(p.reach[id])+p.QHat()-p.xi {
		p.safe.Push(id, k)
	} else {
		p.rest.Push(id, k)
	}
}

func (p *tlru) Victim() BlockID {
	if id, _ := p.rest.Min(); id >= 0 && p.now-p.used[id] > p.life {
		return p.rest.Pop()
	}
	if p.safe.Len() > 0 {
		return p.safe.Pop()
	}
	return p.rest.Pop()
}
