package blocktail

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/prefixtail"
)

// TestLoadSpanOverlapRapid is TestLoadSpanRapid with a lower overlap: the
// streamed span holds SpanRange's requests (the overlap before the run's
// first window included), each window's history is that of its widened
// relaxation (prefixtail.HistoryOf over RelaxationRange, on the whole
// trace), and WindowedSpan on the span gives WindowedRange's result on the
// whole trace, every figure equal (the wall times aside), with the
// capacity-free or the Lagrangian lower bound.
func TestLoadSpanOverlapRapid(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 7))
		n := rapid.IntRange(1, 40).Draw(rt, "requests")
		chains, inputs := prefixtail.RandomChains(r, n, rapid.IntRange(2, 12).Draw(rt, "nodes"), 512, false)
		path := writeMooncake(t, dir, chains, inputs)
		longest := 0
		for _, c := range chains {
			longest = max(longest, len(c))
		}
		capacity := longest + rapid.IntRange(0, 3).Draw(rt, "spare")
		obj := prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "xi"))}
		if rapid.Bool().Draw(rt, "slo") {
			obj = prefixtail.Objective{Kind: prefixtail.SLO, SLOTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "s"))}
		}
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		first := rapid.IntRange(0, windows-1).Draw(rt, "first")
		last := rapid.IntRange(first, windows-1).Draw(rt, "last")
		wo := prefixtail.WindowOptions{SeamRequests: rapid.IntRange(0, 6).Draw(rt, "seam"), JoinRequests: rapid.IntRange(0, 6).Draw(rt, "join"),
			LowerOverlapRequests: rapid.IntRange(0, n).Draw(rt, "overlap")}
		opt := prefixtail.Options{}
		if rapid.Bool().Draw(rt, "lagrangian") {
			opt.Lagrange = &prefixtail.LagrangeOptions{}
		}

		tr, err := Load(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		sp, err := LoadSpan(path, "mooncake", 0, n, windows, first, last, wo)
		if err != nil {
			rt.Fatal(err)
		}
		lo, hi := prefixtail.SpanRange(n, windows, first, last, wo)
		if sp.First != lo || len(sp.Reqs) != hi-lo {
			rt.Fatalf("span holds [%d, %d), want [%d, %d)", sp.First, sp.First+len(sp.Reqs), lo, hi)
		}
		if r0, _ := prefixtail.RelaxationRange(n, windows, first, wo); lo > r0 {
			rt.Fatalf("span starts at %d, after the first relaxation's start %d", lo, r0)
		}
		for k := range sp.History {
			a, b := prefixtail.RelaxationRange(n, windows, first+k, wo)
			want := prefixtail.HistoryOf(tr.Reqs, a, b)
			if len(sp.History[k]) != len(want) {
				rt.Fatalf("window %d: %d history requests, want %d", first+k, len(sp.History[k]), len(want))
			}
			for i, q := range sp.History[k] {
				o := tr.Reqs[want[i]]
				if q.Index != o.Index || q.Input != o.Input || !slices.Equal(q.Blocks, o.Blocks) {
					rt.Fatalf("window %d: history request %d is %d %v (%d tokens), want %d %v (%d tokens)", first+k, i, q.Index, q.Blocks, q.Input, o.Index, o.Blocks, o.Input)
				}
			}
		}
		want, errW := prefixtail.WindowedRange(context.Background(), tr.Reqs, 512, capacity, obj, windows, first, last, wo, opt)
		got, errG := prefixtail.WindowedSpan(context.Background(), &sp.Span, 512, capacity, obj, windows, first, last, wo, opt)
		if (errW != nil) != (errG != nil) {
			rt.Fatalf("whole trace: %v; streamed: %v", errW, errG)
		}
		if errW != nil {
			return
		}
		for _, b := range []*prefixtail.WindowBounds{want, got} {
			for i := range b.PerWindow {
				b.PerWindow[i].Seconds = 0
			}
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *want) {
			rt.Fatalf("streamed %+v\nwhole    %+v", *got, *want)
		}
	})
}
