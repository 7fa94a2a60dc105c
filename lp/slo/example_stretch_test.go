package slo_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// The instance of ExampleDecompBound (B = 1, C = 10 tokens, s = 6): two
// first turns that violate whatever is cached, and two returns needing 9
// tokens carried each over a common step of 10, so at most one of them
// meets the SLO: at least 3 of the 4 turns violate it. The decomposition
// into stretches of up to 25 rows (here the one row of the common step)
// certifies it.
func ExampleStretchBound() {
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
	lower, err := slo.StretchBound(context.Background(), in, 6, 25, 30)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("at least", lower, "violations")
	// Output:
	// at least 3 violations
}

// The same instance with the settings spelt out: stretches of up to 25
// rows in two layers offset by half a span, the shares moved by the
// bundle method for at most 30 steps. Any settings give a certified lower
// bound; here the one stretch already holds the whole program.
func ExampleStretchBoundWith() {
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
	lower, err := slo.StretchBoundWith(context.Background(), in, 6, slo.StretchOptions{
		Span: 25, Layers: 2, Iterations: 30, Rule: slo.StretchBundle,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("at least", lower, "violations")
	// Output:
	// at least 3 violations
}
