package slo_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Two conversations open with 10 tokens each and return with 5-token
// prompts (B = 1, C = 4 tokens, s = 11): each return needs 15 − 11 = 4
// blocks carried, over steps 0..1 (a) and 1..2 (b), and 4 + 4 > 4 at step
// 1, so one of turns 2 and 3 violates. Weighing a's return 1/2 and b's 1
// (in 1/1024 turns, as lp/window's overlap does), the LP max ½·y_a + y_b
// with 4·y_a + 4·y_b ≤ 4 serves b: at least ½ weighted violation in every
// schedule; with every weight 1, at least one violation.
func ExampleWeightedLower() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "b", 5, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 4, BlockSize: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, wt := range [][]int64{{1024, 1024, 512, 1024}, {1024, 1024, 1024, 1024}} {
		b, err := slo.WeightedLower(context.Background(), in, 11, wt, 1024, slo.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("weights %v/1024: at least %d/%d = %g turns\n", wt, b.Num, b.Den, b.Value())
	}
	// Output:
	// weights [1024 1024 512 1024]/1024: at least 512/1024 = 0.5 turns
	// weights [1024 1024 1024 1024]/1024: at least 1024/1024 = 1 turns
}
