package prefixtail_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// ExampleWindowedLookahead bounds the six one-block requests A B C | C C
// A (B = 1 token, inputs of 1 token, ξ = 0: a miss costs 1 token; C = 2
// blocks) in two windows, reading them one at a time, with the stitched
// replay's lookahead bounded. With the next uses up to 1 request past
// window 0's end (request 3) the replay cannot tell A, used again at 5,
// from B, never used again, and evicts A, the least recently accessed,
// for C: A misses at 5. With 3 it knows A's next use and evicts B: the
// optimum, 3 (TestLookaheadHandWorked works both out). The lower bound
// does not depend on the lookahead.
func ExampleWindowedLookahead() {
	var rs []blocktrace.Request
	for i, h := range []int64{10, 20, 30, 30, 30, 10} {
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: 1, Hashes: []int64{h}, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	obj := prefixtail.Objective{Kind: prefixtail.TEL}
	for _, h := range []int{1, 3} {
		wb, err := prefixtail.WindowedLookahead(context.Background(), prefixtail.FlatSource(prefixtail.FlatOf(reqs)), len(reqs), 1, 2, obj, 2, h,
			prefixtail.WindowOptions{}, prefixtail.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Printf("lookahead %d requests: TEL in [%.0f, %.0f] tokens\n", h, wb.Lower, wb.Upper)
	}
	// Output:
	// lookahead 1 requests: TEL in [3, 4] tokens
	// lookahead 3 requests: TEL in [3, 3] tokens
}
