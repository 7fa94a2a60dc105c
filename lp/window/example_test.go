package window_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
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

// x sends 1 token, a 10, a 5 more (D = 15), y 1 (B = 1, C = 4): a's second
// turn meets an SLO of 11 tokens iff 4 blocks are carried over step 1
// (TestSLOSeamHand). In windows of 2 steps a's pair crosses the boundary:
// the relaxation serves it (0 violations), the restrictions cannot (1);
// the seam of ±1 step frees it again and the interval closes at 0.
func ExampleRunSLOWith() {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	for _, seam := range []int{0, 1} {
		b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{
			Params: instance.Params{Capacity: 4, BlockSize: 1}, WindowTurns: 2, SLOTokens: 11, SeamTurns: seam})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("seams ±%d: [%d, %d] violations\n", seam, b.Lower, b.Upper)
	}
	// Output:
	// seams ±0: [0, 1] violations
	// seams ±1: [0, 0] violations
}

// The same trace at C = 10: the 75th percentile (the 3rd smallest of 4
// turns) of uncached tokens is at least 5, since a's second turn can
// never have fewer than 15 − 10 and the others have 1, 10 and 1 whatever
// is cached; carrying 10 blocks over step 1 achieves it. Caching nothing
// gives 10, and the probes between, windows of 2 steps with seams of ±1,
// close the interval at 5 tokens.
func ExampleRunPercentile() {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	q, _ := objective.Parse("p75")
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	b, err := window.RunPercentile(context.Background(), open, window.PercentileOptions{
		SLO: window.SLOOptions{Params: instance.Params{Capacity: 10, BlockSize: 1}, WindowTurns: 2, SeamTurns: 1}, Objective: q})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("p75 in [%d, %d] tokens (before any probe [%d, %d])\n", b.Lower, b.Upper, b.StartLower, b.StartUpper)
	// Output: p75 in [5, 5] tokens (before any probe [5, 10])
}

// The trace of ExampleRunPercentile at a grid of thresholds fixed in
// advance, as shards would solve it: at 4 tokens a's two turns exceed the
// threshold in every schedule (2 > 1 allowed: too low), at 5 and 9 the
// stitched schedule leaves only a's first turn above (achieved), so the
// interval closes at 5 tokens.
func ExampleSumGrid() {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	q, _ := objective.Parse("p75")
	taus := []int64{4, 5, 9}
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	so := window.SLOOptions{Params: instance.Params{Capacity: 10, BlockSize: 1}, WindowTurns: 2, SeamTurns: 1}
	figs, err := window.RunPercentileGrid(context.Background(), open, window.GridOptions{SLO: so, Taus: taus})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := window.SumGrid(figs, taus, len(tr.Turns), q, 2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pr := range b.Probes {
		fmt.Printf("τ = %d tokens: [%d, %d] violations, %s\n", pr.Tau, pr.Lower, pr.Upper, pr.Decided)
	}
	fmt.Printf("p75 in [%d, %d] tokens\n", b.Lower, b.Upper)
	// Output:
	// τ = 4 tokens: [2, 2] violations, too low
	// τ = 5 tokens: [1, 1] violations, achieved
	// τ = 9 tokens: [1, 1] violations, achieved
	// p75 in [5, 5] tokens
}

// The trace of ExampleRunSLOWith with its seam of ±1 step, its windows'
// upper ends searched less: every mode's lower end is the relaxation's,
// and here each mode's restrictions and seam find the optimum too.
func ExampleSLOUpper() {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	for _, mode := range []window.SLOUpper{window.UpperFull, window.UpperLP, window.UpperGreedy} {
		b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{
			Params: instance.Params{Capacity: 4, BlockSize: 1}, WindowTurns: 2, SLOTokens: 11, SeamTurns: 1, Upper: mode})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("upper ends %s: [%d, %d] violations\n", mode, b.Lower, b.Upper)
	}
	// Output:
	// upper ends full: [0, 0] violations
	// upper ends lp: [0, 0] violations
	// upper ends greedy: [0, 0] violations
}

// a and b send 10 tokens each, then 5 more each (B = 1, C = 4 tokens, SLO
// 11 tokens): one of the two returns violates (TestSLOOverlapHandWorked).
// In windows of 3 steps the second window serves b's return from its
// virtual step, lower end 0; reaching back 1 step, it counts a's return ½
// and lets the two compete: ½, and the sum rounded up, 1, the optimum.
func ExampleSLOLowerOverlap() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "b", 5, 0)
	p := instance.Params{Capacity: 4, BlockSize: 1}
	for _, back := range []int{0, 1} {
		b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{Params: p, WindowTurns: 3, SLOTokens: 11, LowerOverlap: back, PerWindow: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("overlap %d: [%d, %d] violations\n", back, b.Lower, b.Upper)
		for _, f := range b.PerWindow {
			if f.LowerWeighted != nil {
				fmt.Printf("  window %d: %g weighted violations\n", f.Index, *f.LowerWeighted)
			}
		}
	}
	// Output:
	// overlap 0: [0, 1] violations
	// overlap 1: [1, 1] violations
	//   window 0: 0 weighted violations
	//   window 1: 0.5 weighted violations
}
