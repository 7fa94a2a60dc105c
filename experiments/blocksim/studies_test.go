package blocksim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/trace"
)

func lruEntry() []prefixcache.Entry {
	return []prefixcache.Entry{{Name: "lru", New: prefixcache.NewLRU}}
}

// Two requests for the same 2-block chain at t = 0, TTFT = 10 + 1·b ms:
// the first prefills 32 tokens (42 ms, no wait), the second hits both
// blocks (10 ms) after waiting 42 ms: QTTFTs 42 and 52.
func TestQueuedTTFTHandWorked(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Time: 0, Input: 32, Hashes: []int64{1, 2}, Conv: -1},
		{Time: 0, Input: 32, Hashes: []int64{1, 2}, Conv: -1},
	}}
	opt := blocksim.Options{Params: instance.Params{BlockSize: 16}, Model: latency.Model{AlphaMs: 1, BetaMs: 10}, SLOMs: 100, Queue: true}
	res, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(lruEntry(), []int64{64}), opt)
	if err != nil {
		t.Fatal(err)
	}
	q := res[0].Queued
	if q == nil || q.Requests != 2 || q.Mean != 47 || q.MeanWait != 21 || q.P50 != 42 || q.P99 != 52 {
		t.Errorf("queued %+v, want mean 47, wait 21, P50 42, P99 52", q)
	}
	opt.Queue = false
	if res, _, _ := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(lruEntry(), []int64{64}), opt); res[0].Queued != nil {
		t.Error("queued TTFT without Options.Queue")
	}
}

// Mix: a = (t 0: 1 2), (t 2: 1); b = (t 1: 1 2). Order a, b, a; b's blocks
// are not a's, so the infinite cache hits only a's second request: 5
// references, 4 distinct blocks.
func TestMixHandWorked(t *testing.T) {
	a := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Time: 0, Input: 32, Hashes: []int64{1, 2}, Conv: 0}, {Time: 2, Input: 16, Hashes: []int64{1}, Conv: 0}}}
	b := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Time: 1, Input: 32, Hashes: []int64{1, 2}, Conv: 0}}}
	src := blocksim.Mix(blocktrace.StreamSource(a), blocktrace.StreamSource(b))
	var got []blocktrace.Request
	for {
		r, err := src()
		if err != nil {
			break
		}
		got = append(got, r)
	}
	want := []struct {
		t      float64
		conv   int
		hashes string
	}{{0, 0, "[0 2]"}, {1, 1, "[1 3]"}, {2, 0, "[0]"}}
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	for i, w := range want {
		if got[i].Time != w.t || got[i].Conv != w.conv || fmt.Sprint(got[i].Hashes) != w.hashes {
			t.Errorf("request %d: %+v, want %+v", i, got[i], w)
		}
	}
	_, ideal, err := blocksim.Replay(blocktrace.StreamSource(&blocktrace.Stream{BlockTokens: 16, Requests: got}),
		blocksim.SweepRuns(lruEntry(), []int64{0}), blocksim.Options{Params: instance.Params{BlockSize: 16}, Model: latency.Model{AlphaMs: 1}, SLOMs: 1})
	if err != nil || ideal.RefBlocks != 5 || ideal.Distinct != 4 {
		t.Errorf("ideal %+v, %v; want 5 references, 4 distinct", ideal, err)
	}
}

// The block-size sweep on a canonical trace: a (p, r) = (10, 5), (4, 2),
// (1, 1); b (3, 0). At B = 4: chains of 3, 1, 5, 6 blocks, 9 distinct; at
// B = 8: 2, 1, 3, 3 blocks — a's loads 10, 19, 22 tokens give blocks
// (0,8) (1,2) | (0,8) (1,8) (2,3) | (0,8) (1,8) (2,6) — 6 distinct.
func TestSweepBlockSizesHandWorked(t *testing.T) {
	const tr = `{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 1, "conv": "b", "prompt": 3, "response": 0}
{"t": 2, "conv": "a", "prompt": 4, "response": 2}
{"t": 3, "conv": "a", "prompt": 1, "response": 1}
`
	open := func(b int64) (blocktrace.Source, func(), error) {
		src, err := blocksim.CanonicalSource(trace.NewReader(strings.NewReader(tr), "hand"), b)
		return src, func() {}, err
	}
	opt := blocksim.Options{Model: latency.Model{AlphaMs: 1}, SLOMs: 1}
	res, err := blocksim.SweepBlockSizes(open, []int64{4, 8}, lruEntry(), []int64{0, 8}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	for _, c := range []struct {
		i            int
		b            int64
		refs, distin int64
	}{{0, 4, 15, 9}, {1, 4, 15, 9}, {2, 8, 9, 6}, {3, 8, 9, 6}} {
		r := res[c.i]
		if r.BlockTokens != c.b || r.Ideal.RefBlocks != c.refs || r.Ideal.Distinct != c.distin || r.RefBlocks != c.refs {
			t.Errorf("result %d: B %d, ideal %d/%d, want B %d, %d/%d", c.i, r.BlockTokens, r.Ideal.RefBlocks, r.Ideal.Distinct, c.b, c.refs, c.distin)
		}
	}
	if res[0].HitBlocks != 0 || res[2].HitBlocks != 0 {
		t.Error("a zero-capacity cache hit")
	}
	if _, err := blocksim.SweepBlockSizes(open, []int64{8}, lruEntry(), []int64{12}, opt); err == nil {
		t.Error("capacity 12 accepted at B = 8")
	}
}

// Ablation: on a trace with one category and no conversations the pooled
// fit is the only fit, so wa-no-categories replays exactly as wa.
func TestAblationEntries(t *testing.T) {
	s := randomStream(3, 400, 12)
	for i := range s.Requests {
		s.Requests[i].Category = ""
	}
	es := blocksim.AblationEntries()
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "lru,wa,wa-no-offset,wa-no-life,wa-no-categories,wa-pooled-no-life" {
		t.Errorf("entries %v", names)
	}
	res, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(es, []int64{16 * 20}),
		blocksim.Options{Params: instance.Params{BlockSize: 16}, Model: latency.Model{AlphaMs: 1}, SLOMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]blocksim.Result{}
	for _, r := range res {
		by[r.Name] = r
	}
	if a, b := by["wa"], by["wa-no-categories"]; a.HitBlocks != b.HitBlocks || a.Evictions != b.Evictions {
		t.Errorf("wa %d hits, %d evictions; wa-no-categories %d, %d", a.HitBlocks, a.Evictions, b.HitBlocks, b.Evictions)
	}
	if math.IsNaN(by["wa-no-life"].BlockHitRatio) {
		t.Error("no result for wa-no-life")
	}
}

// Two one-request traces interleaved by time: their equal hashes become
// different blocks (a's even, b's odd).
func ExampleMix() {
	a := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Time: 1, Input: 32, Hashes: []int64{7, 8}, Conv: 0}}}
	b := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Time: 0, Input: 16, Hashes: []int64{7}, Conv: 0}}}
	src := blocksim.Mix(blocktrace.StreamSource(a), blocktrace.StreamSource(b))
	for {
		r, err := src()
		if err != nil {
			break
		}
		fmt.Println(r.Time, r.Conv, r.Hashes)
	}
	// Output:
	// 0 1 [1]
	// 1 0 [0 2]
}
