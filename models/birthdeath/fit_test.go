package birthdeath

import (
	"math"
	"testing"
)

// TestFitRecoversParameters generates traces from known parameters and
// checks that Fit recovers them: birth rate within 5 %, turn and death
// rates within 10 % (the fit ignores the censoring at the trace's end,
// a bias of about mean lifetime / duration), log-normal μ and σ within
// 0.05.
func TestFitRecoversParameters(t *testing.T) {
	cases := []Params{
		{LambdaConv: 2, Mu: 1.0 / 120, Classes: []RateClass{{Rate: 1.0 / 30, Weight: 1}},
			Prompt: LogNormal{Mu: 5, Sigma: 1, Min: 1}, Response: LogNormal{Mu: 5.5, Sigma: 0.8}, Duration: 3600},
		{LambdaConv: 0.5, Mu: 1.0 / 60, Classes: []RateClass{{Rate: 1.0 / 10, Weight: 1}},
			Prompt: LogNormal{Mu: 6, Sigma: 0.5, Min: 1}, Response: LogNormal{Mu: 4, Sigma: 1.2}, Duration: 7200},
	}
	for i, p := range cases {
		tr, err := Trace(p, uint64(10+i))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Fit(tr)
		if err != nil {
			t.Fatal(err)
		}
		rel := func(name string, got, want, tol float64) {
			if math.Abs(got-want) > tol*want {
				t.Errorf("case %d %s: fitted %g, true %g (tolerance %g%%)", i, name, got, want, 100*tol)
			}
		}
		abs := func(name string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("case %d %s: fitted %g, true %g (tolerance %g)", i, name, got, want, tol)
			}
		}
		q := f.Params
		rel("λ_conv", q.LambdaConv, p.LambdaConv, 0.05)
		rel("μ", q.Mu, p.Mu, 0.10)
		rel("λ̄", q.Classes[0].Rate, p.Classes[0].Rate, 0.10)
		pp, fp := p.Prompt.(LogNormal), q.Prompt.(LogNormal)
		abs("prompt μ", fp.Mu, pp.Mu, 0.05)
		abs("prompt σ", fp.Sigma, pp.Sigma, 0.05)
		pr, fr := p.Response.(LogNormal), q.Response.(LogNormal)
		abs("response μ", fr.Mu, pr.Mu, 0.05)
		abs("response σ", fr.Sigma, pr.Sigma, 0.05)
		// A twin generated from the fit has the same shape: small KS
		// distances on every distribution.
		twin, err := Trace(q, 99)
		if err != nil {
			t.Fatal(err)
		}
		kt, kl, kg := GoodnessOfFit(tr, twin)
		for name, d := range map[string]float64{"turns": kt, "length": kl, "gaps": kg} {
			if !(d < 0.05) {
				t.Errorf("case %d: KS distance of %s %g ≥ 0.05", i, name, d)
			}
		}
	}
}

func TestKS(t *testing.T) {
	cases := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, 0},
		{[]float64{1, 2}, []float64{3, 4}, 1},
		{[]float64{1, 2, 3, 4}, []float64{3, 4}, 0.5},     // F_a(2) = 1/2, F_b(2) = 0
		{[]float64{1, 1, 2}, []float64{1, 2, 2}, 1.0 / 3}, // at 1: 2/3 vs 1/3
	}
	for _, c := range cases {
		if got := KS(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("KS(%v, %v) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
	if !math.IsNaN(KS(nil, []float64{1})) {
		t.Error("KS with an empty sample is not NaN")
	}
}

func TestFitRejects(t *testing.T) {
	p := Default()
	p.MaxTurns = 1
	tr, err := Trace(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fit(tr); err == nil {
		t.Error("fit of a one-turn trace succeeded")
	}
}
