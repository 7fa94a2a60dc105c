package slo_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Improve on the instance worked by hand in the package's tests (B = 1,
// C = 10 tokens, s = 6): conversations a and b open with 10 tokens each
// and return with 5-token prompts, each return needing 9 tokens carried
// over a shared step. Carrying nothing, all four turns exceed 6 tokens;
// the search serves one of the returns (9 of the 10 tokens), and no
// schedule does better (the first turns, 10 > 6, always violate).
func ExampleImprove() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "b", 5, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 10, BlockSize: 1})
	if err != nil {
		panic(err)
	}
	nothing := make([]int64, in.K())
	imp, err := slo.Improve(context.Background(), in, 6, nothing, 0, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("violations carrying nothing:", slo.Count(in, nothing, 6))
	fmt.Println("after the search:", imp.Violations, "schedule (tokens cached per turn):", imp.Schedule)
	// Output:
	// violations carrying nothing: 4
	// after the search: 3 schedule (tokens cached per turn): [0 0 9 0]
}
