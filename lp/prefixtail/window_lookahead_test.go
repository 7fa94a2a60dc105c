package prefixtail

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/gonumlp"
)

// drawLookaheadCase draws a random trace with windows, seams and a lower
// overlap, an objective and a lower-bound solver.
func drawLookaheadCase(rt *rapid.T, stream uint64) (windowCase, WindowOptions, Options) {
	c := drawWindowCase(rt, stream, []int64{1, 4, 16}, 14)
	wo := WindowOptions{SeamRequests: rapid.IntRange(0, len(c.reqs)).Draw(rt, "seam"),
		LowerOverlapRequests: rapid.IntRange(0, len(c.reqs)).Draw(rt, "overlap"),
		LowerOverlapWeights:  rapid.SampledFrom([]OverlapWeighting{RampWeights, HalfWeights}).Draw(rt, "weights")}
	opts := []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
	return c, wo, opts[rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")]
}

func clearSeconds(wb *WindowBounds) {
	for i := range wb.PerWindow {
		wb.PerWindow[i].Seconds = 0
	}
}

// TestLookaheadWholeRapid: with a lookahead of at least the trace's
// length, WindowedLookahead gives WindowedFlat's figures to the last
// digit (every one but the wall times), on random traces, both
// objectives, any windows, seams, lower overlaps and solvers: its own
// reading, histories, columns and keyed-by-slot replay against the code
// that holds the trace whole.
func TestLookaheadWholeRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, wo, opt := drawLookaheadCase(rt, 21)
		n := len(c.reqs)
		want, err := WindowedFlat(context.Background(), FlatOf(c.reqs), c.block, c.capacity, c.obj, c.windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		h := rapid.IntRange(n, 3*n+1).Draw(rt, "lookahead")
		got, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(c.reqs)), n, c.block, c.capacity, c.obj, c.windows, h, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		clearSeconds(want)
		clearSeconds(got)
		if got.ReplayLookaheadRequests != h {
			rt.Fatalf("lookahead %d reported as %d", h, got.ReplayLookaheadRequests)
		}
		got.ReplayLookaheadRequests = 0
		if !equalBounds(got, want) || got.LowerOverlapRequests != want.LowerOverlapRequests || got.LowerOverlapWeights != want.LowerOverlapWeights {
			rt.Fatalf("lookahead %d: %+v, WindowedFlat %+v", h, got, want)
		}
	})
}

// TestLookaheadBoundsRapid: for every lookahead, the upper bound is at
// least the optimum by exhaustive search (lp/exhaustive) and the lower
// bound, and the lower bound and every window's figures are WindowedFlat's
// (the lookahead changes the replay only).
func TestLookaheadBoundsRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, wo, opt := drawLookaheadCase(rt, 23)
		n := len(c.reqs)
		h := rapid.IntRange(1, n).Draw(rt, "lookahead")
		got, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(c.reqs)), n, c.block, c.capacity, c.obj, c.windows, h, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		want, err := WindowedFlat(context.Background(), FlatOf(c.reqs), c.block, c.capacity, c.obj, c.windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		clearSeconds(want)
		clearSeconds(got)
		if got.Lower != want.Lower || !slices.Equal(got.PerWindow, want.PerWindow) {
			rt.Fatalf("lookahead %d changed the lower end: %+v, WindowedFlat %+v", h, got, want)
		}
		opt0 := brute(t, c.reqs, c.capacity, c.block, c.obj)
		if got.Upper < opt0-1e-6*max(1, opt0) || got.UpperNoSeams < opt0-1e-6*max(1, opt0) || got.Upper < got.Lower-1e-6*max(1, got.Upper) {
			rt.Fatalf("lookahead %d: upper %v (without seams %v) below OPT %v or the lower bound %v", h, got.Upper, got.UpperNoSeams, opt0, got.Lower)
		}
	})
}

// TestLookaheadCount: a trace shorter or longer than the count given is
// an error, not a bound.
func TestLookaheadCount(t *testing.T) {
	reqs := randomTrace(rand.New(rand.NewPCG(1, 2)), 10, 8, 4)
	obj := Objective{Kind: TEL}
	for _, n := range []int{9, 11} {
		if _, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), n, 4, longest(reqs), obj, 2, 3, WindowOptions{}, Options{}); err == nil {
			t.Errorf("10 requests read as %d: no error", n)
		}
	}
	if _, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), 10, 4, longest(reqs), obj, 2, 3, WindowOptions{JoinRequests: 2}, Options{}); err == nil {
		t.Error("joins accepted")
	}
	if _, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), 10, 4, longest(reqs), obj, 2, 0, WindowOptions{}, Options{}); err == nil {
		t.Error("lookahead 0 accepted")
	}
}

// TestLookaheadHandWorked: seven one-block requests A B C | C A B B (B =
// 1 token, inputs of 1 token, ξ = 0, so a request costs 1 when it
// misses), capacity 2 blocks, two windows [0, 3) and [3, 7); the
// interner numbers A = 0, B = 1, C = 2. Neither window's restriction
// keeps a variable interval (window 0 uses each block once, window 1 only
// B over the constant interval (5, 6)), so the guide is empty and the
// replay evicts by next use.
//
// Whole lookahead: at request 2 (C, the cache {A, B} full) A's next use
// is 4, B's 5: B goes (furthest). C hits at 3, A at 4; at 5 B misses and
// evicts one of A and C, both never used again (A, the lower id); B hits
// at 6. Misses A, B, C, B: upper = 4 (also the optimum: three first uses,
// and three blocks in two slots cost one more).
//
// Lookahead 1: window 0's horizon is 3 + 1 = 4, so at request 2 neither
// next use (4, 5) is known: both rank as never used again and the lower
// id, A, goes. B's key, set at request 1 under window 0's horizon, says
// "never used again" (a key is set when its block is accessed): at request 4 (A
// misses) the cache {B, C} evicts B (id 1) before C (id 2, truly never
// used again). At 5 B misses again and evicts A (id 0; C is id 2, both
// never used again); B hits at 6. Misses A, B, C, A, B: upper = 5.
//
// Lookahead 2: the horizon is 5, A's next use (4) is known and B's (5)
// is not: B goes at request 2, as with the whole lookahead: upper = 4.
func TestLookaheadHandWorked(t *testing.T) {
	A, B, C := int64(10), int64(20), int64(30)
	chains := [][]int64{{A}, {B}, {C}, {C}, {A}, {B}, {B}}
	reqs := chainsTrace(t, chains, []int64{1, 1, 1, 1, 1, 1, 1})
	obj := Objective{Kind: TEL}
	for _, tc := range []struct{ h, want int }{{1, 5}, {2, 4}, {3, 4}, {7, 4}} {
		wb, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), 7, 1, 2, obj, 2, tc.h, WindowOptions{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if wb.Upper != float64(tc.want) || wb.UpperNoSeams != float64(tc.want) {
			t.Errorf("lookahead %d: upper %v (without seams %v), want %d", tc.h, wb.Upper, wb.UpperNoSeams, tc.want)
		}
		if r := wb.PerWindow; r[0].Restricted != 3 || r[1].Restricted != 3 {
			t.Errorf("lookahead %d: restrictions %v and %v, want 3 and 3", tc.h, r[0].Restricted, r[1].Restricted)
		}
	}
	whole, err := WindowedFlat(context.Background(), FlatOf(reqs), 1, 2, obj, 2, WindowOptions{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Upper != 4 {
		t.Errorf("whole lookahead (WindowedFlat): upper %v, want 4", whole.Upper)
	}
}

// TestLookaheadColumnsRapid: the columns a window's replay reads (the
// intervals ending in [s, hz) that are columns of the program of the
// requests before hz) are newReplayTrace's on those requests, which
// TestReplayTraceRapid checks against the program itself.
func TestLookaheadColumnsRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 25, []int64{1, 4, 16}, 30)
		n := len(c.reqs)
		lr := &lookRun{n: n, windows: 1, capacity: c.capacity, block: c.block, obj: c.obj, off: []int{0}}
		for i := range c.reqs {
			if err := lr.add(&c.reqs[i]); err != nil {
				rt.Fatal(err)
			}
		}
		hz := rapid.IntRange(0, n).Draw(rt, "horizon")
		s := rapid.IntRange(0, hz).Draw(rt, "start")
		got := lr.columns(s, hz)
		tr, err := newReplayTrace(FlatOf(c.reqs[:hz]), c.block, c.capacity, c.obj)
		if err != nil {
			rt.Fatal(err)
		}
		want := tr.col[tr.Off[s]:tr.Off[hz]]
		if !slices.Equal(got, want) {
			rt.Fatalf("columns of [%d, %d): %v, the program of the first %d requests: %v", s, hz, got, hz, want)
		}
		full, err := newReplayTrace(FlatOf(c.reqs), c.block, c.capacity, c.obj)
		if err != nil {
			rt.Fatal(err)
		}
		for ref := range lr.blocks { // and the held next uses are the trace's
			if lr.next[ref] != full.next[ref] || lr.prev[ref] != full.prev[ref] {
				rt.Fatalf("reference %d: previous and next use %d, %d, want %d, %d", ref, lr.prev[ref], lr.next[ref], full.prev[ref], full.next[ref])
			}
		}
	})
}
