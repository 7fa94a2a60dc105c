package replay_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// Replay reads a trace once for several policies, each with its own cache.
// Here A and B alternate in a cache of 100 tokens: when A returns, LRU
// takes B's blocks and FIFO A's own (A entered first), so B's return hits
// 60 tokens under FIFO and 20 under LRU.
func ExampleReplay() {
	const a, b = 0, 1 // conversation ids
	turns := []trace.Turn{{Index: 0, Conv: a, Prompt: 60}, {Index: 1, Conv: b, Prompt: 60}, {Index: 2, Conv: a, Prompt: 20}, {Index: 3, Conv: b, Prompt: 20}}
	p := instance.Params{Capacity: 100, BlockSize: 1, Xi: 0}
	lru, _ := policy.NewLRU(policy.Config{Params: p}) // online constructors do not fail
	fifo, _ := policy.NewFIFO(policy.Config{Params: p})
	res, err := replay.Replay(replay.SliceSource(turns), []replay.Named{{Name: "lru", Policy: lru}, {Name: "fifo", Policy: fifo}},
		replay.Options{Params: p, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: %g uncached tokens, %d evictions of %d tokens\n", r.Name, r.Summary.TELTokens, r.Evictions, r.EvictedTokens)
	}
	// Output:
	// lru: 220 uncached tokens, 3 evictions of 120 tokens
	// fifo: 180 uncached tokens, 3 evictions of 80 tokens
}
