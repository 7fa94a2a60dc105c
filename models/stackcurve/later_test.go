package stackcurve

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/replay/replaytest"
)

// TestLateTurnsEqualSeparateReplays: with every turn from a random load on
// deferred to the shared store (down to 0 tokens: all of them), every
// figure of the curve at every capacity — TTFT distribution included —
// equals a separate replay of policy.NewLRU at that capacity.
func TestLateTurnsEqualSeparateReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 6, MinTurns: 0, MaxTurns: 60, MaxPrompt: 40, MaxResponse: 40}).Draw(rt, "trace")
		block := rapid.Int64Range(1, 8).Draw(rt, "block")
		caps := rapid.SliceOfN(rapid.Int64Range(0, 60), 1, 6).Draw(rt, "capacity blocks")
		for i := range caps {
			caps[i] *= block
		}
		opt := replay.Options{Params: instance.Params{BlockSize: block, Xi: float64(rapid.IntRange(0, 100).Draw(rt, "xi")),
			Forced: rapid.Bool().Draw(rt, "forced")}, Model: latency.Model{AlphaMs: 0.1, BetaMs: 5}, SLOMs: 8}
		from := rapid.Int64Range(0, 1500).Draw(rt, "defer from tokens")
		got, err := lru(replay.SliceSource(tr.Turns), "lru", caps, opt, rapid.IntRange(1, 3).Draw(rt, "workers"), from, metrics.ExactLimit)
		if err != nil {
			rt.Fatal(err)
		}
		for i, c := range caps {
			o := opt
			o.Capacity = c
			p, err := policy.NewLRU(policy.Config{Params: o.Params})
			if err != nil {
				rt.Fatal(err)
			}
			want, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "lru", Policy: p}}, o)
			if err != nil {
				rt.Fatal(err)
			}
			g, w := got[i], want[0]
			fg := fmt.Sprintf("%+v %d %d", g.Summary, g.Evictions, g.EvictedTokens)
			fw := fmt.Sprintf("%+v %d %d", w.Summary, w.Evictions, w.EvictedTokens)
			if fg != fw {
				rt.Fatalf("capacity %d tokens:\ncurve    %s\nseparate %s", c, fg, fw)
			}
			mg, cg := g.Metrics.CDF()
			mw, cw := w.Metrics.CDF()
			if fmt.Sprint(mg, cg) != fmt.Sprint(mw, cw) {
				rt.Fatalf("capacity %d tokens: TTFT distributions differ:\ncurve    %v %v\nseparate %v %v", c, mg, cg, mw, cw)
			}
			for _, s := range []int64{0, 10, 100, 1000} {
				if a, b := g.Metrics.Exceeding(s), w.Metrics.Exceeding(s); a != b {
					rt.Fatalf("capacity %d tokens: turns above %d tokens %d, separate %d", c, s, a, b)
				}
			}
		}
	})
}

// TestDeferTurnRecordsEveryTurn: on a trace where every turn is deferred,
// the inference of A from the points never fails (the package doc's
// claim), so every turn lands in the store and no histogram holds any.
func TestDeferTurnRecordsEveryTurn(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 6, MinTurns: 1, MaxTurns: 40, MaxPrompt: 30, MaxResponse: 30}).Draw(rt, "trace")
		caps := rapid.SliceOfN(rapid.Int64Range(0, 40), 1, 8).Draw(rt, "capacity blocks")
		opt := replay.Options{Params: instance.Params{BlockSize: 1}, Model: latency.Model{AlphaMs: 0.1}}
		e := newEngine(caps, opt, 0, metrics.ExactLimit)
		e.run(tr.Turns)
		n := 0 // the turns of one run, and the others:
		for _, chunk := range e.late.one {
			n += len(chunk)
		}
		for i := 0; i < len(e.late.recs); i += 2 + 2*int(e.late.recs[i+1]) {
			n++
		}
		if n != len(tr.Turns) {
			rt.Fatalf("%d of %d turns deferred", n, len(tr.Turns))
		}
	})
}

// TestLateUncached: for random turns of zero, one or several runs (enough
// one-run turns to fill several chunks), added in several rounds with
// capacities asked in between, each capacity's counts are, as a multiset,
// the counts computed turn by turn from the definition
// d − min(B·Σ clamp(C − s, 0, l), d), in batches of 1 to uncachedBatch
// counts, and an iteration stopped early gives a prefix of them.
func TestLateUncached(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		block := rapid.Int64Range(1, 64).Draw(rt, "block")
		late := NewLate(block)
		var recs [][]int64 // d, then the runs
		fill := rapid.IntRange(0, 9).Draw(rt, "fill a chunk") == 0
		for round := rapid.IntRange(1, 3).Draw(rt, "rounds"); round > 0; round-- {
			for n := rapid.IntRange(0, 300).Draw(rt, "turns"); n > 0; n-- {
				if fill {
					// a whole chunk and more of one-run turns, once
					fill = false
					for k := range chunkRuns + 100 {
						d, s, l := int64(k%5000), int64(k%101), int64(1+k%39)
						late.Add(d, s, l)
						recs = append(recs, []int64{d, s, l})
					}
				}
				d := rapid.Int64Range(0, 5000).Draw(rt, "d")
				var runs []int64
				for r := rapid.IntRange(0, 3).Draw(rt, "runs"); r > 0; r-- {
					runs = append(runs, rapid.Int64Range(0, 100).Draw(rt, "s"), rapid.Int64Range(1, 40).Draw(rt, "l"))
				}
				late.Add(d, runs...)
				recs = append(recs, append([]int64{d}, runs...))
			}
			for _, c := range rapid.SliceOfN(rapid.Int64Range(0, 200), 1, 4).Draw(rt, "capacity blocks") {
				var want []int64
				for _, r := range recs {
					var hit int64
					for i := 1; i < len(r); i += 2 {
						hit += min(max(c-r[i], 0), r[i+1])
					}
					want = append(want, r[0]-min(block*hit, r[0]))
				}
				var got []int64
				for batch := range late.Uncached(c) {
					if len(batch) == 0 || len(batch) > uncachedBatch {
						rt.Fatalf("capacity %d blocks: a batch of %d counts", c, len(batch))
					}
					got = append(got, batch...)
				}
				if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
					rt.Fatalf("capacity %d blocks: %v, want %v in any order", c, got, want)
				}
				k := rapid.IntRange(0, 3).Draw(rt, "batches taken")
				var first []int64
				for batch := range late.Uncached(c) {
					if k == 0 {
						break
					}
					k--
					first = append(first, batch...)
				}
				if !slices.Equal(first, got[:len(first)]) {
					rt.Fatalf("capacity %d blocks: batches stopped early gave %v, want a prefix of %v", c, first, got)
				}
			}
		}
	})
}

// TestLateFreeze: after Freeze for a random range of capacities, at each
// capacity of the range the counts of the Uncached iteration and of the
// Shifted sets (keys in increasing order, every count ≥ 0) together are,
// as a multiset, the counts computed turn by turn from the definition;
// turns of one run with short and long runs, near and far stack
// positions, so that every class of Freeze is drawn.
func TestLateFreeze(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		block := rapid.Int64Range(1, 64).Draw(rt, "block")
		late := NewLate(block)
		var recs [][]int64 // d, then the runs
		for n := rapid.IntRange(0, 400).Draw(rt, "turns"); n > 0; n-- {
			d := rapid.Int64Range(0, 20000).Draw(rt, "d")
			var runs []int64
			for r := rapid.SampledFrom([]int{1, 1, 1, 0, 2}).Draw(rt, "runs"); r > 0; r-- {
				runs = append(runs, rapid.Int64Range(0, 150).Draw(rt, "s"), rapid.Int64Range(1, 200).Draw(rt, "l"))
			}
			late.Add(d, runs...)
			recs = append(recs, append([]int64{d}, runs...))
		}
		cmin := rapid.Int64Range(0, 200).Draw(rt, "cmin blocks")
		cmax := rapid.Int64Range(cmin, 300).Draw(rt, "cmax blocks")
		late.Freeze(cmin, cmax)
		for _, c := range []int64{cmin, cmax, rapid.Int64Range(cmin, cmax).Draw(rt, "capacity blocks")} {
			var want []int64
			for _, r := range recs {
				var hit int64
				for i := 1; i < len(r); i += 2 {
					hit += min(max(c-r[i], 0), r[i+1])
				}
				want = append(want, r[0]-min(block*hit, r[0]))
			}
			var got []int64
			for batch := range late.Uncached(c) {
				got = append(got, batch...)
			}
			for _, set := range late.Shifted(c) {
				if !slices.IsSorted(set.Keys) {
					rt.Fatalf("capacity %d blocks: keys not in order: %v", c, set.Keys)
				}
				for _, k := range set.Keys {
					if k-set.Offset < 0 {
						rt.Fatalf("capacity %d blocks: count %d − %d < 0", c, k, set.Offset)
					}
					got = append(got, k-set.Offset)
				}
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
				rt.Fatalf("capacity %d blocks (range %d–%d): %v, want %v in any order", c, cmin, cmax, got, want)
			}
		}
	})
}

// TestExactSumsEqualSeparateReplays: the sums kept in integers and
// regrouped (engine.sums), under thresholds ξ that are integers, dyadic
// fractions or neither (0.1: the sums are then added point by point from
// the start), and with the budget of exact sums running out at a random
// turn (the sums so far handed over, the rest added point by point), give
// every figure of a separate replay of policy.NewLRU at every capacity.
func TestExactSumsEqualSeparateReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 6, MinTurns: 0, MaxTurns: 50, MaxPrompt: 40, MaxResponse: 40}).Draw(rt, "trace")
		block := rapid.Int64Range(1, 8).Draw(rt, "block")
		caps := rapid.SliceOfN(rapid.Int64Range(0, 60), 1, 6).Draw(rt, "capacity blocks")
		for i := range caps {
			caps[i] *= block
		}
		xi := rapid.SampledFrom([]float64{0, 25, -6, 10.5, 40.25, 0.1}).Draw(rt, "xi")
		opt := replay.Options{Params: instance.Params{BlockSize: block, Xi: xi, Forced: rapid.Bool().Draw(rt, "forced")},
			Model: latency.Model{AlphaMs: 0.1, BetaMs: 5}, SLOMs: 8}
		limit := rapid.OneOf(rapid.Int64Range(0, 20000), rapid.Just(int64(metrics.ExactLimit))).Draw(rt, "limit")
		got, err := lru(replay.SliceSource(tr.Turns), "lru", caps, opt, rapid.IntRange(1, 2).Draw(rt, "workers"),
			rapid.SampledFrom([]int64{0, 100, deferFrom}).Draw(rt, "defer from"), limit)
		if err != nil {
			rt.Fatal(err)
		}
		for i, c := range caps {
			o := opt
			o.Capacity = c
			p, err := policy.NewLRU(policy.Config{Params: o.Params})
			if err != nil {
				rt.Fatal(err)
			}
			want, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "lru", Policy: p}}, o)
			if err != nil {
				rt.Fatal(err)
			}
			fg := fmt.Sprintf("%+v %d %d", got[i].Summary, got[i].Evictions, got[i].EvictedTokens)
			fw := fmt.Sprintf("%+v %d %d", want[0].Summary, want[0].Evictions, want[0].EvictedTokens)
			if fg != fw {
				rt.Fatalf("capacity %d tokens:\ncurve    %s\nseparate %s", c, fg, fw)
			}
		}
	})
}
