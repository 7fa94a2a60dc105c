package prefixtail

import (
	"context"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestWindowedSeamHandWorked: the trace of TestWindowedHandWorked (B =
// 512, C = 4 blocks, ξ = 200 tokens, OPT = 1,336) in two windows, {0, 1}
// and {2, 3, 4}, with seams. A seam of ±2 requests is requests 0–3: the
// only interval crossing the boundary at 2 that ends in it is block 4's
// (1, 3), whose saving is 0 (request 3 is 100 tokens, under ξ), so the
// seam marks nothing and the upper bound stays 1,648. A seam of ±3 is the
// whole trace: its best schedule keeps L = [1 2 3] over (0, 4) and the
// guide marks those three intervals kept; at request 2 the replay must
// evict one of the leaves 3 (guide 1) and 4 (interval (1, 3), not a
// column: key 0) and evicts 4, at request 3 evicts 5 (never used again),
// and request 4 hits all of L: upper = 1,336 = the lower bound, proven.
func TestWindowedSeamHandWorked(t *testing.T) {
	reqs := handTrace(t)
	for _, c := range []struct {
		h     int
		upper float64
	}{{0, 1648}, {1, 1648}, {2, 1648}, {3, 1336}, {10, 1336}} {
		for _, opt := range []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}} {
			wb, err := Windowed(context.Background(), reqs, 512, 4, Objective{Kind: TEL, XiTokens: 200}, 2, WindowOptions{SeamRequests: c.h}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if wb.Lower != 1336 || wb.Upper != c.upper || wb.UpperNoSeams != 1648 || wb.Proven != (c.upper == 1336) {
				t.Errorf("seam ±%d, opt %+v: got %+v, want [1336, %v]", c.h, opt, wb, c.upper)
			}
		}
	}
}

// joinTrace is four one-block requests [1] [2] [1] [2] of 512 tokens
// each (B = 512 tokens).
func joinTrace(t *testing.T) []prefixcache.Req {
	t.Helper()
	var rs []blocktrace.Request
	for i, h := range []int64{1, 2, 1, 2} {
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: 512, Hashes: []int64{h}, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestWindowedJoinHandWorked: joinTrace at C = 2 blocks, ξ = 200 tokens
// (a miss costs 312, a hit 0), in two windows {0, 1}, {2, 3} bounded as
// two shards. Both blocks fit (each step holds one kept interval beside
// the request's own block), so OPT = the two compulsory misses = 624, and
// the lower bound is 624 + 0 (window 1's relaxation carries both blocks).
// Without a join each run replays from an empty cache: 624 + 624 = 1,248.
// With a join of ±1 request (⌊4/2⌋/2 = 1) around request 2: the join's
// replay σ serves requests 1, 2 from empty (two misses, holds {2, 1});
// run 0 serves 0, then 1 and 2 as σ's shadow (no eviction needed: 1
// misses, 2 hits) and counts 0–2: 312 + 312 + 0 = 624; run 1 starts as σ
// at request 1, holds {1, 2} at 3 and hits it, counting request 3 only:
// 0. Sum 624 = OPT, proven.
func TestWindowedJoinHandWorked(t *testing.T) {
	reqs := joinTrace(t)
	obj := Objective{Kind: TEL, XiTokens: 200}
	if want := brute(t, reqs, 2, 512, obj); want != 624 {
		t.Fatalf("exhaustive search: %v, worked out 624", want)
	}
	for _, c := range []struct {
		h           int
		upper0, up1 float64
		join        int
	}{{0, 624, 624, 0}, {1, 624, 0, 1}, {5, 624, 0, 1}} {
		r0, err := WindowedRange(context.Background(), reqs, 512, 2, obj, 2, 0, 0, WindowOptions{JoinRequests: c.h}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r1, err := WindowedRange(context.Background(), reqs, 512, 2, obj, 2, 1, 1, WindowOptions{JoinRequests: c.h}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r0.Upper != c.upper0 || r1.Upper != c.up1 || r0.Lower != 624 || r1.Lower != 0 || r0.JoinRequests != c.join || r1.JoinRequests != c.join {
			t.Errorf("seam ±%d: runs [%v, %v] and [%v, %v] (join %d), want uppers %v and %v", c.h, r0.Lower, r0.Upper, r1.Lower, r1.Upper, r0.JoinRequests, c.upper0, c.up1)
		}
	}
}

// TestWindowedSeamRapid: on random small chain traces, any number of
// windows and any seam, cut into random runs of consecutive windows
// (shards, joined over the seam's join width), the runs' sums are an
// interval around OPT from exhaustive search (lp/exhaustive); the lower
// end does not depend on the seams or the runs; in one process the
// upper end with seams is at most the one without (UpperNoSeams, which
// is the seamless run's Upper).
func TestWindowedSeamRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 3, []int64{1, 2, 4, 16}, 12)
		block, reqs, capacity, obj, windows := c.block, c.reqs, c.capacity, c.obj, c.windows
		wo := WindowOptions{SeamRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "seam"), JoinRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "join")}
		opts := []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		opt := opts[rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")]
		want := brute(t, reqs, capacity, block, obj)
		plain, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, WindowOptions{}, opt)
		if err != nil {
			rt.Fatal(err)
		}
		one, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		if one.Lower != plain.Lower || one.UpperNoSeams != plain.Upper || one.Upper > plain.Upper {
			rt.Fatalf("seams ±%d: [%v, %v] (without seams' guide %v), seamless [%v, %v]", wo.SeamRequests, one.Lower, one.Upper, one.UpperNoSeams, plain.Lower, plain.Upper)
		}
		if one.Lower > want+1e-6*math.Max(1, want) || one.Upper < want-1e-6*math.Max(1, want) {
			rt.Fatalf("one process, seams ±%d: [%v, %v] misses OPT %v", wo.SeamRequests, one.Lower, one.Upper, want)
		}
		lower, upper, w := 0.0, 0.0, 0
		for w < windows {
			last := rapid.IntRange(w, windows-1).Draw(rt, "run end")
			run, err := WindowedRange(context.Background(), reqs, block, capacity, obj, windows, w, last, wo, opt)
			if err != nil {
				rt.Fatal(err)
			}
			if w == 0 && last == windows-1 && (run.Lower != one.Lower || run.Upper != one.Upper) {
				rt.Fatalf("one run [%v, %v], Windowed [%v, %v]", run.Lower, run.Upper, one.Lower, one.Upper)
			}
			lower, upper, w = lower+run.Lower, upper+run.Upper, last+1
		}
		if lower > want+1e-6*math.Max(1, want) || upper < want-1e-6*math.Max(1, want) {
			rt.Fatalf("runs' interval [%v, %v] misses OPT %v (%d windows, seams ±%d)", lower, upper, want, windows, wo.SeamRequests)
		}
		if math.Abs(lower-one.Lower) > 1e-9*math.Max(1, lower) {
			rt.Fatalf("runs' lower %v, Windowed's %v", lower, one.Lower)
		}
	})
}

// TestWindowedJoinNotNaive: why a run does not simply replay h requests
// of warm-up before its first window from an empty cache and count from
// the window on. The trace P P A B X A | B P P P P P (one block each, 512
// tokens, B = 512, C = 2 blocks, ξ = 200: a miss costs 312) in two
// windows of six: each step holds one kept block beside the request's
// own, so of P over (1, 7), A over (2, 5) and B over (3, 6), which
// pairwise share a step, only one is kept: OPT = 6 misses = 1,872
// (exhaustive search agrees). Window 0 alone, by furthest next use, keeps
// A (B is never used again in it): 4 misses, 1,248. Window 1 warmed up
// over requests 3–5 keeps B (X is never used again), and counting from
// request 6 misses only P at 7: 312. The sum, 1,560, is below OPT: the
// two replays hold A and B over step 4 together. The join counts
// requests 3–8 (the join's replay, shadowed, and then 7 and 8) once, in
// run 0, and its sum stays ≥ OPT.
func TestWindowedJoinNotNaive(t *testing.T) {
	var rs []blocktrace.Request
	for i, h := range []int64{1, 1, 2, 3, 4, 2, 3, 1, 1, 1, 1, 1} {
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: 512, Hashes: []int64{h}, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	obj := Objective{Kind: TEL, XiTokens: 200}
	opt := brute(t, reqs, 2, 512, obj)
	if opt != 1872 {
		t.Fatalf("exhaustive search: %v, worked out 1,872", opt)
	}
	p0, err := New(restriction(reqs, 0, 6), 512, 2, obj)
	if err != nil {
		t.Fatal(err)
	}
	_, left, err := p0.Replay(Furthest, nil)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := New(restriction(reqs, 3, 12), 512, 2, obj)
	if err != nil {
		t.Fatal(err)
	}
	hits, _, err := p1.Replay(Furthest, nil)
	if err != nil {
		t.Fatal(err)
	}
	right := 0.0
	for q := 6; q < 12; q++ {
		right += obj.Cost(512, hits[q-3], 512)
	}
	if left != 1248 || right != 312 {
		t.Fatalf("naive warm-up: window 0 %v, window 1 warmed %v; worked out 1,248 and 312", left, right)
	}
	sum := 0.0
	for w := range 2 {
		run, err := WindowedRange(context.Background(), reqs, 512, 2, obj, 2, w, w, WindowOptions{JoinRequests: 3}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if run.JoinRequests != 3 {
			t.Fatalf("join of %d requests, want 3", run.JoinRequests)
		}
		sum += run.Upper
	}
	if sum < opt {
		t.Errorf("joined runs' upper bound %v below OPT %v", sum, opt)
	}
}
