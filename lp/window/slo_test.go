package window_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// checkSLO asserts that the windowed SLO interval contains opt (the fewest
// violations) and that the stitched schedule is admissible for the whole
// trace with exactly Upper violations.
func checkSLO(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size int, s int64, lo, hi int) {
	x := make([]int64, len(tr.Turns))
	b, err := window.RunSLO(context.Background(), window.NewTurns(tr.Turns), p, size, s, slo.Options{},
		func(start int, w []int64) error { copy(x[start:], w); return nil })
	if err != nil {
		fatalf("%v", err)
	}
	if b.Lower > hi || b.Upper < lo {
		fatalf("%v, s=%d, windows of %d: [%d, %d] misses the optimum in [%d, %d]", p, s, size, b.Lower, b.Upper, lo, hi)
	}
	in, err := lp.NewInstance(tr, p)
	if err != nil {
		fatalf("%v", err)
	}
	if err := in.CheckSchedule(x); err != nil {
		fatalf("%v, s=%d, windows of %d: stitched schedule not admissible: %v", p, s, size, err)
	}
	if got := slo.Count(in, x, s); got != b.Upper {
		fatalf("stitched schedule has %d violations, upper bound %d", got, b.Upper)
	}
}

// TestSLOBrute: on tiny traces the windowed SLO interval contains the
// fewest violations found by enumerating schedules (lp/exhaustive).
func TestSLOBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 33))
	for i := 0; i < 300; i++ {
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 1 + r.IntN(7); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(21))
		}
		block := int64(1 + r.IntN(4))
		p := instance.Params{Capacity: block * r.Int64N(5), BlockSize: block}
		s := r.Int64N(25)
		opt := len(tr.Turns) - exhaustive.MaxMeeting(tr, p, s)
		for size := 1; size <= len(tr.Turns); size++ {
			checkSLO(func(f string, a ...any) { t.Fatalf("case %d: "+f, append([]any{i}, a...)...) }, tr, p, size, s, opt, opt)
		}
	}
}

// TestSLORapid: on random traces of up to 300 turns the windowed interval
// meets lp/slo's interval on the whole trace.
func TestSLORapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 4))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(12)
		for k := 5 + r.IntN(300); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 2, 8, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block * rapid.Int64Range(0, 40).Draw(rt, "blocks"), BlockSize: block}
		s := rapid.Int64Range(0, 200).Draw(rt, "slo")
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		whole, err := slo.Violations(context.Background(), in, s, slo.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		checkSLO(rt.Fatalf, tr, p, size, s, whole.Lower, whole.Upper)
	})
}
