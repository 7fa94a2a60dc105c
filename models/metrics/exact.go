package metrics

import (
	"math"

	"github.com/tailbound/tailbound/models/latency"
)

// ExactLimit bounds, in units of 2^−k tokens (Terms), the sum over a run's
// turns of each turn's load d plus |ξ|, below which an Exact's integer
// sums equal an Accumulator's floating-point ones bit for bit: 2^53, the
// last integer past which float64 skips integers.
const ExactLimit = 1 << 53

// Exact holds, in integers, the figures an Accumulator sums turn by turn
// (every figure but the histogram of uncached counts): the turns, Σ h,
// Σ d and Σ x (tokens), the TEL Σ max(b − ξ, 0) (in units of 2^−k tokens,
// k the Terms' scale), the SLO violations and the largest uncached count
// b (tokens). Integer sums can be split and regrouped — a curve counts a
// turn once for a run of capacities that see the same figures, and adds
// the runs covering each capacity after the pass — where floating-point
// sums must be added in trace order; Accumulator.SetExact turns them
// back into the accumulator's figures, bit for bit while the run stays
// within ExactLimit (Terms.Cost).
type Exact struct {
	Turns      int64
	H, D, X    int64 // Σ h, Σ d, Σ x, tokens
	Excess     int64 // Σ max(b − ξ, 0), 2^−k tokens
	Violations int64 // turns with TTFT > SLO
	MaxB       int64 // largest b, tokens (0 with no turns)
}

// AddLoad counts one turn of history h and prefill load d tokens: its
// figures that do not depend on what was cached.
func (e *Exact) AddLoad(h, d int64) {
	e.Turns++
	e.H += h
	e.D += d
}

// Merge adds every figure of o to e (the largest b is the larger one).
func (e *Exact) Merge(o Exact) {
	e.Turns += o.Turns
	e.H += o.H
	e.D += o.D
	e.X += o.X
	e.Excess += o.Excess
	e.Violations += o.Violations
	e.MaxB = max(e.MaxB, o.MaxB)
}

// Terms computes a turn's figures in an Exact under one threshold ξ,
// latency model and SLO: ξ = X·2^−k with X and k integers, so that
// b − ξ = (b·2^k − X)·2^−k is a whole number of 2^−k tokens.
type Terms struct {
	scale uint  // k
	xiK   int64 // X = ξ·2^k
	absK  int64 // |X|
	model latency.Model
	slo   float64
}

// NewTerms returns the Terms of threshold xi tokens, latency model m and
// SLO sloMs milliseconds (as New), with the smallest k that makes ξ·2^k
// an integer; false when there is none with |ξ·2^k| < ExactLimit (ξ not
// finite, or finer than float64 can carry with room for the sums): the
// caller must then add turns one by one (Accumulator.Add).
func NewTerms(xi float64, m latency.Model, sloMs float64) (Terms, bool) {
	if math.IsNaN(xi) || math.IsInf(xi, 0) {
		return Terms{}, false
	}
	for k := uint(0); k < 53; k++ {
		v := math.Ldexp(xi, int(k))
		if math.Abs(v) >= ExactLimit {
			break
		}
		if v == math.Trunc(v) {
			x := int64(v)
			return Terms{scale: k, xiK: x, absK: max(x, -x), model: m, slo: sloMs}, true
		}
	}
	return Terms{}, false
}

// Cost returns a turn of load d tokens' share of ExactLimit, d·2^k + |X|
// (2^−k tokens), or more than ExactLimit when that exceeds it: a run of turns whose
// costs sum to at most ExactLimit has every partial sum of every figure —
// Σ h, Σ d, Σ x and Σ b are at most Σ d, the TEL at most Σ (d + |ξ|) —
// an integer (of 2^−k tokens for the TEL) at most 2^53, which float64
// holds exactly; so each addition Accumulator.Add makes is exact, and its
// figures equal the Exact's converted.
func (t Terms) Cost(d int64) int64 {
	if d < 0 || d > (ExactLimit-t.absK)>>t.scale {
		return ExactLimit + 1
	}
	return d<<t.scale + t.absK
}

// Units returns tokens in units of 2^−k tokens, the TEL's unit in an
// Exact.
func (t Terms) Units(tokens int64) int64 { return tokens << t.scale }

// Over returns b − ξ in 2^−k tokens (negative when b < ξ): the TEL term of
// a turn of b uncached tokens before it is clamped at 0, linear in b.
func (t Terms) Over(b int64) int64 { return b<<t.scale - t.xiK }

// Excess returns a turn of b uncached tokens' TEL term, max(b − ξ, 0), in
// 2^−k tokens: positive exactly when Accumulator.Add's is, and equal to it
// converted.
func (t Terms) Excess(b int64) int64 { return max(t.Over(b), 0) }

// Violates reports whether a turn of b uncached tokens misses the SLO, by
// Accumulator.Add's floating-point comparison. It does not decrease with
// b (the model's α > 0 and β ≥ 0, and rounding is monotone).
func (t Terms) Violates(b int64) bool { return t.model.TTFTMs(float64(b)) > t.slo }

// Add counts, in e, a turn's cached x and uncached b tokens: Σ x, the
// TEL, the violations and the largest b, each as Accumulator.Add computes
// it. The turn's load and history go to AddLoad, once for all capacities
// of a curve.
func (t Terms) Add(e *Exact, x, b int64) {
	e.X += x
	e.Excess += t.Excess(b)
	if t.Violates(b) {
		e.Violations++
	}
	e.MaxB = max(e.MaxB, b)
}

// SetExact sets the figures of an accumulator that has no turns yet (no
// Add or AddLater before it) to those of e, computed under t: every
// figure but the histogram is then as if e's turns had been added by
// AddLater, in any order, provided their costs (t.Cost) sum to at most
// ExactLimit. The uncached counts of those turns come, as for AddLater,
// from the Later store, the Shifted sets or AddLaterCount; AddLater may
// follow for further turns.
func (a *Accumulator) SetExact(t Terms, e Exact) {
	a.turns = e.Turns
	a.sumH = float64(e.H)
	a.sumD = float64(e.D)
	a.sumX = float64(e.X)
	a.sumB = float64(e.D - e.X)
	a.telTokens = math.Ldexp(float64(e.Excess), -int(t.scale))
	a.violations = e.Violations
	a.maxB = e.MaxB
}
