package prefixtail

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// Rule names a hindsight eviction rule: how a block is ranked, when it is
// accessed at request t, by its next interval (t, q). The cache evicts the
// evictable leaf of smallest rank; blocks never used again rank lowest.
type Rule string

// The hindsight rules of the upper bound.
const (
	// Furthest is furthest next use (hit-optimal; belady/prefix's rule).
	Furthest Rule = "furthest-next-use"
	// Saving ranks by the interval's weight (the tail it saves at q), ties
	// by furthest next use.
	Saving Rule = "least-saving"
	// Density ranks by weight per request held, w/(q − t).
	Density Rule = "least-saving-per-request"
	// Guided ranks by a value per interval given to the replay (the LP
	// solution for rounding, the IP solution for its schedule), ties by
	// furthest next use.
	Guided Rule = "lp-rounding"
	// GuidedDensity is Guided with ties (values within 10⁻³) broken by
	// Density instead of furthest next use.
	GuidedDensity Rule = "lp-rounding-density"
)

// Replay runs the cache on the problem's trace under rule, with guide
// giving a value per column for Guided (nil otherwise), and returns the
// hits per request and the cost they give. Each hit count is the cache's
// own (prefixcache.Cache.Serve).
func (p *Problem) Replay(rule Rule, guide []float64) ([]int, float64, error) {
	if (rule == Guided || rule == GuidedDensity) && len(guide) != len(p.Cols) {
		return nil, 0, fmt.Errorf("rule %s needs one value per interval (%d), got %d", rule, len(p.Cols), len(guide))
	}
	pol := &ranked{p: p, rule: rule, guide: guide}
	c, err := prefixcache.New(int64(p.CapacityBlocks)*p.BlockTokens, p.BlockTokens, pol)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]int, len(p.Reqs))
	for t := range p.Reqs {
		h, err := c.Serve(&p.Reqs[t])
		if err != nil {
			return nil, 0, err
		}
		hits[t] = h
	}
	return hits, p.Evaluate(hits), nil
}

// ranked is the policy of a Rule: an Order of the evictable blocks keyed
// at their latest access.
type ranked struct {
	p     *Problem
	rule  Rule
	guide []float64
	keys  []prefixcache.Key
	order prefixcache.Order
}

func (r *ranked) Access(q *prefixcache.Req, id prefixcache.BlockID, depth int, _ bool) {
	if int(id) >= len(r.keys) {
		r.keys = append(r.keys, make([]prefixcache.Key, int(id)+1-len(r.keys))...)
	}
	r.keys[id] = r.key(q.Index, depth)
}

// key ranks the block at depth d of request t by its next interval.
func (r *ranked) key(t, d int) prefixcache.Key {
	p := r.p
	nx := p.next[p.off[t]+d]
	if nx < 0 {
		return prefixcache.Key{P: math.Inf(-1)}
	}
	if r.rule == Furthest {
		return prefixcache.Key{P: -float64(nx)}
	}
	w, x := 0.0, 0.0
	if col := p.endCol[p.off[nx]+d]; col >= 0 {
		w = p.Cols[col].Weight
		if r.guide != nil {
			x = r.guide[col]
		}
	} else if int(nx) == t+1 {
		return prefixcache.Key{P: math.Inf(1)} // hit at the next request whatever happens
	}
	switch r.rule {
	case Saving:
		return prefixcache.Key{P: w, T: -int64(nx)}
	case Density:
		return prefixcache.Key{P: w / float64(int(nx)-t), T: -int64(nx)}
	case GuidedDensity:
		d := w / float64(int(nx)-t)
		return prefixcache.Key{P: x + 1e-3*d/(1+d), T: -int64(nx)}
	}
	return prefixcache.Key{P: x, T: -int64(nx)}
}

func (r *ranked) Evictable(id prefixcache.BlockID, on bool) {
	if on {
		r.order.Push(id, r.keys[id])
		return
	}
	r.order.Remove(id)
}

func (r *ranked) Victim() prefixcache.BlockID { return r.order.Pop() }
