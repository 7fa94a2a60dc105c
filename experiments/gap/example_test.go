package gap_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// Two conversations and a one-block cache: LRU keeps the wrong one.
func ExampleRun() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	es, _ := policies.Parse("lru,to-belady")
	rows, _ := gap.Run(context.Background(), tr, gap.Config{Block: 2, Capacities: []int64{2}, Xis: []float64{2},
		Policies: es, Model: latency.Default(), Workers: 1})
	for _, r := range rows {
		fmt.Printf("%s: TEL %.0f, optimum %.0f, gap %s\n", r.Policy, r.TELTokens, r.TELOptTokens, r.RelGapText())
	}
	// Output:
	// lru: TEL 2, optimum 1, gap 100.00%
	// to-belady: TEL 1, optimum 1, gap 0.00%
}
