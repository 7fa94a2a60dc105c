package solvers_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Two conversations share a one-block cache (B = 2 tokens, ξ = 2 tokens):
// each returns needing one block, and only one can have it.
func Example() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	in, _ := lp.NewInstance(tr, instance.Params{Capacity: 2, BlockSize: 2, Xi: 2})
	ip, _ := solvers.Solve(context.Background(), in, lp.Compact, "flow", false, lp.Options{})
	relax, _ := solvers.Solve(context.Background(), in, lp.Compact, "gonum", true, lp.Options{})
	fmt.Printf("TEL optimum %.1f tokens, LP bound %.1f tokens (integral %v)\n", ip.TEL, relax.TEL, relax.Integral)
	// Output: TEL optimum 1.0 tokens, LP bound 0.0 tokens (integral false)
}
