package prefixtail_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// ExampleWindowed bounds the TEL optimum of a five-request trace (a long
// chain [1 2 3], three short requests, the long chain again; B = 512
// tokens, C = 4 blocks, ξ = 200 tokens) in two windows. The optimum is
// 1,336 tokens; the lower bound reaches it, since the second window's
// relaxation carries the long chain for free, and the stitched schedule,
// which drops what crosses the windows' boundary, keeps two of its three
// blocks by lazy eviction (TestWindowedHandWorked works it out). A seam
// of ±3 requests, the whole trace here, re-solves the boundary: its
// schedule keeps the long chain across it, and the upper bound meets the
// optimum (TestWindowedSeamHandWorked).
func ExampleWindowed() {
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
		panic(err)
	}
	obj := prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: 200}
	for _, h := range []int{0, 3} {
		wb, err := prefixtail.Windowed(context.Background(), reqs, 512, 4, obj, 2, prefixtail.WindowOptions{SeamRequests: h}, prefixtail.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Printf("seams ±%d requests: TEL in [%.0f, %.0f] tokens, %d windows, proven %v\n", h, wb.Lower, wb.Upper, wb.Windows, wb.Proven)
	}
	// Output:
	// seams ±0 requests: TEL in [1336, 1648] tokens, 2 windows, proven false
	// seams ±3 requests: TEL in [1336, 1336] tokens, 2 windows, proven true
}
