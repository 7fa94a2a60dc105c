package prefixgen

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// known is the model TestFitRecovers generates from: one category (a
// Mooncake trace has no request types), a two-level tree, three next-turn
// probabilities and log-normal reuse times. First turns have ≥ 1100 own
// tokens, so that every chain has two fresh full blocks and the importer's
// prefix linking (k = 1) recovers every session exactly; the clamp at 1100
// tokens moves P(z < (ln 1100 − ln 4000)/0.4 = −3.2) < 0.1 % of the draws,
// a bias of the log-mean below 0.0003, far inside the tolerance below.
func known() Model {
	return Model{
		SessionsPerS: 5,
		Tree: Tree{Levels: []Level{
			{Fanout: 4, Blocks: 2, Zipf: 1},
			{Fanout: 3, Blocks: 1, Zipf: 0.8, Prob: 0.5},
		}},
		Categories: []Category{{Name: "text", Weight: 1, PrefixProb: 0.7,
			First:     LogNormal{Mu: math.Log(4000), Sigma: 0.4, Min: 1100},
			Increment: LogNormal{Mu: math.Log(200), Sigma: 1, Min: 1},
			Output:    LogNormal{Mu: math.Log(300), Sigma: 0.7, Min: 1},
			NextTurn:  []float64{0.4, 0.6, 0.7},
			Gap:       Gap{Law: "lognormal", Mu: math.Log(20), Sigma: 0.8}}},
	}
}

// zipfSD is the standard deviation of the maximum-likelihood Zipf exponent
// from n draws of ranks 1..k with exponent s: 1/√(n·I(s)), the Fisher
// information I(s) being the variance of log R under the law.
func zipfSD(k int, s float64, n float64) float64 {
	var h, m1, m2 float64
	for r := 1; r <= k; r++ {
		w := math.Pow(float64(r), -s)
		h += w
		m1 += w * math.Log(float64(r))
		m2 += w * math.Log(float64(r)) * math.Log(float64(r))
	}
	m1 /= h
	m2 /= h
	return 1 / math.Sqrt(n*(m2-m1*m1))
}

// TestFitRecovers generates 200,000 requests from known, reads them back
// with the Mooncake importer and fits: every fitted parameter must be
// within 4 standard deviations of its estimator (computed below for each
// from its sampling law; a 4-sd miss has probability < 10^-4 per check),
// plus a bias allowance where censoring at the trace's end applies.
func TestFitRecovers(t *testing.T) {
	m := known()
	var b bytes.Buffer
	st, err := Write(context.Background(), GenOptions{Model: m, Seed: 3, Requests: 200_000}, &b)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fit(importer.NewMooncake(&b, "known", importer.DefaultOptions()), FitOptions{NextTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if f.Sessions != st.Sessions {
		t.Fatalf("fit saw %d sessions, the generator started %d: the importer's linking lost sessions", f.Sessions, st.Sessions)
	}
	n := float64(f.Sessions)
	c, k := f.Model.Categories[0], m.Categories[0]
	nFollow := float64(f.CategoryFollowUps[0])
	nReq := float64(f.Requests)
	// The censoring bias: sessions near the end lose their follow-ups; a
	// session spans (E[turns] − 1)·E[gap] ≈ 1.6·27 s on average, against
	// a trace of n/5 s: a relative bias of about 43 s/(n/5 s).
	span := n / m.SessionsPerS
	censor := 3 * 43 / span
	binSD := func(p, n float64) float64 { return math.Sqrt(p * (1 - p) / n) }
	// Turns per session are sampled before the trace, so n_k at turn k is
	// binomial given n_{k−1}.
	n1 := n
	n2 := n1 * k.NextTurn[0]
	n3 := n2 * k.NextTurn[1]
	type check struct {
		name          string
		got, want, sd float64
		bias          float64
	}
	zeta := func(l LogNormal) float64 { return l.Sigma }
	checks := []check{
		{"sessions per s", f.Model.SessionsPerS, m.SessionsPerS, m.SessionsPerS / math.Sqrt(n), 0},
		{"prefix prob", c.PrefixProb, k.PrefixProb, binSD(k.PrefixProb, n), 0},
		{"level 2 prob", f.Model.Tree.Levels[1].Prob, 0.5, binSD(0.5, n*k.PrefixProb), 0},
		{"level 1 Zipf", f.Model.Tree.Levels[0].Zipf, 1, zipfSD(4, 1, n*k.PrefixProb), 0},
		{"level 2 Zipf", f.Model.Tree.Levels[1].Zipf, 0.8, zipfSD(3, 0.8, n*k.PrefixProb*0.5), 0},
		{"next turn 1", c.NextTurn[0], k.NextTurn[0], binSD(k.NextTurn[0], n1), censor},
		{"next turn 2", c.NextTurn[1], k.NextTurn[1], binSD(k.NextTurn[1], n2), censor},
		{"next turn 3+", c.NextTurn[2], k.NextTurn[2], binSD(k.NextTurn[2], n3), censor},
		// Log-normal laws: the log-mean's sd is σ/√n, the log-sd's σ/√(2n).
		{"first μ", c.First.Mu, k.First.Mu, zeta(k.First) / math.Sqrt(n), 0.0003},
		{"first σ", c.First.Sigma, k.First.Sigma, zeta(k.First) / math.Sqrt(2*n), 0.0003},
		{"increment μ", c.Increment.Mu, k.Increment.Mu, zeta(k.Increment) / math.Sqrt(nFollow), 0},
		{"increment σ", c.Increment.Sigma, k.Increment.Sigma, zeta(k.Increment) / math.Sqrt(2*nFollow), 0},
		{"output μ", c.Output.Mu, k.Output.Mu, zeta(k.Output) / math.Sqrt(nReq), 0},
		{"output σ", c.Output.Sigma, k.Output.Sigma, zeta(k.Output) / math.Sqrt(2*nReq), 0},
		// Reuse times are floored to whole ms in the trace: at ≥ 1 s the
		// log moves by < 0.001; allowed as bias.
		{"reuse time μ", c.Gap.Mu, k.Gap.Mu, k.Gap.Sigma / math.Sqrt(nFollow), 0.001},
		{"reuse time σ", c.Gap.Sigma, k.Gap.Sigma, k.Gap.Sigma / math.Sqrt(2*nFollow), 0.001},
	}
	for _, ch := range checks {
		t.Logf("%-14s fitted %.5f true %.5f (%+.2f sd)", ch.name, ch.got, ch.want, (ch.got-ch.want)/ch.sd)
		if d := math.Abs(ch.got - ch.want); d > 4*ch.sd+ch.bias {
			t.Errorf("%s: fitted %.5f, true %.5f: off by %.5f > 4 sd (%.5f) + bias %.5f", ch.name, ch.got, ch.want, d, 4*ch.sd, ch.bias)
		}
	}
	// Exact structure: the tree's shape and the reuse-time law.
	lv := f.Model.Tree.Levels
	if len(lv) != 2 || lv[0].Fanout != 4 || lv[0].Blocks != 2 || lv[1].Fanout != 3 || lv[1].Blocks != 1 {
		t.Errorf("tree levels %+v, want fanout 4 × 2 blocks, then 3 × 1 block", lv)
	}
	for _, l := range []LogNormal{c.First, c.Increment, c.Output} {
		if l.W2 != 0 {
			t.Errorf("a log-normal sample fitted as a mixture: %+v", l)
		}
	}
	if c.Gap.Law != "lognormal" {
		t.Errorf("reuse-time law %q chosen, the sample is log-normal", c.Gap.Law)
	}
}

// TestZipfMLEByHand: two groups whose counts make the likelihood's
// derivative vanish at a known s. With ranks 1, 2 and counts c1, c2 the
// MLE solves c2/(c1 + c2) = 2^−s/(1 + 2^−s): counts 2, 1 give s = 1;
// equal counts give s = 0.
func TestZipfMLEByHand(t *testing.T) {
	for _, c := range []struct {
		groups [][]float64
		want   float64
	}{
		{[][]float64{{2, 1}}, 1},
		{[][]float64{{1, 2}, {4, 2}}, 1},
		{[][]float64{{8, 1}}, 3},
		{[][]float64{{5, 5}}, 0},
		{[][]float64{{7}}, 0},
	} {
		if g := ZipfMLE(c.groups); math.Abs(g-c.want) > 1e-6 {
			t.Errorf("ZipfMLE(%v) = %v, want %v", c.groups, g, c.want)
		}
	}
}

// TestMixtureEM draws 20,000 logs from 0.3·N(2, 0.5²) + 0.7·N(6, 1²),
// components eight standard deviations apart so that each is estimated
// as if alone: μ_i within 4·σ_i/√(n·w_i), σ_i within 4·σ_i/√(2n·w_i), the
// weight within 4·√(w(1−w)/n). The Bayesian information criterion must
// then prefer the mixture, and keep a single log-normal's sample single.
func TestMixtureEM(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var xs, single []float64
	for i := 0; i < n; i++ {
		if r.Float64() < 0.3 {
			xs = append(xs, 2+0.5*r.NormFloat64())
		} else {
			xs = append(xs, 6+r.NormFloat64())
		}
		single = append(single, 5+0.8*r.NormFloat64())
	}
	p, _ := MixtureEM(xs)
	for _, c := range []struct {
		name           string
		got, want, tol float64
	}{
		{"μ1", p[0], 2, 4 * 0.5 / math.Sqrt(n*0.3)},
		{"σ1", p[1], 0.5, 4 * 0.5 / math.Sqrt(2*n*0.3)},
		{"w2", p[2], 0.7, 4 * math.Sqrt(0.21/n)},
		{"μ2", p[3], 6, 4 * 1 / math.Sqrt(n*0.7)},
		{"σ2", p[4], 1, 4 * 1 / math.Sqrt(2*n*0.7)},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", c.name, c.got, c.want, c.tol)
		}
	}
	toAcc := func(ys []float64) *logAcc {
		a := &logAcc{xs: ys, lo: 1, hi: 1 << 20}
		return a
	}
	if d := toAcc(xs).law(1, "best"); d.W2 == 0 {
		t.Errorf("best law of a two-component sample: %+v, want the mixture", d)
	}
	if d := toAcc(single).law(1, "best"); d.W2 != 0 {
		t.Errorf("best law of a one-component sample: %+v, want a single log-normal", d)
	}
}
