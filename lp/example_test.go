package lp_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// One conversation, a 2-token cache, B = 1, ξ = 0: the first turn (3
// tokens) is all excess; its return (2 more tokens, 5 in all) can find at
// most 2 cached: TEL 3 + 3 = 6 tokens, from the IP, its LP relaxation
// (integral here) and the min-cost flow alike.
func Example() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 3, 0)
	tr.Append(1, "a", 2, 0)
	in, _ := lp.NewInstance(tr, instance.Params{Capacity: 2, BlockSize: 1})
	ctx := context.Background()
	ip, _ := lp.SolveInstance(ctx, in, lp.Compact, gonumlp.Backend{}, false, lp.Options{})
	relax, _ := lp.SolveInstance(ctx, in, lp.Compact, gonumlp.Backend{}, true, lp.Options{})
	flow, _ := lp.SolveFlow(ctx, in, lp.Options{})
	fmt.Println(ip.Status, ip.TEL, relax.TEL, relax.Integral, flow.TEL, flow.Schedule)
	// Output: optimal 6 6 true 6 [0 2]
}
