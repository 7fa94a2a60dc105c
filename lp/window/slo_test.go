package window_test

import (
	"context"
	"fmt"
	"math"
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
func checkSLO(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam int, s int64, lo, hi int) *window.SLOBounds {
	return checkSLOMode(fatalf, tr, p, size, seam, s, lo, hi, window.UpperFull)
}

// checkSLOMode is checkSLO with the windows' upper ends searched as mode
// says.
func checkSLOMode(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam int, s int64, lo, hi int, mode window.SLOUpper) *window.SLOBounds {
	return checkSLOOverlap(fatalf, tr, p, size, seam, 0, s, lo, hi, mode)
}

// checkSLOOverlap is checkSLOMode with each window's relaxation widened
// back by back steps (SLOOptions.LowerOverlap; 0: not); with an overlap
// every window's weighted bound is set and the lower end is their sum
// rounded up.
func checkSLOOverlap(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam, back int, s int64, lo, hi int, mode window.SLOUpper) *window.SLOBounds {
	x := make([]int64, len(tr.Turns))
	b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{Params: p, WindowTurns: size, SLOTokens: s, SeamTurns: seam, LowerOverlap: back, PerWindow: true, Upper: mode,
		Schedule: func(start int, w []int64) error { copy(x[start:], w); return nil }})
	if err != nil {
		fatalf("%v", err)
	}
	if b.Lower > hi || b.Upper < lo {
		fatalf("%v, s=%d, windows of %d, seams ±%d, lower overlap %d, upper ends %v: [%d, %d] misses the optimum in [%d, %d]", p, s, size, seam, back, mode, b.Lower, b.Upper, lo, hi)
	}
	if want := min(back, size); b.LowerOverlap != want {
		fatalf("lower overlap %d steps reported, %d given (windows of %d)", b.LowerOverlap, back, size)
	}
	sum := 0.0
	for _, f := range b.PerWindow {
		if (f.LowerWeighted != nil) != (back > 0) {
			fatalf("window %d: weighted bound %v with a lower overlap of %d", f.Index, f.LowerWeighted, back)
		}
		if f.LowerWeighted != nil {
			sum += *f.LowerWeighted
			if f.Lower != int(math.Floor(*f.LowerWeighted)) {
				fatalf("window %d: lower %d, weighted %v", f.Index, f.Lower, *f.LowerWeighted)
			}
		}
	}
	if back > 0 && b.Lower != int(math.Ceil(sum)) {
		fatalf("lower bound %d, the windows' weighted bounds add up to %v", b.Lower, sum)
	}
	for _, f := range b.PerWindow {
		if f.SeamGain > 0 || f.Upper != f.Restricted+f.SeamGain {
			fatalf("window %d: restricted %d, seam gain %d, upper %d", f.Index, f.Restricted, f.SeamGain, f.Upper)
		}
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
	return b
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
			for _, seam := range []int{0, 1, 2, 4} {
				checkSLO(func(f string, a ...any) { t.Fatalf("case %d: "+f, append([]any{i}, a...)...) }, tr, p, size, seam, s, opt, opt)
			}
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
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		whole, err := slo.Violations(context.Background(), in, s, slo.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		checkSLO(rt.Fatalf, tr, p, size, seam, s, whole.Lower, whole.Upper)
	})
}

// TestSLOSeamHand: B = 1, SLO 11 tokens. Turns: x sends 1 token, a 10, a
// 5 more (D = 15, so it meets the SLO iff it carries 15 − 11 = 4 blocks
// over step 1), y 1. In windows of 2 steps a's pair crosses the boundary:
// the restrictions carry nothing (1 violation), the relaxation carries it
// from a virtual step (0 at C ≥ 4). The seam of half-width 1 holds steps
// 1 and 2 and frees a's pair, which fits at C ≥ 4: the upper bound drops
// to the optimum 0. At C = 3 it never fits: [1, 1] with or without seams.
func TestSLOSeamHand(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	for _, c := range []struct {
		capacity     int64
		seam         int
		lower, upper int
	}{
		{4, 0, 0, 1},
		{4, 1, 0, 0},
		{4, 5, 0, 0}, // at most half a window: 1
		{3, 0, 1, 1},
		{3, 1, 1, 1},
	} {
		p := instance.Params{Capacity: c.capacity, BlockSize: 1}
		b := checkSLO(t.Fatalf, tr, p, 2, c.seam, 11, 0, 1)
		if b.Lower != c.lower || b.Upper != c.upper {
			t.Errorf("C=%d, seams ±%d: [%d, %d], want [%d, %d]", c.capacity, c.seam, b.Lower, b.Upper, c.lower, c.upper)
		}
	}
}

// TestSLOSeamReserved: the seam must leave the blocks its kept pairs hold.
// B = 1, C = 4, SLO 11 tokens; x, y, z send 1 token (steps 0–2), a 10
// (step 3), b 10 (step 4), a 5 (step 5: D = 15, meets iff it carries 4
// blocks over steps 3–4), w 1 (step 6), b 5 (step 7: carries 4 over steps
// 4–6). The two pairs share step 4, so one of them violates: optimum 1. In
// windows of 4 steps with seams ±2 (steps 2–5), a's pair crosses the
// boundary and is freed; b's pair ends after the seam, is kept (the
// restriction of window 1 serves it) and reserves 4 blocks at steps 4 and
// 5, so the seam cannot serve a's pair: [1, 1]. A seam that ignored the
// reservation would over-fill step 4, which its check refuses.
func TestSLOSeamReserved(t *testing.T) {
	tr := &trace.Trace{}
	for _, u := range []struct {
		conv string
		p    int64
	}{{"x", 1}, {"y", 1}, {"z", 1}, {"a", 10}, {"b", 10}, {"a", 5}, {"w", 1}, {"b", 5}} {
		tr.Append(float64(len(tr.Turns)), u.conv, u.p, 0)
	}
	p := instance.Params{Capacity: 4, BlockSize: 1}
	if got := len(tr.Turns) - exhaustive.MaxMeeting(tr, p, 11); got != 1 {
		t.Fatalf("enumeration: %d violations, hand 1", got)
	}
	b := checkSLO(t.Fatalf, tr, p, 4, 2, 11, 1, 1)
	if b.Lower != 1 || b.Upper != 1 || b.PerWindow[0].SeamGain != 0 {
		t.Errorf("[%d, %d], seam gain %d, want [1, 1] and 0", b.Lower, b.Upper, b.PerWindow[0].SeamGain)
	}
}
