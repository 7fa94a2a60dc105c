package sim_test

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// The tail-latency paper's first figure as a canonical trace: LRU leaves 200
// tokens uncached when A comes back, T-LRU (ξ = 150, Q̂ = 100) only 150.
func ExampleReader() {
	const tr = `{"t": 0, "conv": "A", "prompt": 100, "response": 0}
{"t": 1, "conv": "B", "prompt": 100, "response": 0}
{"t": 2, "conv": "A", "prompt": 100, "response": 0}
`
	entries, _ := policies.Parse("lru,tlru,to-belady")
	s := sim.Settings{
		Options: replay.Options{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, Model: latency.Default(), SLOMs: 200},
		QHat:    100,
	}
	res, err := sim.Reader(strings.NewReader(tr), "fig1.jsonl", entries, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: max uncached %d tokens, TEL %g tokens\n", r.Name, r.Summary.MaxUncached, r.Summary.TELTokens)
	}
	// Output:
	// lru: max uncached 200 tokens, TEL 50 tokens
	// tlru: max uncached 150 tokens, TEL 0 tokens
	// to-belady: max uncached 100 tokens, TEL 0 tokens
}

// The first figure's trace swept over capacity: LRU leaves A's whole
// 100-token history uncached unless both histories fit (200 tokens).
func ExampleCapacitySweep() {
	const text = `{"t": 0, "conv": "A", "prompt": 100, "response": 0}
{"t": 1, "conv": "B", "prompt": 100, "response": 0}
{"t": 2, "conv": "A", "prompt": 100, "response": 0}
`
	tr, err := trace.ReadAll(strings.NewReader(text), "fig1.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	entries, _ := policies.Parse("lru")
	s := sim.Settings{Options: replay.Options{Params: instance.Params{BlockSize: 1, Xi: 150}, Model: latency.Default(), SLOMs: 200}}
	sw, err := sim.CapacitySweep(tr, entries, s, []int64{0, 100, 200}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, c := range sw.Capacities {
		fmt.Printf("C=%d: lru max uncached %d tokens\n", c, sw.Results[i][0].Summary.MaxUncached)
	}
	// Output:
	// C=0: lru max uncached 200 tokens
	// C=100: lru max uncached 200 tokens
	// C=200: lru max uncached 100 tokens
}
