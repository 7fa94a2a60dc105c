package belief

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate/quad"
)

// Bayes is the exact posterior of the birth–death model (see the package
// documentation) for death rate Mu and the rate prior Prior.
type Bayes struct {
	Mu    float64
	Prior Prior
	// Legendre nodes and weights on [0, 1] for the Gamma prior's integral.
	nodes, weights []float64
}

// gammaNodes is the number of Gauss–Legendre nodes per panel of the Gamma
// prior's integral; see Bayes.gammaLogTerms for the accuracy.
const gammaNodes = 16

// NewBayes returns the exact posterior belief for death rate mu (per
// second) and the rate prior.
func NewBayes(mu float64, prior Prior) (*Bayes, error) {
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("belief: μ must be a finite rate > 0 per second, got %v", mu)
	}
	if err := prior.validate(); err != nil {
		return nil, err
	}
	b := &Bayes{Mu: mu, Prior: prior}
	if prior.Gamma != nil {
		b.nodes, b.weights = make([]float64, gammaNodes), make([]float64, gammaNodes)
		quad.Legendre{}.FixedLocations(b.nodes, b.weights, 0, 1)
	}
	return b, nil
}

func (b *Bayes) String() string { return fmt.Sprintf("bayes(mu=%g/s,prior=%s)", b.Mu, b.Prior) }

// Alive returns P(alive at now | h).
func (b *Bayes) Alive(h History, now float64) float64 {
	la, ld, _ := b.logTerms(h, now)
	return math.Exp(la - floats.LogSumExp([]float64{la, ld}))
}

// LogRate returns log E[λ̄·1{alive} | h] at now.
func (b *Bayes) LogRate(h History, now float64) float64 {
	la, ld, lr := b.logTerms(h, now)
	return lr - floats.LogSumExp([]float64{la, ld})
}

// logTerms returns, up to one common factor, the logarithms of
// P(alive, observations), P(dead, observations) and
// E[λ̄·1{alive, observations}].
func (b *Bayes) logTerms(h History, now float64) (alive, dead, rate float64) {
	s := silence(h, now)
	n := max(h.Turns, 1)
	age := max(h.Last-h.First, 0)
	if b.Prior.Gamma != nil {
		return b.gammaLogTerms(float64(n), age, s)
	}
	k := len(b.Prior.Classes)
	la, ld, lr := make([]float64, k), make([]float64, k), make([]float64, k)
	base := make([]float64, k)
	top := math.Inf(-1)
	for i, c := range b.Prior.Classes {
		// log of weight × rate likelihood of the n−1 turns over age.
		base[i] = math.Log(c.Weight) + float64(n-1)*math.Log(c.Rate) - c.Rate*age
		top = max(top, base[i])
	}
	for i, c := range b.Prior.Classes {
		// Subtracting the largest base (a common factor) makes a single
		// class's result independent of the history bit for bit, so two
		// conversations silent equally long tie exactly.
		a, d := logSilence(b.Mu, c.Rate, s)
		bi := base[i] - top
		la[i], ld[i], lr[i] = bi+a, bi+d, bi+a+math.Log(c.Rate)
	}
	return floats.LogSumExp(la), floats.LogSumExp(ld), floats.LogSumExp(lr)
}

// logSilence returns log P(alive and silent for s) = −(μ+λ)s and
// log P(dead and silent for s) = log(μ/(μ+λ)·(1 − e^{−(μ+λ)s})) for a
// conversation of rate lambda that was alive at its last turn.
func logSilence(mu, lambda, s float64) (alive, dead float64) {
	c := mu + lambda
	alive = -c * s
	if s == 0 {
		return alive, math.Inf(-1)
	}
	return alive, math.Log(mu/c) + math.Log(-math.Expm1(-c*s))
}

// gammaLogTerms is logTerms for a Gamma(k, β) prior: after n turns over
// age seconds the rate is Gamma(a, b) with a = k + n − 1, b = β + age, and
//
//	E[e^{−(μ+λ)s}]   = e^{−μs} (b/(b+s))^a
//	E[λ e^{−(μ+λ)s}] = e^{−μs} (b/(b+s))^a · a/(b+s)
//	E[dead, silent]  = ∫₀ˢ μ e^{−μu} (b/(b+u))^a du
//	                 = ∫₀^{1−e^{−μs}} (b/(b+u(v)))^a dv,  u(v) = −ln(1−v)/μ,
//
// the last by adaptive Gauss–Legendre quadrature (see adaptive) to a
// relative accuracy of 1e-12; TestGammaQuadrature checks it against a
// composite Simpson rule.
func (b *Bayes) gammaLogTerms(n, age, s float64) (alive, dead, rate float64) {
	g := b.Prior.Gamma
	a := g.Shape + n - 1
	bb := g.Beta() + age
	alive = -b.Mu*s + a*(math.Log(bb)-math.Log(bb+s))
	rate = alive + math.Log(a/(bb+s))
	if s == 0 {
		return alive, math.Inf(-1), rate
	}
	top := -math.Expm1(-b.Mu * s)
	f := func(v float64) float64 {
		u := -math.Log1p(-v) / b.Mu
		return math.Exp(-a * math.Log1p(u/bb))
	}
	whole := b.panel(f, 0, top)
	return alive, math.Log(b.adaptive(f, 0, top, whole, 1e-12*whole, 0)), rate
}

// panel integrates f over [lo, hi] with the 16-node Gauss–Legendre rule.
func (b *Bayes) panel(f func(float64) float64, lo, hi float64) float64 {
	var sum float64
	for i, x := range b.nodes {
		sum += b.weights[i] * f(lo+x*(hi-lo))
	}
	return sum * (hi - lo)
}

// adaptive integrates f over [lo, hi] given the one-panel estimate whole:
// it bisects while the two halves disagree with the whole by more than
// tol (an absolute error), up to 40 levels.
func (b *Bayes) adaptive(f func(float64) float64, lo, hi, whole, tol float64, depth int) float64 {
	mid := (lo + hi) / 2
	l, r := b.panel(f, lo, mid), b.panel(f, mid, hi)
	if depth >= 40 || math.Abs(l+r-whole) <= tol {
		return l + r
	}
	return b.adaptive(f, lo, mid, l, tol/2, depth+1) + b.adaptive(f, mid, hi, r, tol/2, depth+1)
}
