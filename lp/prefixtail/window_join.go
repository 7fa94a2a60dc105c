package prefixtail

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// runPlan is how a run of consecutive windows (one process: every window)
// replays its stitched schedule (package comment, "Seams" and "Joins"):
// the requests [A, A+Whole.Len()) of the trace, re-indexed as Whole,
// served through one cache from empty, ranked
//
//   - over the first StartN requests (the start join, when Start is not
//     nil) by StartRule on Start, the join's own problem (its requests
//     and a lookahead past them), exactly as the previous run's end join
//     replays it;
//   - then by the guide on Whole (rule Guided);
//   - over the last EndN requests (the end join, when End is not nil) the
//     same, except that a block the end join's own replay (End's first
//     EndN requests under EndRule, served in lockstep from empty) holds is
//     never evicted: the shadow of that replay.
//
// Count is Whole's first counted request.
type runPlan struct {
	Whole        *replayTrace
	A            int
	Start, End   *Problem
	StartN, EndN int
	StartRule    Rule
	EndRule      Rule
	Count        int
}

// joinRule returns the rule the join of the trace's requests [s, e)
// replays them by, and the join's problem: the requests [s, e + look)
// (within the trace), so that its rules rank a block by its uses up to
// look requests past the join; the rule is the one of Furthest, Saving
// and Density whose replay of the problem from an empty cache costs
// least (the first on ties). The two runs the join lies between compute
// it alike from the same requests.
func joinRule(src *runSource, s, e, look int, block int64, capacity int, obj Objective) (*Problem, Rule, error) {
	reqs, err := src.slice(s, min(e+look, src.n))
	if err != nil {
		return nil, "", err
	}
	p, err := New(restriction(reqs, 0, len(reqs)), block, capacity, obj)
	if err != nil {
		return nil, "", err
	}
	best, bv := Furthest, math.Inf(1)
	for _, r := range []Rule{Furthest, Saving, Density} {
		_, v, err := p.Replay(r, nil)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", r, err)
		}
		if v < bv {
			best, bv = r, v
		}
	}
	return p, best, nil
}

// replay serves the plan's requests under guide (one value per block
// reference of Whole: the interval ending there kept) and returns the
// hits per request of Whole and the cost of the counted ones. A shadow
// that loses a hit its end join's replay has, or does not hold at the end
// every block that replay holds, is an error (the lemma of the package
// comment says neither happens).
func (rp *runPlan) replay(guide []bool) ([]int, float64, error) {
	w := rp.Whole
	n := w.Len()
	if len(guide) != len(w.prev) {
		return nil, 0, fmt.Errorf("guide of %d values for %d block references", len(guide), len(w.prev))
	}
	pol := &phased{guided: &guided{r: w, guide: guide}}
	if rp.Start != nil {
		pol.start, pol.startN = &ranked{p: rp.Start, rule: rp.StartRule}, rp.StartN
	}
	capTokens := int64(w.capacity) * w.block
	c, err := prefixcache.New(capTokens, w.block, pol)
	if err != nil {
		return nil, 0, err
	}
	endFrom := n
	var sig *prefixcache.Cache
	if rp.End != nil {
		endFrom -= rp.EndN
		if sig, err = prefixcache.New(capTokens, w.block, &ranked{p: rp.End, rule: rp.EndRule}); err != nil {
			return nil, 0, err
		}
		sig.OnEvict(pol.released)
		pol.sigma = sig
	}
	hits := make([]int, n)
	var q prefixcache.Req
	for t := range n {
		sh := -1
		if t >= endFrom {
			eq := &rp.End.Reqs[t-endFrom]
			if sh, err = sig.Serve(eq); err != nil {
				return nil, 0, fmt.Errorf("end join: %w", err)
			}
			pol.held(eq.Blocks)
		}
		q = prefixcache.Req{Index: t, Input: w.Input[t], Blocks: w.chain(t)}
		if hits[t], err = c.Serve(&q); err != nil {
			return nil, 0, err
		}
		if pol.broken {
			return nil, 0, fmt.Errorf("request %d: the shadow of the end join had to evict a block the join's replay holds", rp.A+t)
		}
		if hits[t] < sh {
			return nil, 0, fmt.Errorf("request %d: the shadow of the end join hit %d blocks, its replay %d", rp.A+t, hits[t], sh)
		}
	}
	if sig != nil {
		for _, q := range rp.End.Reqs[:rp.EndN] {
			for _, id := range q.Blocks {
				if sig.Cached(id) && !c.Cached(id) {
					return nil, 0, fmt.Errorf("the shadow of the end join does not hold block %d at request %d, which the join's replay holds", id, rp.A+n)
				}
			}
		}
	}
	v := 0.0
	for t := rp.Count; t < n; t++ {
		v += w.obj.Cost(w.Input[t], hits[t], w.block)
	}
	return hits, v, nil
}

// phased is the policy of a runPlan: keys from the start join's rule over
// its first startN requests, from the guided rule after; while sigma (the
// end join's replay) is set, its blocks rank above every other.
type phased struct {
	start  *ranked
	startN int
	guided *guided
	sigma  *prefixcache.Cache
	keys   []prefixcache.Key
	order  prefixcache.Order
	broken bool
}

// pinned returns the key of a block the end join's replay holds: above
// every key a rule gives.
func pinned() prefixcache.Key { return prefixcache.Key{P: math.Inf(1), T: math.MaxInt64} }

func (p *phased) Access(q *prefixcache.Req, id prefixcache.BlockID, depth int, _ bool) {
	if int(id) >= len(p.keys) {
		p.keys = append(p.keys, make([]prefixcache.Key, int(id)+1-len(p.keys))...)
	}
	if q.Index < p.startN {
		p.keys[id] = p.start.key(q.Index, depth)
		return
	}
	p.keys[id] = p.guided.key(q.Index, depth)
}

// key is id's rank now: pinned while the end join's replay holds it.
func (p *phased) key(id prefixcache.BlockID) prefixcache.Key {
	if p.sigma != nil && p.sigma.Cached(id) {
		return pinned()
	}
	return p.keys[id]
}

func (p *phased) Evictable(id prefixcache.BlockID, on bool) {
	if on {
		p.order.Push(id, p.key(id))
		return
	}
	p.order.Remove(id)
}

func (p *phased) Victim() prefixcache.BlockID {
	v := p.order.Pop()
	if v >= 0 && p.sigma != nil && p.sigma.Cached(v) {
		p.broken = true
	}
	return v
}

// held re-ranks the blocks of a chain the end join's replay has just
// served (it holds them all now).
func (p *phased) held(chain []prefixcache.BlockID) {
	for _, id := range chain {
		if p.order.Contains(id) {
			p.order.Push(id, pinned())
		}
	}
}

// released re-ranks a block the end join's replay has evicted.
func (p *phased) released(id prefixcache.BlockID) {
	if p.order.Contains(id) {
		p.order.Push(id, p.keys[id])
	}
}
