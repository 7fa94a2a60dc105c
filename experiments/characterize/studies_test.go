package characterize

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/kvsize"
)

// handStream is TestHandWorked's stream: blocks a=(−,1), b=(a,2), c=(b,3),
// d=(a,4), e=(−,2).
func handStream() *blocktrace.Stream {
	return &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		req(0, 0, "text", 1, 2),    // a b new
		req(2, 1, "search", 1, 4),  // a hit, d new
		req(5, 0, "text", 1, 2, 3), // a b hit, c new
		req(6, 2, "text", 2),       // e new
		req(10, 0, "text", 1, 2),   // a b hit
	}}
}

func TestSeriesHandWorked(t *testing.T) {
	rep, err := Run(blocktrace.StreamSource(handStream()), 16, Options{WindowS: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []Window{
		{StartS: 0, Requests: 2, RatePerS: 0.4, RefBlocks: 4, HitBlocks: 1, HitRatio: ptr(0.25)},
		{StartS: 5, Requests: 2, RatePerS: 0.4, RefBlocks: 4, HitBlocks: 2, HitRatio: ptr(0.5)},
		{StartS: 10, Requests: 1, RatePerS: 0.2, RefBlocks: 2, HitBlocks: 2, HitRatio: ptr(1.0)},
	}
	if len(rep.Series) != len(want) {
		t.Fatalf("series %+v, want %+v", rep.Series, want)
	}
	for i := range want {
		got, w := rep.Series[i], want[i]
		if got.HitRatio == nil || *got.HitRatio != *w.HitRatio {
			t.Errorf("window %d: ratio %v, want %v", i, got.HitRatio, *w.HitRatio)
		}
		got.HitRatio, w.HitRatio = nil, nil
		if got != w {
			t.Errorf("window %d: %+v, want %+v", i, rep.Series[i], want[i])
		}
	}
	if rep.Spatial != nil {
		t.Error("spatial grid computed without Options.Spatial")
	}
	if _, err := Run(blocktrace.StreamSource(handStream()), 16, Options{WindowS: -1}); err == nil {
		t.Error("negative window accepted")
	}
}

func TestSpatialHandWorked(t *testing.T) {
	rep, err := Run(blocktrace.StreamSource(handStream()), 16, Options{Spatial: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Spatial) != 55 {
		t.Fatalf("%d cells, want 55", len(rep.Spatial))
	}
	got := map[[2]float64]float64{}
	for _, c := range rep.Spatial {
		got[[2]float64{c.Offset, c.Stride}] = *c.HitRatio
	}
	for _, c := range []struct {
		offset, stride, want float64
	}{
		{0, 1, 0.5},     // everything stored: the ideal hit ratio, 5 of 10
		{0, 0.5, 0.4},   // stores a (r0), a (r1), a b (r2), e (r3): hits a, a, a b: 4 of 10
		{0.5, 0.5, 0.2}, // stores b (r0), d (r1), c (r2): hits b (r2), b (r4): 2 of 10
		{0.9, 0.1, 0},   // no block of a 1-, 2- or 3-block chain lies in its last tenth
	} {
		if g := got[[2]float64{c.offset, c.stride}]; math.Abs(g-c.want) > 1e-15 {
			t.Errorf("offset %v stride %v: %v, want %v", c.offset, c.stride, g, c.want)
		}
	}
}

func TestKVHandWorked(t *testing.T) {
	rep, err := Run(blocktrace.StreamSource(handStream()), 16, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := kvsize.Preset("qwen2-7b") // 2 × 28 layers × 4 heads × 128 × 2 B = 57,344 B per token
	const bpt = 57344.0
	k := rep.KV(m, hbm.Budget{KV: 1000 * bpt})
	// Input + output tokens: first turns 32, 32, 16; follow-ups 48, 32.
	if k.BytesPerToken != bpt || k.FirstTurn.Mean != 80.0/3*bpt || k.FirstTurn.P50 != 32*bpt ||
		k.FollowUp.Mean != 40*bpt || k.FollowUp.Max != 48*bpt || k.FirstTurnShare.Max != 0.032 {
		t.Errorf("per-request KV %+v", k)
	}
	// Peak live 2 blocks = 32 tokens; mean live 8/5 blocks = 25.6 tokens.
	if k.PeakLiveBytes != 32*bpt || k.PeakOverHBM != 0.032 || math.Abs(k.MeanOverHBM-0.0256) > 1e-15 {
		t.Errorf("capacity over HBM %+v", k)
	}
}

func TestStudiesPlots(t *testing.T) {
	rep, err := Run(blocktrace.StreamSource(handStream()), 16, Options{WindowS: 5, Spatial: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := rep.Plot(dir, "hand")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := kvsize.Preset("qwen2-7b")
	kf, err := rep.KV(m, hbm.Budget{GPUs: 1, KV: 1e9}).Plot(dir, "hand", rep)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range append(files, kf...) {
		got[f[len(dir)+1:]] = true
	}
	for _, want := range []string{"hand-reuse.svg", "hand-lifespan.svg", "hand-rate.svg", "hand-hitratio.svg", "hand-spatial.svg", "hand-kvsize.svg"} {
		if !got[want] {
			t.Errorf("%s not written (wrote %v)", want, got)
		}
	}
}

// TestNoBlocksNull: a trace whose only request references no block (a
// Mooncake line with input_length 0) has no ideal hit ratio, no window
// ratio and no spatial ratios: nil, JSON null, not 0.
func TestNoBlocksNull(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Time: 0, Input: 0, Output: 5, Conv: -1}}}
	rep, err := Run(blocktrace.StreamSource(s), 16, Options{WindowS: 1, Spatial: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.IdealHitRatio != nil {
		t.Errorf("ideal hit ratio %v, want nil", *rep.IdealHitRatio)
	}
	for _, w := range rep.Series {
		if w.HitRatio != nil {
			t.Errorf("window %+v: ratio %v, want nil", w, *w.HitRatio)
		}
	}
	for _, c := range rep.Spatial {
		if c.HitRatio != nil {
			t.Errorf("cell %+v: ratio %v, want nil", c, *c.HitRatio)
		}
	}
	if len(rep.Series) == 0 || len(rep.Spatial) == 0 {
		t.Errorf("series %d windows, spatial %d cells; want both computed", len(rep.Series), len(rep.Spatial))
	}
}
