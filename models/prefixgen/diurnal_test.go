package prefixgen

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// TestFitDiurnal generates two days of a model whose arrival rate swings
// ±50 % around a 15:00 peak and whose reuse times are 30 % shorter at the
// peak, and checks the fitted amplitude, peak hour, reuse-time mean (at
// φ = 0) and shift. Standard deviations: the first Fourier coefficient c
// of n start times has real and imaginary parts of sd ≈ 1/√(2n), so 2|c|
// has sd ≈ √(2/n) and the peak hour ≈ 24/(2π)·(1/√(2n))/|c| hours; the
// least-squares slope and intercept of nf exponential gaps have sd below
// 2·mean/√nf (the gaps' sd is at most the largest mean, 1.3·mean; φ has
// variance 1/2), which bounds G's sd by ≈ 3/√nf. Tolerances are 4 sd.
func TestFitDiurnal(t *testing.T) {
	if testing.Short() {
		t.Skip("two days of requests")
	}
	fixed := func(n float64) LogNormal { return LogNormal{Mu: math.Log(n), Sigma: 0.2, Min: 1100} }
	m := Model{SessionsPerS: 0.5, Diurnal: Diurnal{Amplitude: 0.5, PeakHour: 15},
		Categories: []Category{{Name: "text", Weight: 1, First: fixed(3000), Increment: fixed(100), Output: fixed(200),
			NextTurn: []float64{0.6}, Gap: Gap{Law: "exponential", MeanS: 60, GapShift: -0.3}}}}
	var b bytes.Buffer
	if _, err := Write(context.Background(), GenOptions{Model: m, Seed: 2, DurationS: 2 * Day}, &b); err != nil {
		t.Fatal(err)
	}
	f, err := Fit(importer.NewMooncake(&b, "diurnal", importer.DefaultOptions()), FitOptions{GapLaw: "exponential"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.DiurnalFitted {
		t.Fatalf("a %v s trace: diurnal not fitted", f.SpanS)
	}
	n, nf := float64(f.Sessions), float64(f.CategoryFollowUps[0])
	d, g := f.Model.Diurnal, f.Model.Categories[0].Gap
	for _, c := range []struct {
		name          string
		got, want, sd float64
	}{
		{"amplitude", d.Amplitude, 0.5, math.Sqrt(2 / n)},
		{"peak hour", d.PeakHour, 15, 24 / (2 * math.Pi) / math.Sqrt(2*n) / 0.25},
		{"reuse-time mean at φ = 0 (s)", g.MeanS, 60, 2 * 60 / math.Sqrt(nf)},
		{"reuse-time shift", g.GapShift, -0.3, 3 / math.Sqrt(nf)},
	} {
		t.Logf("%s: fitted %.4f, true %.4f (%+.2f sd)", c.name, c.got, c.want, (c.got-c.want)/c.sd)
		if math.Abs(c.got-c.want) > 4*c.sd {
			t.Errorf("%s: fitted %.4f, true %.4f ± %.4f", c.name, c.got, c.want, 4*c.sd)
		}
	}
}
