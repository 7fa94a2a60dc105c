package slo_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// The instance of ExampleEnumerateCuts (B = 1, C = 10 tokens, s = 6): the
// two first turns (10 tokens) violate whatever is cached, and of the two
// returns, which need 9 tokens carried each over a common step of 10, at
// most one meets the SLO. So at least 3 of the 4 turns violate it, and
// the decomposition's certified bound says so.
func ExampleDecompBound() {
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
	lower, err := slo.DecompBound(context.Background(), in, 6, 30)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("at least", lower, "violations")
	// Output:
	// at least 3 violations
}
