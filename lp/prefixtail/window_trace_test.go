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

// TestReplayTraceRapid checks the compact replay trace against the
// program it stands in for (New on the same requests), on random traces
// of up to 80 requests with shared prefixes, both objectives: the next
// use of every reference, which references end a column (endCol ≥ 0) and
// the column's start (its previous use); and, under random guides (each
// column kept or not), the one engine's stitched replay with the whole
// trace's lookahead (lookRun.replay, engineReplay) against
// Problem.Replay under rule Guided with the same guide on the columns:
// the same hits at every request and the same cost.
func TestReplayTraceRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 5))
		block := rapid.SampledFrom([]int64{1, 2, 4, 16}).Draw(rt, "block")
		reqs := randomTrace(r, rapid.IntRange(1, 80).Draw(rt, "requests"), rapid.IntRange(4, 60).Draw(rt, "nodes"), block)
		capacity := longest(reqs) + rapid.IntRange(0, 6).Draw(rt, "extra")
		obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), block)
		p, err := New(reqs, block, capacity, obj)
		if err != nil {
			rt.Fatal(err)
		}
		tr, err := newReplayTrace(FlatOf(reqs), block, capacity, obj)
		if err != nil {
			rt.Fatal(err)
		}
		if !slices.Equal(tr.next, p.next) {
			rt.Fatalf("next uses %v, the program's %v", tr.next, p.next)
		}
		for ref, col := range p.endCol {
			if tr.col[ref] != (col >= 0) {
				rt.Fatalf("reference %d: column %v, the program's endCol %d", ref, tr.col[ref], col)
			}
			if col >= 0 && p.Cols[col].P != tr.prev[ref] {
				rt.Fatalf("reference %d: previous use %d, the program's column starts at %d", ref, tr.prev[ref], p.Cols[col].P)
			}
		}
		for range 3 {
			gc := make([]float64, len(p.Cols))
			gb := make([]bool, len(tr.prev))
			density := r.Float64()
			for ref, col := range p.endCol {
				if col >= 0 && r.Float64() < density {
					gc[col], gb[ref] = 1, true
				}
			}
			wantHits, want, err := p.Replay(Guided, gc)
			if err != nil {
				rt.Fatal(err)
			}
			hits, v, err := engineReplay(reqs, block, capacity, obj, gb)
			if err != nil {
				rt.Fatal(err)
			}
			if !slices.Equal(hits, wantHits) || v != want {
				rt.Fatalf("guided replay: hits %v cost %v, Problem.Replay %v cost %v", hits, v, wantHits, want)
			}
		}
	})
}

// TestReplayTraceErrors: the replay trace refuses what New refuses, with
// New's message.
func TestReplayTraceErrors(t *testing.T) {
	reqs := handTrace(t)
	obj := Objective{Kind: TEL, XiTokens: 200}
	for _, c := range []struct {
		name     string
		reqs     []prefixcache.Req
		block    int64
		capacity int
	}{
		{"chain longer than the capacity", reqs, 512, 2},
		{"block size 0", reqs, 0, 4},
		{"negative capacity", reqs, 512, -1},
		{"a block twice in a chain", []prefixcache.Req{{Index: 0, Input: 10, Blocks: []prefixcache.BlockID{0, 0}}}, 512, 4},
		{"two parents", []prefixcache.Req{{Index: 0, Input: 10, Blocks: []prefixcache.BlockID{0, 1}}, {Index: 1, Input: 10, Blocks: []prefixcache.BlockID{2, 1}}}, 512, 4},
	} {
		_, want := New(c.reqs, c.block, c.capacity, obj)
		_, got := newReplayTrace(FlatOf(c.reqs), c.block, c.capacity, obj)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: got %v, New %v", c.name, got, want)
		}
	}
}

// TestFlatHistoryRapid: a window's history read off the replay trace's
// previous uses is HistoryOf's on the requests, chain and input alike.
func TestFlatHistoryRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 7))
		reqs := randomTrace(r, rapid.IntRange(1, 60).Draw(rt, "requests"), rapid.IntRange(4, 40).Draw(rt, "nodes"), 4)
		tr, err := newReplayTrace(FlatOf(reqs), 4, longest(reqs), Objective{Kind: TEL})
		if err != nil {
			rt.Fatal(err)
		}
		s := rapid.IntRange(0, len(reqs)).Draw(rt, "start")
		e := rapid.IntRange(s, len(reqs)).Draw(rt, "end")
		got := tr.history(s, e)
		want := HistoryOf(reqs, s, e)
		if len(got) != len(want) {
			rt.Fatalf("window [%d, %d): %d history requests, HistoryOf %d", s, e, len(got), len(want))
		}
		for i, u := range want {
			if got[i].Index != u || got[i].Input != reqs[u].Input || !slices.Equal(got[i].Blocks, reqs[u].Blocks) {
				rt.Fatalf("window [%d, %d): history %d is %+v, want request %d %+v", s, e, i, got[i], u, reqs[u])
			}
		}
	})
}

// TestWindowedFlatRapid: WindowedFlat on the Flat of a random trace gives
// Windowed's figures on its requests (every one but the wall times), and
// with seams, both objectives and the three lower-bound solvers, an
// interval around the optimum by exhaustive search.
func TestWindowedFlatRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 9))
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(rt, "block")
		reqs := randomTrace(r, rapid.IntRange(1, 12).Draw(rt, "requests"), rapid.IntRange(4, 16).Draw(rt, "nodes"), block)
		capacity := longest(reqs) + rapid.IntRange(0, 3).Draw(rt, "extra")
		obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), block)
		windows := rapid.IntRange(1, len(reqs)).Draw(rt, "windows")
		wo := WindowOptions{SeamRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "seam")}
		opts := []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		opt := opts[rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")]
		want, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := WindowedFlat(context.Background(), FlatOf(reqs), block, capacity, obj, windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		clear := func(wb *WindowBounds) {
			for i := range wb.PerWindow {
				wb.PerWindow[i].Seconds = 0
			}
		}
		clear(want)
		clear(got)
		if !equalBounds(got, want) {
			rt.Fatalf("WindowedFlat %+v, Windowed %+v", got, want)
		}
		opt0 := brute(t, reqs, capacity, block, obj)
		if got.Lower > opt0+1e-6*max(1, opt0) || got.Upper < opt0-1e-6*max(1, opt0) {
			rt.Fatalf("[%v, %v] misses OPT %v", got.Lower, got.Upper, opt0)
		}
	})
}

func equalBounds(a, b *WindowBounds) bool {
	return a.Objective == b.Objective && a.Lower == b.Lower && a.Upper == b.Upper && a.Proven == b.Proven &&
		a.RelativeWidth == b.RelativeWidth && a.Windows == b.Windows && a.Requests == b.Requests &&
		a.SeamRequests == b.SeamRequests && a.JoinRequests == b.JoinRequests && a.UpperNoSeams == b.UpperNoSeams &&
		slices.Equal(a.PerWindow, b.PerWindow)
}

// TestFlatSpanRapid: a run of windows bounded from Flat.Span (a trace
// read whole from standard input, then cut) gives WindowedRange's figures
// on the requests, with random runs, seams and joins, both objectives.
func TestFlatSpanRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 11))
		reqs := randomTrace(r, rapid.IntRange(1, 30).Draw(rt, "requests"), rapid.IntRange(4, 30).Draw(rt, "nodes"), 4)
		capacity := longest(reqs) + rapid.IntRange(0, 3).Draw(rt, "extra")
		obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), 4)
		windows := rapid.IntRange(1, len(reqs)).Draw(rt, "windows")
		first := rapid.IntRange(0, windows-1).Draw(rt, "first")
		last := rapid.IntRange(first, windows-1).Draw(rt, "last")
		wo := WindowOptions{SeamRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "seam"), JoinRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "join")}
		want, err := WindowedRange(context.Background(), reqs, 4, capacity, obj, windows, first, last, wo, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		sp, err := FlatOf(reqs).Span(windows, first, last, wo)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := WindowedSpan(context.Background(), sp, 4, capacity, obj, windows, first, last, wo, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		for _, wb := range []*WindowBounds{want, got} {
			for i := range wb.PerWindow {
				wb.PerWindow[i].Seconds = 0
			}
		}
		if !equalBounds(got, want) {
			rt.Fatalf("from Flat.Span %+v, WindowedRange %+v", got, want)
		}
	})
}

// TestRenumberRapid: a problem's bound does not change when its blocks
// are renumbered 0, 1, … in the order of their ids (renumber, which the
// windows' problems go through): the same lower and upper bounds and the
// same hits of the best replay, on a random window of a random trace
// (whose ids are not dense), under the three lower-bound solvers.
func TestRenumberRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 13))
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(rt, "block")
		reqs := randomTrace(r, rapid.IntRange(2, 40).Draw(rt, "requests"), rapid.IntRange(4, 40).Draw(rt, "nodes"), block)
		s := rapid.IntRange(0, len(reqs)-1).Draw(rt, "start")
		e := rapid.IntRange(s+1, len(reqs)).Draw(rt, "end")
		win := restriction(reqs, s, e)
		capacity := longest(win) + rapid.IntRange(0, 3).Draw(rt, "extra")
		obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), block)
		opts := []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		opt := opts[rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")]
		ren := renumber(win)
		for i := range win {
			if len(ren[i].Blocks) != len(win[i].Blocks) {
				rt.Fatalf("request %d: chain of %d blocks renumbered to %d", i, len(win[i].Blocks), len(ren[i].Blocks))
			}
			for j := range i + 1 {
				for d, a := range win[i].Blocks {
					for f, b := range win[j].Blocks {
						if (a < b) != (ren[i].Blocks[d] < ren[j].Blocks[f]) || (a == b) != (ren[i].Blocks[d] == ren[j].Blocks[f]) {
							rt.Fatalf("ids %d, %d renumbered to %d, %d: order not kept", a, b, ren[i].Blocks[d], ren[j].Blocks[f])
						}
					}
				}
			}
		}
		var out [2]*Bounds
		for k, q := range [][]prefixcache.Req{win, ren} {
			p, err := New(q, block, capacity, obj)
			if err != nil {
				rt.Fatal(err)
			}
			if out[k], err = p.Bound(context.Background(), opt); err != nil {
				rt.Fatal(err)
			}
		}
		if out[0].Lower != out[1].Lower || out[0].Upper != out[1].Upper || !slices.Equal(out[0].hits, out[1].hits) {
			rt.Fatalf("bound [%v, %v] hits %v, renumbered [%v, %v] hits %v", out[0].Lower, out[0].Upper, out[0].hits, out[1].Lower, out[1].Upper, out[1].hits)
		}
	})
}

// engineReplay replays reqs through the one engine (one window, the whole
// trace's lookahead) under guide (per block reference: the interval
// ending there kept), its columns the engine's own, and returns the hits
// per request and their cost.
func engineReplay(reqs []prefixcache.Req, block int64, capacity int, obj Objective, guide []bool) ([]int, float64, error) {
	lr, err := newLookRun(len(reqs), block, capacity, obj, 1, 0, WindowOptions{}, Options{}, true)
	if err != nil {
		return nil, 0, err
	}
	for i := range reqs {
		if err := lr.add(&reqs[i]); err != nil {
			return nil, 0, err
		}
	}
	for ref, kept := range guide {
		if kept {
			lr.kept[ref] |= keptPlain
		}
	}
	if err := lr.replay(0); err != nil {
		return nil, 0, err
	}
	return lr.plain.hits, lr.plain.v, nil
}
