package slo_test

import (
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Two conversations open with 10 tokens each and return with 5-token
// prompts (B = 1, C = 10 tokens, s = 6): each return needs 15 − 6 = 9
// tokens carried, over steps 0..1 (a) and 1..2 (b), and 9 + 9 > 10 at
// step 1, so at most one of turns 2 and 3 meets the SLO — the one row's
// cardinality inequality, and the extended cover of the cover {a, b}.
func ExampleEnumerateCuts() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "b", 5, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 10, BlockSize: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	cs, err := slo.EnumerateCuts(in, 6, 16)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cs.Cuts {
		fmt.Printf("%s at step %d: at most %d of turns %v\n", c.Family, c.Step, c.Max, c.Turns)
	}
	// Output:
	// cardinality at step 1: at most 1 of turns [2 3]
	// cover at step 1: at most 1 of turns [2 3]
}
