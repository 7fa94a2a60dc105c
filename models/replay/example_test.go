package replay_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// Replay runs several policies over one reading of a trace; each result
// carries the policy's name and its summary.
func ExampleReplay() {
	cfg := policy.Config{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, QHat: 100}
	lru, _ := policy.NewLRU(cfg)
	tlru, _ := policy.NewTLRU(cfg)
	res, err := replay.Replay(replay.SliceSource(fig1().Turns), []replay.Named{{Name: "lru", Policy: lru}, {Name: "tlru", Policy: tlru}},
		replay.Options{Params: cfg.Params, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: TEL %g tokens, largest uncached load %d tokens\n", r.Name, r.Summary.TELTokens, r.Summary.MaxUncached)
	}
	// Output:
	// lru: TEL 50 tokens, largest uncached load 200 tokens
	// tlru: TEL 0 tokens, largest uncached load 150 tokens
}
