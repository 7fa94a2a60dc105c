package blockgap_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/experiments/blockgap"
	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Example measures LRU against the hindsight optimum on single-block
// chains 1 2 3 1 at a capacity of two blocks: LRU evicts 1 for 3 and
// misses all four; the optimum evicts 2, never used again, and hits 1.
func Example() {
	s := &blocktrace.Stream{BlockTokens: 16}
	for i, h := range []int64{1, 2, 3, 1} {
		s.Requests = append(s.Requests, blocktrace.Request{Time: float64(i), Input: 16, Hashes: []int64{h}, Conv: -1})
	}
	lru, err := prefixcache.Parse("lru")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := latency.Default()
	rows, bounds, err := blockgap.Run(context.Background(), s, blockgap.Config{Capacities: []int64{32}, Policies: lru,
		LPSolver: "gonum", IPSolver: "gonum", Replay: blocksim.Options{Params: instance.Params{Xi: 100}, Model: m, SLOMs: 200}})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := bounds[0]
	fmt.Printf("LP %g, IP %g, hindsight %d misses; order holds: %v\n", b.LP.MissBlocks, b.IP.MissBlocks, b.HindsightMissBlocks, b.OrderHolds)
	for _, r := range rows {
		fmt.Printf("%s: %d misses, gap %d\n", r.Policy, r.MissBlocks, r.GapBlocks)
	}
	// Output:
	// LP 3, IP 3, hindsight 3 misses; order holds: true
	// hindsight-belady: 3 misses, gap 0
	// lru: 4 misses, gap 1
}
