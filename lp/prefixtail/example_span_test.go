package prefixtail_test

import (
	"fmt"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// ExampleSpanRange: 40 requests in 8 windows of 5; the run of windows 2
// and 3 is requests [10, 20); joins of ±2 requests (at most half a
// window, ⌊5/2⌋ = 2) add 2 before it, and the end join's 2 after it and a
// window of lookahead past them, 5: the run reads [8, 27).
func ExampleSpanRange() {
	lo, hi := prefixtail.SpanRange(40, 8, 2, 3, prefixtail.WindowOptions{JoinRequests: 2})
	fmt.Println(lo, hi)
	// Output: 8 27
}

// ExampleHistoryOf: the window [3, 4) references block 2 only, last used
// before it by request 1; the window [2, 4) references blocks 0, 1, 3
// and 2, of which 0 and 1 were last used by request 0 and 2 by request 1
// (3 is new).
func ExampleHistoryOf() {
	reqs := []prefixcache.Req{
		{Index: 0, Blocks: []prefixcache.BlockID{0, 1}},
		{Index: 1, Blocks: []prefixcache.BlockID{2}},
		{Index: 2, Blocks: []prefixcache.BlockID{0, 1, 3}},
		{Index: 3, Blocks: []prefixcache.BlockID{2}},
	}
	fmt.Println(prefixtail.HistoryOf(reqs, 3, 4), prefixtail.HistoryOf(reqs, 2, 4))
	// Output: [1] [0 1]
}
