package prefixtail

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// drawLookaheadCase draws a random trace with windows, seams and a lower
// overlap, an objective and a lower-bound solver.
func drawLookaheadCase(rt *rapid.T, stream uint64) (windowCase, WindowOptions, Options) {
	c := drawWindowCase(rt, stream, []int64{1, 4, 16}, 14)
	wo := WindowOptions{SeamRequests: rapid.IntRange(0, len(c.reqs)).Draw(rt, "seam"),
		LowerOverlapRequests: rapid.IntRange(0, len(c.reqs)).Draw(rt, "overlap"),
		LowerOverlapWeights:  rapid.SampledFrom([]OverlapWeighting{RampWeights, HalfWeights}).Draw(rt, "weights"),
		CarriedHistory:       rapid.Bool().Draw(rt, "carried")}
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
		got, hits, err := windowedLookahead(context.Background(), FlatSource(FlatOf(c.reqs)), n, c.block, c.capacity, c.obj, c.windows, h, wo, opt, true)
		if err != nil {
			rt.Fatal(err)
		}
		for k, hk := range hits { // each replay a schedule of the cache's rules, at the cost reported
			checkHits(rt, c.reqs, c.capacity, hk)
			v := 0.0
			for q := range c.reqs {
				v += c.obj.Cost(c.reqs[q].Input, hk[q], c.block)
			}
			if want := []float64{got.UpperNoSeams, got.Upper}[k]; k == 0 && v != want || k == 1 && v < want {
				rt.Fatalf("replay %d costs %v, reported %v", k, v, want)
			}
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

// TestLookaheadHandWorked: six one-block requests A B C | C C A (B = 1
// token, inputs of 1 token, ξ = 0, so a request costs 1 when it misses),
// capacity 2 blocks, two windows [0, 3) and [3, 6); the interner numbers
// A = 0, B = 1, C = 2. Neither window's restriction keeps a variable
// interval (window 0 uses each block once, window 1 only C over constant
// intervals), so the guide is empty and the replay evicts by next use;
// the restrictions cost 3 (three first uses) and 2 (C, then A, miss).
//
// Whole lookahead: at request 2 (C, the cache {A, B} full) A's next use
// is 5 and B has none: B goes. C hits at 3 and 4, A at 5. Misses A, B, C:
// upper = 3, the optimum (three first uses).
//
// Lookahead 1: window 0's horizon is 3 + 1 = 4, so at request 2 neither A
// (next use 5) nor B (none) has a known next use: both rank as never used
// again, and the least recently accessed, A (request 0), goes. At window
// 1 (horizon 6) A is no longer cached, nothing to re-rank; C hits at 3
// and 4, A misses at 5: upper = 4. Lookahead 2: the horizon is 5, A's
// next use still unknown: 4. Lookahead 3: the horizon is 6, A ranks
// (0, −5) above B's never used again: B goes, upper = 3.
func TestLookaheadHandWorked(t *testing.T) {
	A, B, C := int64(10), int64(20), int64(30)
	chains := [][]int64{{A}, {B}, {C}, {C}, {C}, {A}}
	reqs := chainsTrace(t, chains, []int64{1, 1, 1, 1, 1, 1})
	obj := Objective{Kind: TEL}
	for _, tc := range []struct{ h, want int }{{1, 4}, {2, 4}, {3, 3}, {6, 3}} {
		wb, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), 6, 1, 2, obj, 2, tc.h, WindowOptions{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if wb.Upper != float64(tc.want) || wb.UpperNoSeams != float64(tc.want) {
			t.Errorf("lookahead %d: upper %v (without seams %v), want %d", tc.h, wb.Upper, wb.UpperNoSeams, tc.want)
		}
		if r := wb.PerWindow; r[0].Restricted != 3 || r[1].Restricted != 2 {
			t.Errorf("lookahead %d: restrictions %v and %v, want 3 and 2", tc.h, r[0].Restricted, r[1].Restricted)
		}
	}
	whole, err := WindowedFlat(context.Background(), FlatOf(reqs), 1, 2, obj, 2, WindowOptions{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Upper != 3 {
		t.Errorf("whole lookahead (WindowedFlat): upper %v, want 3", whole.Upper)
	}
}

// TestLookaheadRevealHandWorked: the re-ranking when a window's horizon
// reaches a cached block's next use. Seven one-block requests A B C | D B
// A E, capacity 3 blocks, B = 1 token, inputs of 1 token, ξ = 0, two
// windows [0, 3) and [3, 7), lookahead 1 (horizons 4 and 7); A = 0, B =
// 1, C = 2, D = 3, E = 4. No variable interval is kept by a restriction.
// Requests 0–2 fill the cache {A, B, C}, every key "unknown" (next uses 5,
// 4, none, all ≥ 4). At window 1 the horizon is 7: B (next use 4) and A
// (5) are re-ranked (0, −4) and (0, −5); C stays never used again. D
// misses at 3 and evicts C, the only block ranked never used again; B
// hits at 4, A at 5; E misses at 6. Misses A, B, C, D, E: upper = 5 (the
// optimum: five first uses). Without the re-ranking C, A and B would all
// rank never used again at request 3 and the least recently accessed, A,
// would go: A would miss at 5, upper 6.
func TestLookaheadRevealHandWorked(t *testing.T) {
	chains := [][]int64{{1}, {2}, {3}, {4}, {2}, {1}, {5}}
	reqs := chainsTrace(t, chains, []int64{1, 1, 1, 1, 1, 1, 1})
	wb, err := WindowedLookahead(context.Background(), FlatSource(FlatOf(reqs)), 7, 1, 3, Objective{Kind: TEL}, 2, 1, WindowOptions{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if wb.Upper != 5 {
		t.Errorf("upper %v, want 5", wb.Upper)
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

// checkHits fails unless hits (per request, the leading blocks of its
// chain found cached) are those of a schedule the cache's rules allow
// (package comment, "Intervals and the prefix rule", (a)–(c)), checked
// from the definitions: a first use is never hit; a block used by the
// request before is always hit (forced admission), so every hit prefix
// covers the request's constant blocks; and at every request t, its
// chain and the blocks kept over t (an interval (p, q) with p < t < q
// whose block q hits) fit in the capacity.
func checkHits(rt *rapid.T, reqs []prefixcache.Req, capacity int, hits []int) {
	if len(hits) != len(reqs) {
		rt.Fatalf("%d hit counts for %d requests", len(hits), len(reqs))
	}
	last := map[prefixcache.BlockID]int{}
	load := make([]int, len(reqs))
	for q, r := range reqs {
		if hits[q] < 0 || hits[q] > len(r.Blocks) {
			rt.Fatalf("request %d: %d hits of a chain of %d", q, hits[q], len(r.Blocks))
		}
		for d, id := range r.Blocks {
			p, seen := last[id]
			switch {
			case d < hits[q] && !seen:
				rt.Fatalf("request %d: first use of block %d hit", q, id)
			case d >= hits[q] && seen && p == q-1:
				rt.Fatalf("request %d: block %d, used by the request before, missed", q, id)
			case d < hits[q]:
				for t := p + 1; t < q; t++ {
					load[t]++
				}
			}
			last[id] = q
		}
	}
	for t, l := range load {
		if l+len(reqs[t].Blocks) > capacity {
			rt.Fatalf("request %d: %d kept blocks beside a chain of %d at a capacity of %d", t, l, len(reqs[t].Blocks), capacity)
		}
	}
}
