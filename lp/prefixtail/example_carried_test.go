package prefixtail_test

import (
	"fmt"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// A window of two requests, chains 0→1→2 and 0→3, after a trace that
// used blocks 0, 1 and 4 (the request just before it: 0→4). The carried
// forest is {0, 1} (2 and 3 are new; 4 is not in the window), its one
// leaf 1, so one history request 0→1; then the part of the request
// before that the window references, 0 (4 is not referenced), so that
// the window's first request hits block 0 as a constant, as it would
// after 0→4. Inputs are the chains' tokens (blocks of 16 tokens).
func ExampleCarriedHistory() {
	win := []prefixcache.Req{{Index: 0, Input: 40, Blocks: []prefixcache.BlockID{0, 1, 2}}, {Index: 1, Input: 20, Blocks: []prefixcache.BlockID{0, 3}}}
	usedBefore := map[prefixcache.BlockID]bool{0: true, 1: true, 4: true}
	hist, err := prefixtail.CarriedHistory(win, []prefixcache.BlockID{0, 4}, 16, func(id prefixcache.BlockID) bool { return usedBefore[id] })
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hist {
		fmt.Println(h.Blocks, h.Input, "tokens")
	}
	// Output:
	// [0 1] 32 tokens
	// [0] 16 tokens
}
