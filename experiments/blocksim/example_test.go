package blocksim_test

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/trace"
)

// A canonical conversation trace is chained per conversation (16-token
// blocks: a's turns have 4 and 6 blocks, b's 1) and replayed under LRU at
// two capacities in one pass, with ξ = 0 so that TEL counts every uncached
// token. With 2 blocks, a's first turn caches only a0 a1, b's turn evicts
// a1, and a's second turn (96 tokens) hits a0: 80 uncached, TEL 64 + 16 +
// 80. With 4 blocks, b's turn evicts a3 and a hits a0 a1 a2: TEL 64 + 16 +
// 48. An infinite cache hits a0…a3 (4 of 11 blocks), which it holds
// between a's turns.
func Example() {
	src := `{"t":0,"conv":"a","prompt":64,"response":16}
{"t":1,"conv":"b","prompt":16,"response":0}
{"t":2,"conv":"a","prompt":16,"response":0}
`
	next, _ := blocksim.CanonicalSource(trace.NewReader(strings.NewReader(src), "example"), 16)
	pols, _ := prefixcache.Parse("lru")
	res, ideal, _ := blocksim.Replay(next, blocksim.SweepRuns(pols, []int64{32, 64}),
		blocksim.Options{Params: instance.Params{BlockSize: 16, Xi: 0}, Model: latency.Default(), SLOMs: 200})
	fmt.Printf("ideal: block hit ratio %.3f, needs %d blocks\n", ideal.BlockHitRatio, ideal.PeakLiveBlocks)
	for _, r := range res {
		fmt.Printf("%s at %d tokens: %d of %d blocks hit, TEL %.0f tokens\n", r.Name, r.CapacityTokens, r.HitBlocks, r.RefBlocks, r.Summary.TELTokens)
	}
	// Output:
	// ideal: block hit ratio 0.364, needs 4 blocks
	// lru at 32 tokens: 1 of 11 blocks hit, TEL 160 tokens
	// lru at 64 tokens: 3 of 11 blocks hit, TEL 128 tokens
}
