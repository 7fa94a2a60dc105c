package replay_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// FuzzReplay feeds arbitrary bytes through the trace reader into the
// engine under every online policy: the reader must refuse or accept each
// input without a panic, and an accepted trace must replay to metrics that
// obey the model — TEL and TTFT finite and non-negative, hit ratio in
// [0, 1], TEL no more than Σ(b + max(−ξ, 0)), P50 ≤ P99, the turn count
// the reader gave.
// Run it longer with: go test -run '^$' -fuzz FuzzReplay ./models/replay
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"t":0,"conv":"a","prompt":100,"response":10}
{"t":1,"conv":"b","prompt":100,"response":10}
{"t":2,"conv":"a","prompt":100,"response":10}
`), uint8(1), uint16(100), int16(150), false)
	f.Add([]byte(`{"t":0,"conv":"a","prompt":5000000000000000000,"response":0}
{"t":1,"conv":"a","prompt":5000000000000000000,"response":0}
`), uint8(16), uint16(1), int16(0), true)
	f.Add([]byte(`{"t":0,"conv":"a","prompt":1099511627776,"response":1099511627776}
{"t":1,"conv":"a","prompt":1,"response":0}
`), uint8(3), uint16(7), int16(-5), false)
	f.Fuzz(func(t *testing.T, data []byte, block uint8, blocks uint16, xi int16, forced bool) {
		tr, err := trace.ReadAll(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		p := instance.Params{BlockSize: int64(block%32) + 1, Xi: float64(xi), Forced: forced}
		p.Capacity = p.BlockSize * int64(blocks%512)
		var named []replay.Named
		for _, f := range []policy.Factory{policy.NewLRU, policy.NewFIFO, policy.NewLFU, policy.NewThresholdLRU, policy.NewTLRU} {
			pol, err := f(policy.Config{Params: p, Threshold: 64})
			if err != nil {
				t.Fatal(err)
			}
			named = append(named, replay.Named{Name: "p", Policy: pol})
		}
		res, err := replay.Replay(replay.SliceSource(tr.Turns), named,
			replay.Options{Params: p, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
		if err != nil {
			t.Fatalf("a trace the reader accepted failed to replay: %v", err)
		}
		for _, r := range res {
			s := r.Summary
			if s.Turns != int64(len(tr.Turns)) || !(s.TELTokens >= 0) || math.IsInf(s.TELTokens, 0) ||
				s.TELTokens > (s.UncachedSum+float64(s.Turns)*math.Max(-p.Xi, 0))*(1+1e-9) || !(s.HitRatio >= 0 && s.HitRatio <= 1) ||
				!(s.P50 <= s.P99) || s.MaxUncached < 0 {
				t.Fatalf("summary breaks the model: %+v", s)
			}
		}
	})
}
