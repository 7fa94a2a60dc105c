package replay_test

import (
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TestRefusedSettings: an SLO below 0 ms or not finite, and a
// Threshold-LRU threshold below 0 tokens, mean nothing and are refused
// (issue 17's sweep: --slo-ms -1 and --threshold -5 were answered).
func TestRefusedSettings(t *testing.T) {
	p := instance.Params{Capacity: 32, BlockSize: 16, Xi: 10}
	turns := []trace.Turn{{Conv: 0, Prompt: 20}}
	lru, _ := policy.NewLRU(policy.Config{Params: p})
	for _, slo := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := replay.Replay(replay.SliceSource(turns), []replay.Named{{Name: "lru", Policy: lru}},
			replay.Options{Params: p, Model: latency.Default(), SLOMs: slo})
		if err == nil || !strings.Contains(err.Error(), "SLO") {
			t.Errorf("SLO %v ms: error %v, want a refusal naming the SLO", slo, err)
		}
	}
	if _, err := policy.NewThresholdLRU(policy.Config{Params: p, Threshold: -5}); err == nil {
		t.Error("threshold −5 tokens accepted")
	}
	if _, err := policy.NewThresholdLRU(policy.Config{Params: p, Threshold: 0}); err != nil {
		t.Errorf("threshold 0: %v", err)
	}
}
