package prefixtail

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// joinRule returns the rule the join of the trace's requests [s, e)
// replays them by, and the join's problem: the requests [s, e + look)
// (within the trace), so that its rules rank a block by its uses up to
// look requests past the join; the rule is the one of Furthest, Saving
// and Density whose replay of the problem from an empty cache costs
// least (the first on ties). The two runs the join lies between compute
// it alike from the same requests, which slice returns (n: the trace's).
func joinRule(slice func(lo, hi int) ([]prefixcache.Req, error), n, s, e, look int, block int64, capacity int, obj Objective) (*Problem, Rule, error) {
	reqs, err := slice(s, min(e+look, n))
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

// pinned returns the key of a block the end join's replay holds: above
// every key a rule gives.
func pinned() prefixcache.Key { return prefixcache.Key{P: math.Inf(1), T: math.MaxInt64} }
