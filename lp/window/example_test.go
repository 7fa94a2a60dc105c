package window_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Two conversations send 5 tokens each, then 1 more each (B = 1, ξ = 0, C
// = 6): the optimum keeps 6 of their 10 tokens, TEL 16 (TestHandWorked).
// Cut into two windows of two steps, the relaxation carries both into the
// second window for free (12) and the restriction carries nothing (22).
func ExampleRun() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 5, 0)
	tr.Append(1, "b", 5, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	b, err := window.Run(context.Background(), window.NewTurns(tr.Turns),
		window.Options{Params: instance.Params{Capacity: 6, BlockSize: 1}, WindowTurns: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b)
	// Output: TEL_opt in [12, 22] tokens (width 45.5%, 2 windows of 2 steps)
}
