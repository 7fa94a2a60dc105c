package gap_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// An external schedule's gap: on the split-block instance (B = C = 2
// tokens, ξ = 2) a schedule that keeps a's block for its return pays only
// b's excess 2 + 1 − 0 − 2 = 1 token, the optimum; one that caches nothing
// pays both returns, 2 tokens.
func ExampleRun_schedule() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	keepA, _ := schedule.Read(strings.NewReader(`{"cached":0}
{"cached":0}
{"cached":2}
{"cached":0}
`), "keep-a.jsonl")
	none, _ := schedule.Read(strings.NewReader("{\"cached\":0}\n{\"cached\":0}\n{\"cached\":0}\n{\"cached\":0}\n"), "none.jsonl")
	rows, err := gap.Run(context.Background(), tr, gap.Config{Block: 2, Capacities: []int64{2}, Xis: []float64{2},
		Schedules: []*schedule.Schedule{keepA, none}, Model: latency.Default(), Workers: 1})
	if err != nil {
		fmt.Println(err)
	}
	for _, r := range rows {
		fmt.Printf("%s: TEL %.0f, optimum %.0f, gap %s\n", r.Policy, r.TELTokens, r.TELOptTokens, r.RelGapText())
	}
	// Output:
	// schedule:keep-a.jsonl: TEL 1, optimum 1, gap 0.00%
	// schedule:none.jsonl: TEL 2, optimum 1, gap 100.00%
}
