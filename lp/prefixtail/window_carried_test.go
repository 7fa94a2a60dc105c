package prefixtail

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// usedBefore returns, by brute force, whether each block was referenced
// by one of reqs[0:s].
func usedBefore(reqs []prefixcache.Req, s int) func(prefixcache.BlockID) bool {
	set := chainSet(reqs[:s])
	return func(id prefixcache.BlockID) bool { return set[id] }
}

// TestCarriedHistoryRapid: on random traces and windows (a lower overlap's
// weights included), the relaxation over a carried history against the
// one over the last uses (NewRelaxation's, HistoryOf): the same
// capacity-free bound to the last digit, the same optimum by the integer
// program (lp/gonumlp's branch and bound) and the same LP value within
// 10⁻⁶ (relative), and the carried history is what its definition says,
// checked from the trace by brute force: its chains are root paths the
// window's chains hold, made of blocks used before the window, every such
// block on one, each ending at a block with no such child, but the last
// when the request before the window is given: the longest prefix of its
// chain that the window references.
func TestCarriedHistoryRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 31, []int64{1, 4, 16}, 16)
		n := len(c.reqs)
		s := rapid.IntRange(0, n-1).Draw(rt, "first")
		e := rapid.IntRange(s+1, n).Draw(rt, "end")
		var weights []float64
		if rapid.Bool().Draw(rt, "weighted") {
			for i := range e - s {
				weights = append(weights, OverlapWeight(i, e-s))
			}
		}
		seen := usedBefore(c.reqs, s)
		win := restriction(c.reqs, s, e)
		var before []prefixcache.BlockID
		if s > 0 && rapid.Bool().Draw(rt, "before") {
			before = c.reqs[s-1].Blocks
		}
		hist, err := CarriedHistory(win, before, c.block, seen)
		if err != nil {
			rt.Fatal(err)
		}
		carried := map[prefixcache.BlockID]bool{}
		for _, q := range win {
			for _, id := range q.Blocks {
				if seen(id) {
					carried[id] = true
				}
			}
		}
		inWin := chainSet(win)
		k := 0
		for k < len(before) && inWin[before[k]] {
			k++
		}
		if k > 0 && (len(hist) == 0 || !slices.Equal(hist[len(hist)-1].Blocks, before[:k])) {
			rt.Fatalf("history %v: want it to end with %v, the request before's prefix the window references", hist, before[:k])
		}
		onPath := map[prefixcache.BlockID]bool{}
		for i, h := range hist {
			if len(h.Blocks) == 0 || h.Input != int64(len(h.Blocks))*c.block {
				rt.Fatalf("history request %+v: empty, or its input not its chain's tokens", h)
			}
			prefix := false
			for _, q := range win {
				prefix = prefix || len(q.Blocks) >= len(h.Blocks) && slices.Equal(q.Blocks[:len(h.Blocks)], h.Blocks)
			}
			if !prefix {
				rt.Fatalf("history chain %v is no window chain's prefix", h.Blocks)
			}
			for _, id := range h.Blocks {
				if !carried[id] {
					rt.Fatalf("history chain %v holds block %d, not used before the window", h.Blocks, id)
				}
				onPath[id] = true
			}
			if k > 0 && i == len(hist)-1 {
				continue // the request before's prefix, not a leaf's path
			}
			leaf := h.Blocks[len(h.Blocks)-1]
			for _, q := range win {
				for d := 0; d+1 < len(q.Blocks); d++ {
					if q.Blocks[d] == leaf && carried[q.Blocks[d+1]] {
						rt.Fatalf("history chain %v ends at block %d, which has the carried child %d", h.Blocks, leaf, q.Blocks[d+1])
					}
				}
			}
		}
		if len(onPath) != len(carried) {
			rt.Fatalf("%d carried blocks, %d on the history's chains", len(carried), len(onPath))
		}
		var last []prefixcache.Req
		for _, u := range HistoryOf(c.reqs, s, e) {
			last = append(last, c.reqs[u])
		}
		a, err := NewRelaxationWeighted(last, c.reqs[s:e], weights, c.block, c.capacity, c.obj)
		if err != nil {
			rt.Fatal(err)
		}
		b, err := NewRelaxationWeighted(hist, c.reqs[s:e], weights, c.block, c.capacity, c.obj)
		if err != nil {
			rt.Fatal(err)
		}
		if a.CapacityFree() != b.CapacityFree() {
			rt.Fatalf("capacity-free bound %v over the last uses, %v over the carried history", a.CapacityFree(), b.CapacityFree())
		}
		for _, relax := range []bool{false, true} {
			va := solveValue(rt, a, relax)
			vb := solveValue(rt, b, relax)
			if math.Abs(va-vb) > 1e-6*max(1, math.Abs(va)) {
				rt.Fatalf("relax %v: optimum %v over the last uses, %v over the carried history", relax, va, vb)
			}
		}
	})
}

// solveValue returns the optimum of p's program (of its LP relaxation
// when relax) by lp/gonumlp.
func solveValue(rt *rapid.T, p *Problem, relax bool) float64 {
	s, _, err := p.solve(context.Background(), gonumlp.Backend{}, p.Program(), relax, 0)
	if err != nil {
		rt.Fatal(err)
	}
	if s.Value == nil || s.Status != "optimal" {
		rt.Fatalf("gonum: %s", s.Status)
	}
	return *s.Value
}

// TestCarriedWindowedRapid: with carried histories, the windowed lower
// bound is at most the optimum by exhaustive search (lp/exhaustive), and
// the upper bound and every window's restriction are those of the last
// uses' histories (the histories enter the relaxations only), one process
// (WindowedFlat) and with a bounded lookahead alike.
func TestCarriedWindowedRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, wo, opt := drawLookaheadCase(rt, 33)
		n := len(c.reqs)
		h := rapid.IntRange(1, n+1).Draw(rt, "lookahead")
		for _, look := range []bool{false, true} {
			run := func(carried bool) *WindowBounds {
				w := wo
				w.CarriedHistory = carried
				var wb *WindowBounds
				var err error
				if look {
					wb, err = WindowedLookahead(context.Background(), FlatSource(FlatOf(c.reqs)), n, c.block, c.capacity, c.obj, c.windows, h, w, opt)
				} else {
					wb, err = WindowedFlat(context.Background(), FlatOf(c.reqs), c.block, c.capacity, c.obj, c.windows, w, opt)
				}
				if err != nil {
					rt.Fatal(err)
				}
				return wb
			}
			got, last := run(true), run(false)
			if got.Upper != last.Upper || got.UpperNoSeams != last.UpperNoSeams {
				rt.Fatalf("lookahead %v: upper %v (%v without seams) with carried histories, %v (%v) without", look, got.Upper, got.UpperNoSeams, last.Upper, last.UpperNoSeams)
			}
			for w := range got.PerWindow {
				if got.PerWindow[w].Restricted != last.PerWindow[w].Restricted {
					rt.Fatalf("window %d: restricted %v with carried histories, %v without", w, got.PerWindow[w].Restricted, last.PerWindow[w].Restricted)
				}
			}
			if opt0 := brute(t, c.reqs, c.capacity, c.block, c.obj); got.Lower > opt0+1e-6*max(1, opt0) {
				rt.Fatalf("lookahead %v: lower bound %v above the optimum %v", look, got.Lower, opt0)
			}
		}
	})
}

// TestCarriedHeldBounded: with carried histories, the lookahead run's
// table of held blocks never holds more blocks than the held requests
// reference, and its held requests stay within a window, the lookahead
// and one more request (no seams, no overlap), on a long random trace.
func TestCarriedHeldBounded(t *testing.T) {
	reqs := randomTrace(rand.New(rand.NewPCG(5, 6)), 3000, 400, 4)
	n, windows, h := len(reqs), 30, 40
	lr, err := newLookRun(n, 4, longest(reqs)+2, Objective{Kind: TEL, XiTokens: 3}, windows, h, WindowOptions{CarriedHistory: true}, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	next := FlatSource(FlatOf(reqs))
	if err := lr.advance(context.Background()); err != nil {
		t.Fatal(err)
	}
	most := 0
	for lr.read < n {
		q, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if err := lr.add(q); err != nil {
			t.Fatal(err)
		}
		if err := lr.advance(context.Background()); err != nil {
			t.Fatal(err)
		}
		refs := map[prefixcache.BlockID]bool{}
		for _, id := range lr.blocks {
			refs[id] = true
		}
		if len(lr.held) > len(refs) {
			t.Fatalf("after request %d: %d blocks in the table, %d referenced by the held requests", lr.read-1, len(lr.held), len(refs))
		}
		for id, p := range lr.held {
			if int(p) < lr.base || !slices.Contains(lr.chain(int(p)), id) {
				t.Fatalf("after request %d: block %d's last use %d is not a held request holding it", lr.read-1, id, p)
			}
		}
		most = max(most, lr.read-lr.base)
	}
	// Held: the window being replayed waits for h more requests; a drop
	// happens once at least half of what is held can go.
	if limit := 2 * (n/windows + h + 1); most > limit {
		t.Fatalf("held up to %d requests, want at most %d", most, limit)
	}
	if lr.parent != nil || lr.lastUse != nil || lr.leaf != nil || lr.allInput != nil {
		t.Fatal("the whole trace's arrays are allocated with carried histories")
	}
}

// TestIDSet: each id is new once, then seen, across words and pages, and
// a large id allocates its own page only.
func TestIDSet(t *testing.T) {
	var s idSet
	ids := []prefixcache.BlockID{0, 1, 63, 64, 65535, 65536, 1<<30 + 7}
	for _, id := range ids {
		if s.add(id) {
			t.Errorf("id %d seen before it was added", id)
		}
	}
	for _, id := range ids {
		if !s.add(id) {
			t.Errorf("id %d not seen after it was added", id)
		}
	}
	for _, id := range []prefixcache.BlockID{2, 62, 66, 65534, 65537, 1<<30 + 6} {
		if s.add(id) {
			t.Errorf("id %d, never added, seen", id)
		}
	}
	pages := 0
	for _, p := range s.pages {
		if p != nil {
			pages++
		}
	}
	if pages != 3 {
		t.Errorf("%d pages allocated for ids in 3 pages", pages)
	}
}
