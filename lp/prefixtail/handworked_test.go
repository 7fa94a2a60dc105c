package prefixtail

import (
	"context"
	"testing"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// handTrace is examples/block/tail-example.jsonl: B = 512 tokens, C = 4
// blocks. A long request L = [1 2 3] (1,536 tokens), short ones [4], [5],
// [4] (100 tokens each), then L again. At request 2 one of the leaves 3
// (next use 4) and 4 (next use 3) must go. Furthest next use evicts 3: L
// then misses its last block, b = 512. Keeping 3 and evicting 4 costs the
// short request a miss of 100 tokens instead. Both schedules miss one
// block; their tails differ.
func handTrace(t *testing.T) []prefixcache.Req {
	t.Helper()
	in := []struct {
		d  int64
		hs []int64
	}{{1536, []int64{1, 2, 3}}, {100, []int64{4}}, {100, []int64{5}}, {100, []int64{4}}, {1536, []int64{1, 2, 3}}}
	var rs []blocktrace.Request
	for i, r := range in {
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: r.d, Hashes: r.hs, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestHandWorked: with ξ = 200 tokens, request 0 always costs 1536 − 200 =
// 1,336 and the short requests nothing, so the optimum is 1,336 (keep 3)
// and furthest next use costs 1,336 + (512 − 200) = 1,648. With an SLO of
// 300 tokens request 0 always violates; furthest next use also makes
// request 4 violate (512 > 300): 2 against the optimum's 1.
func TestHandWorked(t *testing.T) {
	reqs := handTrace(t)
	for _, c := range []struct {
		obj           Objective
		opt, furthest float64
	}{
		{Objective{Kind: TEL, XiTokens: 200}, 1336, 1648},
		{Objective{Kind: SLO, SLOTokens: 300}, 1, 2},
	} {
		p, err := New(reqs, 512, 4, c.obj)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Bound(context.Background(), Options{IP: gonumlp.Backend{}, LP: gonumlp.Backend{}})
		if err != nil {
			t.Fatal(err)
		}
		if !b.Proven || *b.Optimum != c.opt || b.Heuristics[0].Rule != string(Furthest) || b.Heuristics[0].Value != c.furthest {
			t.Errorf("%s: bounds %+v, want optimum %v and furthest-next-use %v", c.obj.Kind, b, c.opt, c.furthest)
		}
	}
}
