package blocktail

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	bprefix "github.com/tailbound/tailbound/belady/prefix"
	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestReplayMatchesBlocksim: lp/prefixtail evaluates a schedule from the
// hits the cache reports; blocksim (simulate --level block) measures TEL
// and violations with its own accumulator. On random chain traces the
// furthest-next-use rule's TEL and violations, as prefixtail computes them,
// equal blocksim's replay of belady/prefix at the same capacity.
func TestReplayMatchesBlocksim(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	m := latency.Default()
	for i := 0; i < 50; i++ {
		block := int64(1 + r.IntN(16))
		var rs []blocktrace.Request
		longest := 0
		for k := 0; k < 40; k++ {
			n := 1 + r.IntN(6)
			h := make([]int64, n)
			h[0] = int64(r.IntN(3))
			for d := 1; d < n; d++ {
				h[d] = h[d-1]*4 + int64(r.IntN(2)) + 1 // chained: the prefix determines the hash
			}
			longest = max(longest, n)
			rs = append(rs, blocktrace.Request{Index: k, Time: float64(k), Input: int64(n-1)*block + 1 + r.Int64N(block), Hashes: h, Conv: -1})
		}
		reqs, err := prefixcache.InternAll(rs)
		if err != nil {
			t.Fatal(err)
		}
		capacity := longest + r.IntN(6)
		xi, s := float64(r.IntN(int(3*block))), int64(r.IntN(int(3*block)))
		tel, err := prefixtail.New(reqs, block, capacity, prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: xi})
		if err != nil {
			t.Fatal(err)
		}
		_, wantTEL, err := tel.Replay(prefixtail.Furthest, nil)
		if err != nil {
			t.Fatal(err)
		}
		slo, _ := prefixtail.New(reqs, block, capacity, prefixtail.Objective{Kind: prefixtail.SLO, SLOTokens: float64(s)})
		_, wantSLO, err := slo.Replay(prefixtail.Furthest, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := bprefix.NewFuture(reqs)
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := blocksim.Replay(blocktrace.StreamSource(&blocktrace.Stream{BlockTokens: int(block), Requests: rs}),
			[]blocksim.Run{{Name: "belady", New: bprefix.NewBelady(f), Capacity: int64(capacity) * block}},
			blocksim.Options{Params: instance.Params{BlockSize: block, Xi: xi}, Model: m, SLOMs: m.TTFTMs(float64(s) + 0.5)})
		if err != nil {
			t.Fatal(err)
		}
		if got := res[0].Summary; math.Abs(got.TELTokens-wantTEL) > 1e-6 || float64(got.Violations) != wantSLO {
			t.Fatalf("instance %d: blocksim TEL %v, violations %d; prefixtail %v, %v", i, got.TELTokens, got.Violations, wantTEL, wantSLO)
		}
	}
}

// TestRunHandWorked: the worked example of lp/prefixtail
// (examples/block/tail-example.jsonl) through Run: optimum 1,336 tokens,
// LRU 1,648 (it evicts block 3 at request 2, as furthest next use does),
// lower ≤ LRU.
func TestRunHandWorked(t *testing.T) {
	tr, err := Load("../../examples/block/tail-example.jsonl", "mooncake", 0)
	if err != nil {
		t.Fatal(err)
	}
	lru, _ := prefixcache.Parse("lru")
	pts, rows, err := Run(context.Background(), tr, Config{Capacities: []int64{2048}, Objective: prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: 200},
		XiTokens: 200, SLOTokens: 300, Model: latency.Default(), Policies: lru, LPSolver: "gonum", IPSolver: "gonum"})
	if err != nil {
		t.Fatal(err)
	}
	if !pts[0].Proven || *pts[0].Optimum != 1336 || !pts[0].OrderHolds || len(rows) != 1 || rows[0].TELTokens != 1648 || rows[0].Violations != 2 {
		t.Errorf("points %+v rows %+v", pts, rows)
	}
}
