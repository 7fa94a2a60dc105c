package blocksim

import (
	"bytes"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/trace"
)

// FuzzBlockReplay feeds arbitrary bytes, read as a canonical trace
// (chained in blocks) or as a Mooncake trace, through the block-level
// engine under every prefix-cache policy at a fuzzed capacity: a source
// must refuse or accept each input without a panic, and an accepted trace
// must replay to figures that obey the model — hit blocks ≤ referenced
// blocks (and ≤ the infinite cache's), every ratio in [0, 1] (or no value
// when nothing was referenced), every run serving the requests the ideal
// run saw, TEL and TTFT finite and non-negative.
// Run it longer with: go test -run '^$' -fuzz FuzzBlockReplay ./experiments/blocksim
func FuzzBlockReplay(f *testing.F) {
	f.Add([]byte(`{"t":0,"conv":"a","prompt":32,"response":5}
{"t":1,"conv":"b","prompt":20,"response":0}
{"t":2,"conv":"a","prompt":16,"response":0}
`), false, uint8(3), uint8(2), int16(20))
	f.Add([]byte(`{"timestamp": 0, "input_length": 0, "output_length": 5, "hash_ids": []}
{"timestamp": 10, "input_length": 1000, "output_length": 5, "hash_ids": [1, 2]}
{"timestamp": 20, "input_length": 1500, "output_length": 5, "hash_ids": [1, 2, 3]}
`), true, uint8(1), uint8(2), int16(-5))
	f.Add([]byte(`{"t":0,"conv":"a","prompt":4611686018427387904,"response":0}`), false, uint8(0), uint8(1), int16(0))
	f.Fuzz(func(t *testing.T, data []byte, mooncake bool, blocksByte, capByte uint8, xi int16) {
		block := int64(blocksByte%32) + 1
		open := func() blocktrace.Source {
			if mooncake {
				m := importer.NewMooncake(bytes.NewReader(data), "fuzz", importer.DefaultOptions())
				block = int64(m.BlockTokens())
				return m.Next
			}
			s, err := canonicalSource(trace.NewReader(bytes.NewReader(data), "fuzz"), block, 1<<12)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		src := open()
		capacity := block * int64(capByte%16)
		opt := Options{Params: instance.Params{BlockSize: block, Xi: float64(xi)}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs}
		res, ideal, err := Replay(src, SweepRuns(prefixcache.All(), []int64{capacity}), opt)
		if err != nil {
			return // refused: a reader or bound error
		}
		ratio := func(what string, r float64) {
			if !math.IsNaN(r) && !(r >= 0 && r <= 1) {
				t.Fatalf("%s %v outside [0, 1]", what, r)
			}
		}
		ratio("ideal block hit ratio", ideal.BlockHitRatio)
		ratio("ideal token hit ratio", ideal.Summary.HitRatio)
		if ideal.Distinct > ideal.RefBlocks {
			t.Fatalf("ideal: %d distinct of %d referenced blocks", ideal.Distinct, ideal.RefBlocks)
		}
		for _, r := range res {
			s := r.Summary
			if r.HitBlocks < 0 || r.HitBlocks > r.RefBlocks || r.RefBlocks != ideal.RefBlocks || r.HitBlocks > ideal.RefBlocks-ideal.Distinct {
				t.Fatalf("%s: %d hit of %d referenced blocks (ideal %d referenced, %d distinct)", r.Name, r.HitBlocks, r.RefBlocks, ideal.RefBlocks, ideal.Distinct)
			}
			if r.Requests != ideal.Requests || s.Turns != ideal.Requests {
				t.Fatalf("%s: %d requests, %d turns; the ideal run saw %d", r.Name, r.Requests, s.Turns, ideal.Requests)
			}
			ratio(r.Name+" block hit ratio", r.BlockHitRatio)
			ratio(r.Name+" token hit ratio", s.HitRatio)
			if !(s.TELTokens >= 0) || math.IsInf(s.TELTokens, 0) || !(s.MeanTTFTMs >= 0) || math.IsInf(s.MeanTTFTMs, 0) || !(s.P50 <= s.P99) {
				t.Fatalf("%s: summary breaks the model: %+v", r.Name, s)
			}
		}
		// Without the ideal figures, the policies that keep state only for
		// cached blocks (CachedOnly) or for them and the evicted blocks
		// they hold (Remembering: s3fifo) give the same results from their
		// forgetting numbering (--no-ideal).
		var cached []prefixcache.Entry
		for _, e := range prefixcache.All() {
			p, err := e.New(prefixcache.Config{Params: instance.Params{Capacity: capacity, BlockSize: block, Xi: float64(xi)}})
			_, only := p.(prefixcache.CachedOnly)
			_, remembers := p.(prefixcache.Remembering)
			if (only || remembers) && err == nil {
				cached = append(cached, e)
			}
		}
		opt.NoIdeal = true
		stream, _, err := Replay(open(), SweepRuns(cached, []int64{capacity}), opt)
		if err != nil {
			t.Fatalf("--no-ideal refuses what the default mode replays: %v", err)
		}
		for _, r := range stream {
			for _, d := range res {
				if d.Name == r.Name && (d.HitBlocks != r.HitBlocks || d.RefBlocks != r.RefBlocks || d.Evictions != r.Evictions || d.Summary.TELTokens != r.Summary.TELTokens) {
					t.Fatalf("%s: --no-ideal %d/%d hits, %d evictions, TEL %v; default %d/%d, %d, %v", r.Name,
						r.HitBlocks, r.RefBlocks, r.Evictions, r.Summary.TELTokens, d.HitBlocks, d.RefBlocks, d.Evictions, d.Summary.TELTokens)
				}
			}
		}
	})
}
