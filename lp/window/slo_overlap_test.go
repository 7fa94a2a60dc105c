package window_test

import (
	"context"
	"math"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// rampShare is the weight, in 1/1024 turns, with which the window of
// steps [a, a+size) counts turn n under a lower overlap of back steps, as
// the package doc defines it: the i-th of the got = min(back, a) turns
// before the window (i = 0 first) counts ⌊1024·(i+1)/(got+1)⌋, the i-th
// of the window's last lb = min(back, size) turns 1024 − ⌊1024·(i+1)/(lb+1)⌋
// when a window follows (the next window counts the rest), every other
// turn of the window 1024; turns outside 0.
func rampShare(n, a, size, back, turns int) int64 {
	got, lb, b := min(back, a), min(back, size), min(a+size, turns)
	switch {
	case n >= a-got && n < a:
		return int64(1024 * (n - (a - got) + 1) / (got + 1))
	case n < a || n >= b:
		return 0
	case b < turns && n >= b-lb:
		return 1024 - int64(1024*(n-(b-lb)+1)/(lb+1))
	default:
		return 1024
	}
}

// TestSLOOverlapPerWindowExhaustive: each window's weighted bound is at
// most the weighted violations (rampShare's weights) of every admissible
// schedule of the whole trace, enumerated (lp/exhaustive; up to 6 turns) — the lemma the
// sum rests on, window by window; the windows' shares of every turn add
// up to 1; with no overlap the weighted bound of the last window is its
// unweighted one (SLOLower) exactly.
func TestSLOOverlapPerWindowExhaustive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTraceOf(rt, 6) // every schedule, without memoization: 8 turns took a minute
		s := rapid.Int64Range(0, 30).Draw(rt, "slo")
		K := len(tr.Turns)
		size := rapid.IntRange(1, K).Draw(rt, "size")
		back := rapid.IntRange(0, size).Draw(rt, "lower overlap")
		b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{Params: p, WindowTurns: size, SLOTokens: s, LowerOverlap: back, PerWindow: true})
		if err != nil {
			rt.Fatal(err)
		}
		for n := range K {
			var sum int64
			for a := 0; a < K; a += size {
				sum += rampShare(n, a, size, back, K)
			}
			if sum != 1024 {
				rt.Fatalf("turn %d: shares add up to %d/1024", n, sum)
			}
		}
		least := make([]int64, len(b.PerWindow)) // per window, least weighted violations over every schedule
		for k := range least {
			least[k] = math.MaxInt64
		}
		exhaustive.AllUncached(tr, p, func(u []int64) {
			for k, f := range b.PerWindow {
				var v int64
				for n, x := range u {
					if x > s {
						v += rampShare(n, f.Start, size, back, K)
					}
				}
				least[k] = min(least[k], v)
			}
		})
		for k, f := range b.PerWindow {
			got := int64(f.Lower) * 1024
			if f.LowerWeighted != nil {
				got = int64(*f.LowerWeighted * 1024)
			}
			if got > least[k] {
				rt.Fatalf("%v s=%d, windows of %d, overlap %d: window %d's bound %d/1024 above the least weighted violations %d/1024 of any schedule", p, s, size, back, k, got, least[k])
			}
		}
	})
}

// With no overlap, a window's weighted bound (SLOLowerOverlap at 0 steps,
// the last window: every turn of the window weighs 1, the virtual turns
// 0) is 1024 times its unweighted one (SLOLower, the LP's bound without a
// backend), exactly: the weighted path with weights all 1.
func TestSLOLowerOverlapZeroIsSLOLower(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTrace(rt)
		s := rapid.Int64Range(0, 30).Draw(rt, "slo")
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		sp, err := window.NewSplitter(window.NewTurns(tr.Turns), size)
		if err != nil {
			rt.Fatal(err)
		}
		for {
			w, err := sp.Next()
			if err != nil {
				break
			}
			lo, err := window.SLOLower(context.Background(), w, p, s, slo.Options{})
			if err != nil {
				rt.Fatal(err)
			}
			num, err := window.SLOLowerOverlap(context.Background(), w, p, s, 0, true, slo.Options{})
			if err != nil {
				rt.Fatal(err)
			}
			if num != 1024*int64(lo) {
				rt.Fatalf("window %d: weighted bound %d/1024, SLOLower %d", w.Index, num, lo)
			}
		}
	})
}

// TestSLOOverlapHandWorked: a case where the overlap raises the lower end
// to the optimum (examples/slo-overlap.jsonl, docs/windows.md).
//
// B = 1, C = 4 tokens, SLO 11 tokens. a and b send 10 tokens each (steps
// 0 and 1: D = 10 ≤ 11, they meet the SLO), then 5 more each (a at step
// 2, b at step 3: D = 15, each needs 15 − 11 = 4 blocks carried, a's over
// steps 0..1, b's over steps 1..2). Both span step 1, where 4 + 4 > 4:
// one of them violates, V = 1.
//
// Windows of 3 steps: W0 = {0, 1, 2}, W1 = {3}. Without an overlap W0's
// relaxation holds a's pair alone (served: 0) and W1's holds b's, which
// crosses W1's start and is served from its virtual step (0): lower 0.
// W1's restriction cannot carry b's pair (1), and the seam is at most half
// of W1, 0 steps: upper 1, interval [0, 1].
//
// Overlap 1 step: W1 widened to {2, 3} counts a's second turn (step 2)
// with ⌊1024·1/2⌋/1024 = 1/2 and b's with 1; W0 counts a's with the other
// 1/2. Now a's and b's pairs both cross the widened start, from virtual
// steps of their own, and both span the virtual step of b (a's pair over
// a's and b's virtual steps, b's over b's and step 2): 4 + 4 > 4 again, so
// the LP max ½·y_a + y_b subject to 4·y_a + 4·y_b ≤ 4 serves b: ½
// violation. W0 still serves a: 0. Sum ½, rounded up once: 1 = V, the
// interval [1, 1]. Rounding each window up would give the same here; the
// sum is what must be rounded.
func TestSLOOverlapHandWorked(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 10, 0)
	tr.Append(1, "b", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "b", 5, 0)
	p := instance.Params{Capacity: 4, BlockSize: 1}
	for _, c := range []struct {
		back         int
		lower, upper int
		weighted     []float64
	}{
		{0, 0, 1, nil},
		{1, 1, 1, []float64{0, 0.5}},
	} {
		b, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{Params: p, WindowTurns: 3, SLOTokens: 11, SeamTurns: 5, LowerOverlap: c.back, PerWindow: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.Lower != c.lower || b.Upper != c.upper {
			t.Errorf("overlap %d: [%d, %d], want [%d, %d]", c.back, b.Lower, b.Upper, c.lower, c.upper)
		}
		for k, w := range c.weighted {
			if f := b.PerWindow[k]; f.LowerWeighted == nil || *f.LowerWeighted != w {
				t.Errorf("overlap %d: window %d's weighted bound %v, want %v", c.back, k, f.LowerWeighted, w)
			}
		}
	}
}
