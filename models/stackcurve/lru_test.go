package stackcurve_test

import (
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/models/importer/importertest"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/replay/replaytest"
	"github.com/tailbound/tailbound/models/stackcurve"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// separate replays tr with policy.NewLRU once per capacity: the oracle.
func separate(t testing.TB, tr *trace.Trace, caps []int64, opt replay.Options) []replay.Result {
	t.Helper()
	out := make([]replay.Result, len(caps))
	for i, c := range caps {
		o := opt
		o.Capacity = c
		p, err := policy.NewLRU(policy.Config{Params: o.Params})
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "lru", Policy: p}}, o)
		if err != nil {
			t.Fatalf("capacity %d: %v", c, err)
		}
		out[i] = res[0]
	}
	return out
}

// same compares every reported figure of two results bit for bit (%v of a
// float64 is its shortest round-trip form, so equal text is equal bits).
func same(a, b replay.Result) error {
	fa := fmt.Sprintf("%+v evictions=%d evicted=%d", a.Summary, a.Evictions, a.EvictedTokens)
	fb := fmt.Sprintf("%+v evictions=%d evicted=%d", b.Summary, b.Evictions, b.EvictedTokens)
	if fa != fb {
		return fmt.Errorf("curve    %s\nseparate %s", fa, fb)
	}
	ma, ca := a.Metrics.CDF()
	mb, cb := b.Metrics.CDF()
	if fmt.Sprint(ma, ca) != fmt.Sprint(mb, cb) {
		return fmt.Errorf("TTFT distributions differ")
	}
	return nil
}

// TestLRUEqualsSeparateReplays: on random traces, block sizes and capacity
// lists (0 and capacities below one conversation's history included),
// optional and forced caching, and one or several engines, every figure of
// the one-pass curve at every capacity equals a separate replay of LRU.
func TestLRUEqualsSeparateReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 8, MinTurns: 0, MaxTurns: 60, MaxPrompt: 40, MaxResponse: 40}).Draw(rt, "trace")
		block := rapid.Int64Range(1, 8).Draw(rt, "block")
		caps := rapid.SliceOfN(rapid.Int64Range(0, 60), 1, 6).Draw(rt, "capacity blocks")
		for i := range caps {
			caps[i] *= block
		}
		opt := replay.Options{Params: instance.Params{BlockSize: block, Xi: float64(rapid.IntRange(0, 100).Draw(rt, "xi")),
			Forced: rapid.Bool().Draw(rt, "forced")}, Model: latency.Model{AlphaMs: 0.1, BetaMs: 5}, SLOMs: 8}
		workers := rapid.IntRange(1, 3).Draw(rt, "workers")
		got, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", caps, opt, workers)
		if err != nil {
			rt.Fatal(err)
		}
		want := separate(t, tr, caps, opt)
		for i := range caps {
			if err := same(got[i], want[i]); err != nil {
				rt.Fatalf("capacity %d tokens: %v", caps[i], err)
			}
		}
	})
}

// TestLRUGroupsEqualSeparateReplays: the shape that makes points share a
// boundary — up to 40 capacities, many equal or one block apart, against
// a few conversations whose histories run past most of them — and that
// makes the groups split and join every few turns; every figure at every
// capacity equals a separate replay of LRU.
func TestLRUGroupsEqualSeparateReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 5, MinTurns: 1, MaxTurns: 80, MaxPrompt: 12, MaxResponse: 12}).Draw(rt, "trace")
		block := rapid.Int64Range(1, 4).Draw(rt, "block")
		top := rapid.Int64Range(1, 80).Draw(rt, "largest capacity, blocks")
		caps := rapid.SliceOfN(rapid.Int64Range(0, top), 1, 40).Draw(rt, "capacity blocks")
		for i := range caps {
			caps[i] *= block
		}
		opt := replay.Options{Params: instance.Params{BlockSize: block, Xi: float64(rapid.IntRange(0, 30).Draw(rt, "xi"))},
			Model: latency.Model{AlphaMs: 0.1, BetaMs: 5}, SLOMs: 8}
		got, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", caps, opt, 1)
		if err != nil {
			rt.Fatal(err)
		}
		want := separate(t, tr, caps, opt)
		for i := range caps {
			if err := same(got[i], want[i]); err != nil {
				rt.Fatalf("capacity %d tokens: %v", caps[i], err)
			}
		}
	})
}

// TestLRUHandWorked: B = 1, capacity 5; conversation a (3 + 1 tokens), b
// (2 + 0), a again (1 + 0). After a's turn the cache holds a's 4 tokens;
// after b's, 2 of b and a trimmed to 3 (one eviction, 1 token); a's second
// turn finds 3 cached (h = 4, d = 5, uncached 2), and then a keeps 5,
// evicting b whole (a second eviction, 2 tokens). Uncached loads 3, 2, 2:
// hit ratio 3/10. At capacity 10 nothing is evicted and a finds 4 cached.
func TestLRUHandWorked(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 3, 1)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	opt := replay.Options{Params: instance.Params{BlockSize: 1}, Model: latency.Model{AlphaMs: 1}, SLOMs: 100}
	got, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", []int64{5, 10}, opt, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		evictions, evicted int64
		hit                float64
		uncached           float64
	}{{2, 3, 3.0 / 10, 7}, {0, 0, 4.0 / 10, 6}} {
		r := got[i]
		if r.Evictions != w.evictions || r.EvictedTokens != w.evicted || r.Summary.HitRatio != w.hit || r.Summary.UncachedSum != w.uncached {
			t.Errorf("capacity %d: evictions %d, evicted %d tokens, hit ratio %v, uncached %v; want %d, %d, %v, %v",
				[]int{5, 10}[i], r.Evictions, r.EvictedTokens, r.Summary.HitRatio, r.Summary.UncachedSum, w.evictions, w.evicted, w.hit, w.uncached)
		}
	}
}

// TestLRUMooncake: on the Mooncake conversation trace (read in place from
// the shared data), the curve at 2^12 … 2^24 tokens, B = 16 and 1, optional
// and forced, equals separate replays.
func TestLRUMooncake(t *testing.T) {
	tr := importertest.MooncakeConversations(t)
	var caps []int64
	for e := 12; e <= 24; e += 2 {
		caps = append(caps, 1<<e)
	}
	for _, block := range []int64{16, 1} {
		for _, forced := range []bool{false, true} {
			opt := replay.Options{Params: instance.Params{BlockSize: block, Xi: 1900, Forced: forced}, Model: latency.Default(), SLOMs: 200}
			got, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", caps, opt, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := separate(t, tr, caps, opt)
			for i := range caps {
				if err := same(got[i], want[i]); err != nil {
					t.Errorf("B=%d forced=%v capacity %d: %v", block, forced, caps[i], err)
				}
				if got[i].Evictions == 0 && caps[i] < 1<<20 {
					t.Errorf("B=%d capacity %d: no eviction, the test would not exercise the walk", block, caps[i])
				}
			}
		}
	}
}
