package prefixcache

import (
	"fmt"
	"math"
	"strconv"
)

// NewWorkloadAware returns the workload-aware policy of the workload study
// (seed 000, §4.2): evict the block with the lowest priority
//
//	(ReuseProb_w(t, life), −offset)
//
// compared lexicographically, where w is the category of the request that
// used the block last, t the seconds since that use and offset the block's
// depth in its chain (deeper blocks go first among equal probabilities).
//
// Categories are the study's "type plus turn number": the request's
// category and its turn within its conversation, turns above wa-max-turn
// (default 5) pooled; a trace without types or links has one category per
// turn number, or just one.
//
// ReuseProb is fitted per category on a sliding window of the trace
// (wa-window seconds, default 600, in 20 slices): every use of a block that
// was used before is a reuse event of the category of its previous use,
// with reuse time the seconds in between. In the window, category w has
// n reuse events of total time S over a uses: the reuse times are fitted by
// an exponential of rate λ = n/S (maximum likelihood), the probability that
// a use is ever followed by a reuse is p = n/a, and the lifespan L is the
// wa-life-quantile (default 0.99) quantile of the reuse times (from a
// histogram with four bins per octave). A block unused for t seconds is
// reused within its lifespan with probability
//
//	ReuseProb_w(t, L) = p·(e^{−λt} − e^{−λL}) / (1 − p + p·e^{−λt})  for t < L,
//	                    0                                             for t ≥ L,
//
// the exponential truncated at the lifespan ("lifespan regulation": no
// reuse is expected of a block older than its category's lifespan). A
// category with fewer than 16 reuse events in the window uses the fit of
// all categories pooled; with none at all, ReuseProb = 1/(1 + t), which
// makes the policy LRU. Fits are refreshed when the window slides and, at
// the start, whenever the number of reuse events has doubled.
//
// For the study's ablation (its Figure 28) parts can be switched off:
// wa-categories=off pools every request into one category (no workload
// awareness: one fitted distribution), wa-life=off drops the lifespan
// regulation (L = ∞: the plain fitted exponential), wa-offset=off drops the
// depth tie-break (equal probabilities go oldest first).
//
// Frequency is not used, as in the study. Eviction is O(W) for W
// categories, as in the study's optimisation: within a category ReuseProb
// falls with t, so each category keeps its evictable blocks ordered by the
// time of their latest use and only the W oldest are compared (within a
// category, equal probabilities are therefore broken by age, not depth).
func NewWorkloadAware(cfg Config) (Policy, error) {
	p := &workloadAware{window: 600, lifeQ: 0.99, maxTurn: 5, cats: map[[2]int]int{}}
	for key, v := range cfg.Options {
		var err error
		switch key {
		case "wa-window":
			p.window, err = strconv.ParseFloat(v, 64)
			if err == nil && !(p.window > 0 && !math.IsInf(p.window, 0)) {
				err = fmt.Errorf("want seconds > 0")
			}
		case "wa-life-quantile":
			p.lifeQ, err = strconv.ParseFloat(v, 64)
			if err == nil && !(p.lifeQ > 0 && p.lifeQ <= 1) {
				err = fmt.Errorf("want a fraction in (0, 1]")
			}
		case "wa-categories", "wa-life", "wa-offset":
			var on bool
			switch v {
			case "on":
				on = true
			case "off":
			default:
				err = fmt.Errorf("want on or off")
			}
			switch key {
			case "wa-categories":
				p.noCats = !on
			case "wa-life":
				p.noLife = !on
			default:
				p.noOffset = !on
			}
		case "wa-max-turn":
			p.maxTurn, err = strconv.Atoi(v)
			if err == nil && p.maxTurn < 1 {
				err = fmt.Errorf("want ≥ 1")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("workload-aware: option %s=%q: %v", key, v, err)
		}
	}
	p.slice = p.window / waSlices
	return p, nil
}

const (
	waSlices     = 20
	waBins       = 4 * 48 // four per octave from 1 ms
	waMinSamples = 16
)

type workloadAware struct {
	window, slice, lifeQ float64
	maxTurn              int
	noCats, noLife       bool // ablation switches (wa-categories, wa-life = off)
	noOffset             bool // wa-offset = off
	cats                 map[[2]int]int
	queues               []Order // per category: evictable blocks by latest use
	ring                 [][waSlices]waStats
	pooled               waFit
	fits                 []waFit
	cur                  int64 // index of the current slice (time / slice)
	events, nextFit      int64
	now                  float64
	cat                  []int32
	last                 []float64 // time of the latest use, s
	used                 []bool    // used before
	depth                []int32
}

// waStats are one category's reuse statistics over one slice of time.
type waStats struct {
	n, uses int64
	sum     float64
	hist    [waBins]int32
}

type waFit struct {
	ok            bool
	p, rate, life float64
}

func (f waFit) prob(t float64) float64 {
	if !f.ok {
		return 1 / (1 + t)
	}
	if t >= f.life {
		return 0
	}
	e := math.Exp(-f.rate * t)
	return f.p * (e - math.Exp(-f.rate*f.life)) / (1 - f.p + f.p*e)
}

func waBin(dt float64) int {
	if dt <= 0.001 {
		return 0
	}
	return min(int(4*math.Log2(dt*1000)), waBins-1)
}

// Observe records r's uses and reuse events and slides the window.
func (p *workloadAware) Observe(r *Req) {
	p.now = r.Time
	if s := int64(math.Floor(r.Time / p.slice)); s != p.cur {
		for i := p.cur + 1; i <= s && i <= p.cur+waSlices; i++ {
			for c := range p.ring {
				p.ring[c][(i%waSlices+waSlices)%waSlices] = waStats{}
			}
		}
		p.cur = s
		p.refit()
	}
	w := p.category(r)
	slot := int((p.cur%waSlices + waSlices) % waSlices)
	p.ring[w][slot].uses += int64(len(r.Blocks))
	for _, id := range r.Blocks {
		p.cat = grow(p.cat, id)
		p.last = grow(p.last, id)
		p.used = grow(p.used, id)
		if p.used[id] {
			prev := p.cat[id]
			// The deepest hit block may be waiting in its queue; the cache
			// pins it next, so it leaves the evictable set here.
			p.queues[prev].Remove(id)
			st := &p.ring[prev][slot]
			dt := r.Time - p.last[id]
			st.n++
			st.sum += dt
			st.hist[waBin(dt)]++
			p.events++
		}
		p.used[id] = true
		p.cat[id] = int32(w)
		p.last[id] = r.Time
	}
	if p.events >= p.nextFit {
		p.refit()
		p.nextFit = max(2*p.events, waMinSamples)
	}
}

func (p *workloadAware) category(r *Req) int {
	k := [2]int{r.Category, min(r.Turn, p.maxTurn)}
	if p.noCats {
		k = [2]int{}
	}
	w, ok := p.cats[k]
	if !ok {
		w = len(p.fits)
		p.cats[k] = w
		p.fits = append(p.fits, p.pooled)
		p.queues = append(p.queues, Order{})
		p.ring = append(p.ring, [waSlices]waStats{})
	}
	return w
}

func (p *workloadAware) refit() {
	var all waStats
	sums := make([]waStats, len(p.ring))
	for c := range p.ring {
		for _, st := range p.ring[c] {
			sums[c].add(&st)
		}
		all.add(&sums[c])
	}
	p.pooled = all.fit(p.lifeQ, p.noLife)
	for c := range sums {
		if sums[c].n >= waMinSamples {
			p.fits[c] = sums[c].fit(p.lifeQ, p.noLife)
		} else {
			p.fits[c] = p.pooled
		}
	}
}

func (s *waStats) add(o *waStats) {
	s.n += o.n
	s.uses += o.uses
	s.sum += o.sum
	for i := range s.hist {
		s.hist[i] += o.hist[i]
	}
}

func (s *waStats) fit(q float64, noLife bool) waFit {
	if s.n < waMinSamples || s.uses == 0 {
		return waFit{}
	}
	f := waFit{ok: true, p: min(float64(s.n)/float64(s.uses), 1), rate: float64(s.n) / max(s.sum, 1e-3*float64(s.n))}
	f.life = quantile(s.hist[:], s.n, q)
	if noLife {
		f.life = math.Inf(1)
	}
	return f
}

// quantile returns the upper edge, in seconds, of the histogram bin (see
// waBin) that holds the q-quantile of n reuse times.
func quantile[T int32 | int64](hist []T, n int64, q float64) float64 {
	need := int64(math.Ceil(q * float64(n)))
	var seen int64
	for i, c := range hist {
		seen += int64(c)
		if seen >= need {
			return math.Exp2(float64(i+1)/4) / 1000
		}
	}
	return math.Inf(1)
}

func (p *workloadAware) Access(_ *Req, id BlockID, depth int, _ bool) {
	p.depth = grow(p.depth, id)
	p.depth[id] = int32(depth)
}

func (p *workloadAware) push(id BlockID) {
	k := Key{P: p.last[id], T: -int64(p.depth[id])}
	if p.noOffset {
		k.T = 0
	}
	p.queues[p.cat[id]].Push(id, k)
}

func (p *workloadAware) Evictable(id BlockID, on bool) {
	if on {
		p.push(id)
	} else {
		p.queues[p.cat[id]].Remove(id)
	}
}

func (p *workloadAware) Victim() BlockID {
	best, bw := BlockID(-1), -1
	var bp float64
	var bk Key
	for w := range p.queues {
		id, k := p.queues[w].Min()
		if id < 0 {
			continue
		}
		pr := p.fits[w].prob(p.now - k.P)
		if best < 0 || pr < bp || pr == bp && (k.T < bk.T || k.T == bk.T && (k.P < bk.P || k.P == bk.P && id < best)) {
			best, bw, bp, bk = id, w, pr, k
		}
	}
	if best >= 0 {
		p.queues[bw].Remove(best)
	}
	return best
}
