package belief

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// drawBayes draws a Bayes belief: μ, and one to four rate classes or a
// Gamma prior, all with random parameters (μ up to 1 per second).
func drawBayes(t *rapid.T) *Bayes {
	mu := rapid.Float64Range(0.001, 1).Draw(t, "mu")
	var prior Prior
	if rapid.Bool().Draw(t, "gamma") {
		// The quadrature of the Gamma prior's dead term (not this test's
		// subject) can take minutes at extreme parameters: moderate ones.
		prior.Gamma = &birthdeath.Gamma{Shape: rapid.Float64Range(0.5, 10).Draw(t, "shape"), MeanRate: rapid.Float64Range(0.005, 0.5).Draw(t, "mean")}
	} else {
		for range rapid.IntRange(1, 4).Draw(t, "classes") {
			prior.Classes = append(prior.Classes, birthdeath.RateClass{Rate: rapid.Float64Range(0.0005, 20).Draw(t, "rate"), Weight: rapid.Float64Range(0.01, 10).Draw(t, "weight")})
		}
	}
	b, err := NewBayes(mu, prior)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLogRateSlopeEnvelope: for random priors, histories and times t₀,
// LogRateSlope's first result is LogRate's, bit for bit, and its σ bounds
// the decay: LogRate(t) ≥ LogRate(t₀) − σ·(t − t₀) at later times t, up
// to rounding (10^−9 of Magnitude); σ ≥ μ. Its tightness: at t → t₀ the
// decay observed is at most σ, and for a single class with a long
// silence it approaches μ + λ.
func TestLogRateSlopeEnvelope(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := drawBayes(rt)
		first := rapid.Float64Range(0, 100).Draw(rt, "first")
		// At most one turn per 2 s: the Gamma prior's quadrature takes
		// minutes for posteriors of ~1000 turns per second (102 turns in
		// 0.09 s, then 1,000 s of silence), a limit of belief.Bayes this
		// test is not about.
		age := rapid.Float64Range(0, 1000).Draw(rt, "age")
		h := History{First: first, Last: first + age, Turns: rapid.IntRange(1, min(200, 1+int(age/2))).Draw(rt, "turns")}
		t0 := h.Last + rapid.Float64Range(0, 500).Draw(rt, "silence")
		lr0, sigma := b.LogRateSlope(h, t0)
		if got := b.LogRate(h, t0); math.Float64bits(got) != math.Float64bits(lr0) {
			rt.Fatalf("LogRateSlope's log rate %v, LogRate %v", lr0, got)
		}
		if !(sigma >= b.Mu) {
			rt.Fatalf("σ = %v below μ = %v", sigma, b.Mu)
		}
		for _, dt := range []float64{1e-3, 0.1, 1, 10, 100, 1000} {
			tol := 1e-9 * (1 + b.Magnitude(h.Turns, t0+dt-first))
			if lr := b.LogRate(h, t0+dt); lr < lr0-sigma*dt-tol {
				rt.Fatalf("%v, %+v: LogRate at t₀+%v = %v below the envelope %v − %v·%v = %v", b, h, dt, lr, lr0, sigma, dt, lr0-sigma*dt)
			}
		}
	})
}

// TestLogRateSlopeSingleClass: with one class of rate λ the slope bound is
// μ + λ (the rate term decays exactly so), and a long silence makes the
// observed decay approach it.
func TestLogRateSlopeSingleClass(t *testing.T) {
	mu, lambda := 0.01, 0.05
	b, _ := NewBayes(mu, Prior{Classes: []birthdeath.RateClass{{Rate: lambda, Weight: 1}}})
	h := History{First: 0, Last: 10, Turns: 3}
	_, sigma := b.LogRateSlope(h, 1000)
	if math.Abs(sigma-(mu+lambda)) > 1e-8*(mu+lambda) {
		t.Errorf("σ = %v, want μ + λ = %v", sigma, mu+lambda)
	}
	d := b.LogRate(h, 1000) - b.LogRate(h, 1001)
	if d > sigma || d < 0.999*sigma {
		t.Errorf("decay over 1 s after a 990 s silence: %v, want just under σ = %v", d, sigma)
	}
}

// TestLogRateBits: the class prior's LogRate with its logarithms computed
// once equals, bit for bit, the expression computing them on every call
// (the code before the change, written out here).
func TestLogRateBits(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := drawBayes(rt)
		if b.Prior.Gamma != nil {
			return
		}
		age := rapid.Float64Range(0, 1000).Draw(rt, "age")
		h := History{First: 3, Last: 3 + age, Turns: rapid.IntRange(1, 200).Draw(rt, "turns")}
		now := h.Last + rapid.Float64Range(0, 500).Draw(rt, "silence")
		s, n, age := now-h.Last, h.Turns, h.Last-h.First
		k := len(b.Prior.Classes)
		la, ld, lr, base := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
		top := math.Inf(-1)
		for i, c := range b.Prior.Classes {
			base[i] = math.Log(c.Weight) + float64(n-1)*math.Log(c.Rate) - c.Rate*age
			top = max(top, base[i])
		}
		for i, c := range b.Prior.Classes {
			a, d := logSilence(b.Mu, c.Rate, s)
			bi := base[i] - top
			la[i], ld[i], lr[i] = bi+a, bi+d, bi+a+math.Log(c.Rate)
		}
		want := floats.LogSumExp(lr) - floats.LogSumExp([]float64{floats.LogSumExp(la), floats.LogSumExp(ld)})
		if got := b.LogRate(h, now); math.Float64bits(got) != math.Float64bits(want) {
			rt.Fatalf("LogRate %v, the per-call expression %v", got, want)
		}
	})
}
