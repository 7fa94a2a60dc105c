package proofscheck

import (
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/kvpipe"
	"github.com/tailbound/tailbound/models/recompute"
)

// On an exact roofline the ordered search lands within ε/2 of r0, so the
// regret is within the slope times ε/2, and the claim holds; on a curve
// whose minimum is elsewhere the claim fails with the hand-computed regret.
func TestCheckRoofline(t *testing.T) {
	p := recompute.Profile{Tc: 2e-6, Ti: 1e-6, To: 1e-4} // r0 = 1/3
	m := recompute.Model{Profile: p, Tokens: 4096, Layers: 8}
	exact := func(r float64) (float64, error) { return m.TTFT(r), nil }
	o := recompute.DefaultOptions()
	o.Variant = recompute.Ordered
	ok, detail, err := CheckRoofline(exact, p.R0(), o, 1e-3)
	if err != nil || !ok {
		t.Errorf("exact roofline: ok %v, %v: %s", ok, err, detail)
	}
	// Measured minimum at r = 0.7: f(r) = 1 + |r − 0.7| seconds. From
	// r0 = 1/3 the regret is (1 + 0.7 − 1/3)/1 − 1 = 0.3667. A grid of 17
	// intervals over [0.15, 1] has 0.05 spacing and measures r = 0.7.
	shifted := func(r float64) (float64, error) { return 1 + math.Abs(r-0.7), nil }
	o.GridIntervals = 17
	ok, detail, err = CheckRoofline(shifted, p.R0(), o, 0.05)
	if err != nil || ok || !strings.Contains(detail, "regret 36.67%") {
		t.Errorf("shifted minimum: ok %v, %v: %s", ok, err, detail)
	}
	for _, limit := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := CheckRoofline(exact, p.R0(), o, limit); err == nil {
			t.Errorf("regret limit %v accepted", limit)
		}
	}
}

// The live check runs end to end on a tiny pipeline (2 layers, 128 tokens
// of 4 KiB per layer, in a temporary directory) and reports in one line;
// a regret limit of +Inf always holds, a negative one is refused before
// anything is measured.
func TestCheckRooflineLive(t *testing.T) {
	cfg := kvpipe.Config{Layers: 2, MaxTokens: 128, BytesPerTokenLayer: 4096, HeadDim: 4, Dir: t.TempDir(), Seed: 7}
	o := recompute.DefaultOptions()
	o.Eps, o.GridIntervals = 0.3, 2
	s := kvpipe.Settings{Reps: 1, ProfileSteps: 2, Options: o, Variants: []recompute.Variant{recompute.Ordered}}
	// A live measurement on a shared machine can fail its profile fit
	// under other load; three tries tell that from a check that fails.
	var ok bool
	var detail string
	var err error
	for try := 0; try < 3; try++ {
		if ok, detail, err = CheckRooflineLive(cfg, kvpipe.PageCache, 128, s, math.Inf(1)); err == nil {
			break
		}
	}
	if err != nil || !ok || strings.Contains(detail, "\n") || !strings.Contains(detail, "regret") {
		t.Errorf("ok %v err %v detail %q", ok, err, detail)
	}
	if _, _, err := CheckRooflineLive(cfg, kvpipe.PageCache, 128, s, -1); err == nil {
		t.Error("negative limit accepted")
	}
}
