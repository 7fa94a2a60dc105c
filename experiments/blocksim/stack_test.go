package blocksim_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
)

// figures is every figure of a result, floats in their shortest
// round-trip form (equal text is equal bits), with the TTFT distribution.
func figures(r blocksim.Result) string {
	ms, cs := r.Metrics.CDF()
	q := "no queue"
	if r.Queued != nil {
		q = fmt.Sprintf("%+v", *r.Queued)
	}
	return fmt.Sprintf("%s C=%d/%d requests=%d refs=%d hits=%d ratio=%v evictions=%d\n%+v\n%s\n%v %v",
		r.Name, r.CapacityTokens, r.CapacityBlocks, r.Requests, r.RefBlocks, r.HitBlocks, r.BlockHitRatio, r.Evictions, r.Summary, q, ms, cs)
}

// sweepEqualsSeparate replays s once with LRU at every capacity (the
// stack pass) and once per capacity (one cache, the engine), and reports
// the first figure that differs.
func sweepEqualsSeparate(t testing.TB, s *blocktrace.Stream, caps []int64, opt blocksim.Options) error {
	lru := lruEntry()
	got, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(lru, caps), opt)
	if err != nil {
		return err
	}
	for i, c := range caps {
		want, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(lru, []int64{c}), opt)
		if err != nil {
			return err
		}
		if g, w := figures(got[i]), figures(want[0]); g != w {
			return fmt.Errorf("capacity %d tokens:\nsweep    %s\nseparate %s", c, g, w)
		}
	}
	return nil
}

// TestLRUSweepEqualsSeparateReplays: on random chain traces (shared
// prefixes, chains longer than the cache, inputs ending in a partial block),
// LRU at every capacity of a sweep (one stack pass) reports every figure —
// hits, evictions, TEL, percentiles, SLO violations, the TTFT distribution,
// the queued TTFT — bit for bit as a separate replay at that capacity.
func TestLRUSweepEqualsSeparateReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(rt, "requests")
		s := randomStream(rapid.Uint64().Draw(rt, "seed"), n, rapid.IntRange(1, 8).Draw(rt, "alphabet"))
		var caps []int64
		for _, c := range rapid.SliceOfN(rapid.IntRange(0, 80), 2, 6).Draw(rt, "capacities (blocks)") {
			caps = append(caps, 16*int64(c))
		}
		opt := opts
		opt.Queue = rapid.Bool().Draw(rt, "queue")
		opt.QueueServers = rapid.IntRange(1, 3).Draw(rt, "servers")
		// From 1 token every request of the sweep goes to the shared
		// store of late requests; from 10^9 none does.
		opt = blocksim.WithLateFrom(opt, rapid.SampledFrom([]int64{1, 40, 1e9}).Draw(rt, "late from (tokens)"))
		if err := sweepEqualsSeparate(t, s, caps, opt); err != nil {
			rt.Fatal(err)
		}
	})
}

// TestLRUSweepMooncake: the same on the Mooncake conversation trace (read in
// place from the shared data; 512-token blocks) at 2^12 … 2^24 tokens.
func TestLRUSweepMooncake(t *testing.T) {
	s := loadMooncake(t, "conversation_trace.jsonl")
	var caps []int64
	for e := 12; e <= 24; e += 2 {
		caps = append(caps, 1<<e)
	}
	opt := opts
	opt.BlockSize = 512
	opt.Xi = 1900
	if err := sweepEqualsSeparate(t, s, caps, opt); err != nil {
		t.Fatal(err)
	}
	got, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(lruEntry(), caps[:3]), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.Evictions == 0 || r.HitBlocks == 0 {
			t.Errorf("capacity %d: %d evictions, %d hits: the case would not exercise the pass", r.CapacityTokens, r.Evictions, r.HitBlocks)
		}
	}
}
