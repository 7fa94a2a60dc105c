package slo_test

import (
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Conversation a opens with 10 tokens at turn 0 and returns at turn 3,
// conversation b opens at turn 1 and returns at turn 2, both with 5-token
// prompts (B = 1, C = 10 tokens, s = 6): each return needs 9 tokens
// carried, a's over steps 0..2 and b's over step 1 only, and they cannot
// both fit at step 1. b's pair asks no more and lies inside a's, so some
// optimum meets the SLO at turn 2 whenever it meets it at turn 3.
func ExampleEnumerateDominance() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "b", 5, 0)
	tr.Append(3, "a", 5, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 10, BlockSize: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, rel := slo.EnumerateDominance(in, 6)
	for _, r := range rel {
		fmt.Printf("turn %d meets the SLO whenever turn %d does\n", r.A, r.B)
	}
	// Output:
	// turn 2 meets the SLO whenever turn 3 does
}
