package belief

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate/quad"
)

// Bayes is the exact posterior of the birth–death model (see the package
// documentation) for death rate Mu and the rate prior Prior. Build it with
// NewBayes and do not change Mu or Prior afterwards: it keeps quantities
// derived from them.
type Bayes struct {
	Mu    float64
	Prior Prior
	// Legendre nodes and weights on [0, 1] for the Gamma prior's integral.
	nodes, weights []float64
	// logW and logR are the classes' log weights and log rates, computed
	// once: math.Log gives the same bits on every call, so LogRate's
	// results are those of computing them on each call.
	logW, logR []float64
	// scale bounds the magnitude of the classes' per-turn log terms
	// (Magnitude).
	maxLogW, maxLogR, maxRate float64
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
	for _, c := range prior.Classes {
		lw, lr := math.Log(c.Weight), math.Log(c.Rate)
		b.logW, b.logR = append(b.logW, lw), append(b.logR, lr)
		b.maxLogW, b.maxLogR = max(b.maxLogW, math.Abs(lw)), max(b.maxLogR, math.Abs(lr), math.Abs(math.Log(mu+c.Rate)))
		b.maxRate = max(b.maxRate, c.Rate)
	}
	if prior.Gamma != nil {
		b.nodes, b.weights = make([]float64, gammaNodes), make([]float64, gammaNodes)
		quad.Legendre{}.FixedLocations(b.nodes, b.weights, 0, 1)
	}
	return b, nil
}

func (b *Bayes) String() string { return fmt.Sprintf("bayes(mu=%g/s,prior=%s)", b.Mu, b.Prior) }

// Alive returns P(alive at now | h).
func (b *Bayes) Alive(h History, now float64) float64 {
	la, ld, _, _ := b.logTerms(h, now, false)
	return math.Exp(la - floats.LogSumExp([]float64{la, ld}))
}

// LogRate returns log E[λ̄·1{alive} | h] at now.
func (b *Bayes) LogRate(h History, now float64) float64 {
	la, ld, lr, _ := b.logTerms(h, now, false)
	return lr - floats.LogSumExp([]float64{la, ld})
}

// LogRateSlope returns LogRate(h, now), the same bits, and a decay bound
// σ, per second: in exact arithmetic, LogRate(h, t) ≥ LogRate(h, now) −
// σ·(t − now) for every t ≥ now (h unchanged). σ ≥ Mu.
//
// Proof. With silence s, LogRate = log R(s) − log Z(s), where R is the
// expected rate term and Z = P(alive, obs.) + P(dead, obs.). For a rate
// λ, d/ds e^{−(μ+λ)s} = −(μ+λ)e^{−(μ+λ)s} and d/ds of the dead term
// μ/(μ+λ)(1 − e^{−(μ+λ)s}) is μe^{−(μ+λ)s}, so Z' = −E[λe^{−(μ+λ)s}·…] ≤ 0:
// −log Z never decreases. And (log R)' = −(μ + m(s)), where m(s) is the
// mean of λ under weights ∝ λ·e^{−(μ+λ)s}·(posterior at s = 0); m is
// non-increasing (its derivative is minus the variance under the same
// weights). So for s ≥ s₀ the slope of LogRate is ≥ −(μ + m(s₀)). For
// rate classes m(s₀) = Σ_j λ_j r_j / Σ_j r_j with r_j the classes' rate
// terms; for the Gamma prior the weights are the Gamma(a+1, b+s)
// density, m(s₀) = (a+1)/(b+s₀). σ is μ + m(s₀) enlarged by a relative
// 10^−9, far above the rounding of its computation.
func (b *Bayes) LogRateSlope(h History, now float64) (logRate, sigma float64) {
	la, ld, lr, m := b.logTerms(h, now, true)
	return lr - floats.LogSumExp([]float64{la, ld}), (b.Mu + m) * (1 + 1e-9)
}

// Magnitude returns an upper bound M of the absolute values of the
// logarithms LogRate adds and subtracts for any history of at most turns
// turns whose first turn was at most span seconds before now: LogRate's
// rounding error is a small multiple of 10^−16·M (and, for the Gamma prior,
// the quadrature's relative 10^−12 on top).
func (b *Bayes) Magnitude(turns int, span float64) float64 {
	n := float64(max(turns, 1))
	span = max(span, 0)
	if g := b.Prior.Gamma; g != nil {
		a := g.Shape + n
		lb := max(math.Abs(math.Log(g.Beta())), math.Abs(math.Log(g.Beta()+2*span)))
		return b.Mu*span + (2*a+2)*lb + math.Abs(math.Log(a)) + 1
	}
	// base terms and their largest (log w + (n−1) log λ − λ·age), the
	// silence terms (−(μ+λ)s, log μ/(μ+λ), log(1 − e^{−(μ+λ)s}) ≥ log
	// of μ·s-sized numbers) and log λ.
	one := b.maxLogW + n*b.maxLogR + b.maxRate*span
	return 2*one + (b.Mu+b.maxRate)*span + 2*b.maxLogR + math.Abs(math.Log(b.Mu)) + 1
}

// logTerms returns, up to one common factor, the logarithms of
// P(alive, observations), P(dead, observations) and
// E[λ̄·1{alive, observations}]; with slope, also m(s) of LogRateSlope.
func (b *Bayes) logTerms(h History, now float64, slope bool) (alive, dead, rate, m float64) {
	s := silence(h, now)
	n := max(h.Turns, 1)
	age := max(h.Last-h.First, 0)
	if b.Prior.Gamma != nil {
		alive, dead, rate, a, bb := b.gammaLogTerms(float64(n), age, s)
		return alive, dead, rate, (a + 1) / (bb + s)
	}
	k := len(b.Prior.Classes)
	// Small priors fit in arrays on the stack (the slices do not escape).
	var arr [4 * 8]float64
	var all []float64
	if k <= 8 {
		all = arr[:4*k]
	} else {
		all = make([]float64, 4*k)
	}
	la, ld, lr, base := all[:k], all[k:2*k], all[2*k:3*k], all[3*k:]
	top := math.Inf(-1)
	for i, c := range b.Prior.Classes {
		// log of weight × rate likelihood of the n−1 turns over age.
		base[i] = b.logW[i] + float64(n-1)*b.logR[i] - c.Rate*age
		top = max(top, base[i])
	}
	for i, c := range b.Prior.Classes {
		// Subtracting the largest base (a common factor) makes a single
		// class's result independent of the history bit for bit, so two
		// conversations silent equally long tie exactly.
		a, d := logSilence(b.Mu, c.Rate, s)
		bi := base[i] - top
		la[i], ld[i], lr[i] = bi+a, bi+d, bi+a+b.logR[i]
	}
	if slope {
		// m = Σ λ_j r_j / Σ r_j, in ratios to the largest r_j.
		top := floats.Max(lr)
		var num, den float64
		for i, c := range b.Prior.Classes {
			w := math.Exp(lr[i] - top)
			num += c.Rate * w
			den += w
		}
		m = num / den
	}
	return floats.LogSumExp(la), floats.LogSumExp(ld), floats.LogSumExp(lr), m
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
//	E[dead, silent]  = ∫₀ˢ μ e^{−μu} (b/(b+u))^a du,
//
// the last by deadIntegral.
//
// It also returns the posterior shape a and rate bb.
func (b *Bayes) gammaLogTerms(n, age, s float64) (alive, dead, rate, a, bb float64) {
	g := b.Prior.Gamma
	a = g.Shape + n - 1
	bb = g.Beta() + age
	alive = -b.Mu*s + a*(math.Log(bb)-math.Log(bb+s))
	rate = alive + math.Log(a/(bb+s))
	if s == 0 {
		return alive, math.Inf(-1), rate, a, bb
	}
	d, _ := b.deadIntegral(a, bb, s)
	return alive, math.Log(d), rate, a, bb
}

// maxPanels bounds deadIntegral's panels; see there.
const maxPanels = 100000

// deadIntegral returns D = ∫₀ˢ g(u) du, g(u) = μ e^{−φ(u)},
// φ(u) = μu + a·log(1 + u/b), and the number of 16-node Gauss–Legendre
// panels it used.
//
// The panels are cut where ψ(u) = μu + (a+1)·log(1 + u/b) crosses
// 1, 2, 3, …: on each, e^{−μu} falls by at most a factor e and b + u grows
// by at most e^{1/(a+1)} ≤ e, so g is analytic on a neighbourhood of the
// panel reaching beyond it (the nearest singularity, u = −b, lies farther
// from the panel than about 1.16 half-widths), and the 16-node rule's
// relative error is of the order of 4^−32 ≈ 10^−19 (Bernstein ellipse
// ρ ≥ 4). ψ is concave and increasing, so Newton's method from the
// panel's left end never overshoots the next cut. The sum stops at s, or
// once the rest is provably below 10^−14 of it: with φ' decreasing to μ,
// ∫_u^s g ≤ g(u)·min(1/μ, s − u, (b+u)/(a−1) when a > 1). So D comes with a
// relative error below about 10^−14 plus rounding (a few 10^−16 per
// panel). The panels number at most about ψ(s), and stop after φ has
// grown by about 35 + log of the bound's factor; maxPanels (never reached
// for a ≥ 10^−3) would end the sum with half the tail bound added, a
// stated error of the other half.
//
// It replaces an adaptive bisection on the integral in v = 1 − e^{−μu}
// whose tolerance (10^−12 of a one-panel estimate, halved per level, to
// depth 40) rounding could not meet at extreme posteriors, where it took
// minutes for one value (issue 35 item 15).
func (b *Bayes) deadIntegral(a, bb, s float64) (float64, int) {
	mu := b.Mu
	g := func(u float64) float64 { return mu * math.Exp(-(mu*u + a*math.Log1p(u/bb))) }
	psi := func(u float64) float64 { return mu*u + (a+1)*math.Log1p(u/bb) }
	end := psi(s)
	var sum float64
	lo := 0.0
	for k := 1; ; k++ {
		t := float64(k)
		hi := s
		if t < end {
			hi = lo
			for range 100 { // Newton from the left; quadratic near the cut
				step := (t - psi(hi)) / (mu + (a+1)/(bb+hi))
				if !(step > 1e-15*(bb+hi)) {
					break
				}
				hi = min(hi+step, s)
			}
		}
		sum += b.panel(g, lo, hi)
		if hi >= s || t >= end {
			return sum, k
		}
		tail := g(hi) * min(1/mu, s-hi)
		if a > 1 {
			tail = min(tail, g(hi)*(bb+hi)/(a-1))
		}
		if tail <= 1e-14*sum {
			return sum, k
		}
		if k >= maxPanels {
			return sum + tail/2, k
		}
		lo = hi
	}
}

// panel integrates f over [lo, hi] with the 16-node Gauss–Legendre rule.
func (b *Bayes) panel(f func(float64) float64, lo, hi float64) float64 {
	var sum float64
	for i, x := range b.nodes {
		sum += b.weights[i] * f(lo+x*(hi-lo))
	}
	return sum * (hi - lo)
}
