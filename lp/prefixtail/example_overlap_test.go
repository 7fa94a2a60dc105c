package prefixtail_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// ExampleWindowOptions_lowerOverlap bounds the TEL optimum of one-block
// requests [1] [2] [1] [2] of 512 tokens (B = 512 tokens, C = 1 block,
// ξ = 200 tokens: every request misses, 312 tokens each, OPT = 1,248) in
// two windows. Without an overlap the second window's relaxation starts
// with block 1 cached for free and hits it at request 2 (lower 936); with
// an overlap of one request, request 1 is counted half in each window and
// block 1 must be held over it, where the cache has no room: the lower
// bound is the optimum (TestLowerOverlapHandWorked works it out).
func ExampleWindowOptions_lowerOverlap() {
	var rs []blocktrace.Request
	for i := range 4 {
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: 512, Hashes: []int64{int64(1 + i%2)}, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	obj := prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: 200}
	for _, l := range []int{0, 1} {
		wo := prefixtail.WindowOptions{LowerOverlapRequests: l}
		wb, err := prefixtail.Windowed(context.Background(), reqs, 512, 1, obj, 2, wo, prefixtail.Options{IP: gonumlp.Backend{}})
		if err != nil {
			panic(err)
		}
		lo, hi := prefixtail.RelaxationRange(len(reqs), 2, 1, wo)
		fmt.Printf("overlap %d: second relaxation on requests [%d, %d), windows' lower bounds %.0f + %.0f, TEL in [%.0f, %.0f] tokens, proven %v\n",
			l, lo, hi, wb.PerWindow[0].Lower, wb.PerWindow[1].Lower, wb.Lower, wb.Upper, wb.Proven)
	}
	fmt.Printf("overlap weights of 3 requests in the later window: %v %v %v\n",
		prefixtail.OverlapWeight(0, 3), prefixtail.OverlapWeight(1, 3), prefixtail.OverlapWeight(2, 3))
	// Output:
	// overlap 0: second relaxation on requests [2, 4), windows' lower bounds 624 + 312, TEL in [936, 1248] tokens, proven false
	// overlap 1: second relaxation on requests [1, 4), windows' lower bounds 468 + 780, TEL in [1248, 1248] tokens, proven true
	// overlap weights of 3 requests in the later window: 0.25 0.5 0.75
}
