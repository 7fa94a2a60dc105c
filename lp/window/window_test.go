package window_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// tol is the relative tolerance of comparisons between TEL sums of at most
// a few hundred terms, each exact to about 1e-15 relative.
const tol = 1e-9

func leq(a, b float64) bool { return a <= b+tol*math.Max(1, math.Abs(b)) }
func near(a, b float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// run windows tr under p in windows of size steps, and returns the bounds
// and the stitched upper-bound schedule.
func run(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam int, overlap ...int) (*window.Bounds, []int64) {
	back := 0
	if len(overlap) > 0 {
		back = overlap[0]
	}
	x := make([]int64, len(tr.Turns))
	b, err := window.Run(context.Background(), window.NewTurns(tr.Turns), window.Options{Params: p, WindowTurns: size, SeamTurns: seam, LowerOverlap: back, PerWindow: true,
		Schedule: func(start int, s []int64) error { copy(x[start:], s); return nil }})
	if err != nil {
		fatalf("%v", err)
	}
	return b, x
}

// TestHandWorked: B = 1, ξ = 0; a and b each send 5 tokens, then 1 more
// each (D = 6, H = 5). Whole, C = 6: step 1 holds both pairs, so 6 of
// their 10 tokens are saved: TEL = 5 + 5 + 6 + 6 − 6 = 16. In windows of
// 2 steps, window 0 (turns 0, 1) has no pair: 10 both ways; window 1
// (turns 2, 3): in the relaxation a's pair ends at the window's start and
// is carried free (5), b's occupies step 2 only (5 ≤ 6), so 12 − 10 = 2;
// in the restriction both pairs cross the boundary and carry nothing: 12.
// So [12, 22] ∋ 16. At C = 10 the whole optimum saves all 10: TEL 12, and
// the relaxation is then exact too: [12, 22].
func TestHandWorked(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 5, 0)
	tr.Append(1, "b", 5, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	for _, c := range []struct {
		capacity            int64
		size                int
		lower, upper, whole float64
	}{
		{6, 2, 12, 22, 16},
		{10, 2, 12, 22, 12},
		{6, 4, 16, 16, 16},
		{6, 1, 12, 22, 16}, // both pairs end at their window's start: carried free at their cap, 5
	} {
		p := instance.Params{Capacity: c.capacity, BlockSize: 1}
		b, _ := run(t.Fatalf, tr, p, c.size, 0)
		if !near(b.Lower, c.lower) || !near(b.Upper, c.upper) {
			t.Errorf("C=%d, windows of %d: [%v, %v], want [%v, %v]", c.capacity, c.size, b.Lower, b.Upper, c.lower, c.upper)
		}
		if got := exhaustive.Optimum(tr, p); !near(got, c.whole) {
			t.Errorf("C=%d: enumeration %v, hand %v", c.capacity, got, c.whole)
		}
	}
}

// check asserts lower ≤ opt ≤ upper, the stitched schedule admissible for
// the whole trace with TEL equal to the upper bound, and one window exact.
func check(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam, back int, opt float64) {
	b, x := run(fatalf, tr, p, size, seam, back)
	if !leq(b.Lower, opt) || !leq(opt, b.Upper) {
		fatalf("%v, windows of %d: [%v, %v] does not contain the optimum %v", p, size, b.Lower, b.Upper, opt)
	}
	in, err := lp.NewInstance(tr, p)
	if err != nil {
		fatalf("%v", err)
	}
	if err := in.CheckSchedule(x); err != nil {
		fatalf("%v, windows of %d: stitched schedule not admissible: %v", p, size, err)
	}
	if tel := in.TEL(x); !near(tel, b.Upper) {
		fatalf("%v, windows of %d: stitched schedule's TEL %v ≠ upper bound %v", p, size, tel, b.Upper)
	}
	if !near(b.BaseTEL, in.BaseTEL()) {
		fatalf("base TEL %v ≠ %v", b.BaseTEL, in.BaseTEL())
	}
	one, _ := run(fatalf, tr, p, len(tr.Turns), seam, back)
	if !near(one.Lower, opt) || !near(one.Upper, opt) || !one.ProvenOptimal {
		fatalf("%v, one window: [%v, %v], optimum %v", p, one.Lower, one.Upper, opt)
	}
}

// TestBrute: on tiny traces the interval contains the optimum found by
// enumerating schedules (lp/exhaustive, which knows nothing of flows or
// windows), at every window size, optional and forced.
func TestBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 33))
	xis := []float64{0, 1, 2, 3, 5, 0.5, 2.5, 1.25, -1, -2.5, 7}
	for i := 0; i < 400; i++ {
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 1 + r.IntN(7); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(21))
		}
		block := int64(1 + r.IntN(4))
		p := instance.Params{Capacity: block * r.Int64N(5), BlockSize: block, Xi: xis[r.IntN(len(xis))], Forced: i%2 == 1}
		opt := exhaustive.Optimum(tr, p)
		for size := 1; size <= len(tr.Turns); size++ {
			for _, seam := range []int{0, 1, 3} {
				check(func(f string, a ...any) { t.Fatalf("case %d: "+f, append([]any{i}, a...)...) }, tr, p, size, seam, seam, opt)
			}
		}
	}
}

// TestBoundsRapid: on random traces of up to 300 turns, optional and
// forced caching, B = 1..16, whole, fractional and negative ξ and any
// window size, lower ≤ TEL_opt (lp.SolveFlow on the whole trace) ≤ upper,
// the stitched schedule is admissible with TEL = upper, and one window
// gives the optimum exactly.
func TestBoundsRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 3))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(12)
		for k := 5 + r.IntN(300); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 2, 3, 8, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block * rapid.Int64Range(0, 40).Draw(rt, "blocks"), BlockSize: block,
			Xi:     rapid.SampledFrom([]float64{0, 3, 10.5, 25, -2.25, 100}).Draw(rt, "xi"),
			Forced: rapid.Bool().Draw(rt, "forced")}
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		res, err := lp.SolveFlow(context.Background(), in, lp.Options{})
		if err != nil || res.Status != lp.Optimal {
			rt.Fatalf("flow: %v %v", res, err)
		}
		seam := rapid.IntRange(0, 60).Draw(rt, "seam")
		back := rapid.IntRange(0, 80).Draw(rt, "lower overlap")
		check(rt.Fatalf, tr, p, size, seam, back, res.TEL)
		// The seams can only lower the upper bound.
		if seam > 0 {
			b0, _ := run(rt.Fatalf, tr, p, size, 0)
			b1, _ := run(rt.Fatalf, tr, p, size, seam)
			if !leq(b1.Upper, b0.Upper) || !near(b1.Lower, b0.Lower) {
				rt.Fatalf("seam %d: [%v, %v], without [%v, %v]", seam, b1.Lower, b1.Upper, b0.Lower, b0.Upper)
			}
		}
	})
}

// TestRestrictedOptimal: on random traces, each window's restriction
// solved exactly (SolveRestricted) is no worse than the schedule read off
// its relaxation (LowerAndRestricted), and no better than the relaxation
// without overlap (SolveLower), which relaxes it.
func TestRestrictedOptimal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 5))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(10)
		for k := 5 + r.IntN(200); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block * rapid.Int64Range(0, 30).Draw(rt, "blocks"), BlockSize: block,
			Xi: rapid.SampledFrom([]float64{0, 10.5, 25}).Draw(rt, "xi"), Forced: rapid.Bool().Draw(rt, "forced")}
		sp, err := window.NewSplitter(window.NewTurns(tr.Turns), rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size"))
		if err != nil {
			rt.Fatal(err)
		}
		ctx := context.Background()
		for {
			w, err := sp.Next()
			if err != nil {
				break
			}
			exact, err := window.SolveRestricted(ctx, w, p)
			if err != nil {
				rt.Fatal(err)
			}
			_, read, err := window.LowerAndRestricted(ctx, w, p, 0, true)
			if err != nil {
				rt.Fatal(err)
			}
			lo, err := window.SolveLower(ctx, w, p)
			if err != nil {
				rt.Fatal(err)
			}
			if !leq(exact.TEL, read.TEL) || !leq(lo, exact.TEL) {
				rt.Fatalf("window %d: relaxation %v, restriction %v, read off the relaxation %v", w.Index, lo, exact.TEL, read.TEL)
			}
		}
	})
}
