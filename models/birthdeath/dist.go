package birthdeath

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/models/trace"
)

// Dist is a distribution of lengths in tokens.
type Dist interface {
	// Sample draws a length in tokens, ≥ Min().
	Sample(r *rand.Rand) int64
	// Mean returns the distribution's mean in tokens.
	Mean() float64
	// String names the distribution and its parameters.
	String() string
}

// MaxLength bounds every drawn length, tokens: trace.MaxTurnTokens (2^40),
// the bound the trace reader enforces, so that a generated trace is always
// readable. ParseDist refuses a distribution whose upper tail (its
// 1 − 10⁻⁹ quantile) passes it, and Sample clamps the rest of the tail.
const MaxLength = trace.MaxTurnTokens

// tailZ is the standard normal's 1 − 10⁻⁹ quantile, for the tail checks.
const tailZ = 5.998

// Fixed is a constant length N tokens.
type Fixed struct{ N int64 }

func (d Fixed) Sample(*rand.Rand) int64 { return d.N }
func (d Fixed) Mean() float64           { return float64(d.N) }
func (d Fixed) String() string          { return fmt.Sprintf("fixed(%d)", d.N) }

// Geometric lengths on {Min, Min+1, …} with mean MeanTokens (≥ Min).
type Geometric struct {
	Min        int64
	MeanTokens float64
}

func (d Geometric) Sample(r *rand.Rand) int64 {
	extra := d.MeanTokens - float64(d.Min) // mean of the failures count
	if extra <= 0 {
		return d.Min
	}
	p := 1 / (extra + 1) // success probability: mean failures (1−p)/p = extra
	u := 1 - r.Float64() // (0, 1]
	return d.Min + int64(min(math.Floor(math.Log(u)/math.Log1p(-p)), MaxLength-float64(d.Min)))
}
func (d Geometric) Mean() float64 { return math.Max(d.MeanTokens, float64(d.Min)) }
func (d Geometric) String() string {
	return fmt.Sprintf("geometric(min=%d,mean=%g)", d.Min, d.MeanTokens)
}

// LogNormal lengths: round(exp(N(Mu, Sigma²))), at least Min tokens.
type LogNormal struct {
	Mu, Sigma float64
	Min       int64
}

func (d LogNormal) Sample(r *rand.Rand) int64 {
	// Clamp before converting: exp can pass the int64 range (which gave
	// lengths of 1 or 9.2·10^18 tokens).
	v := math.Min(math.Round(math.Exp(d.Mu+d.Sigma*r.NormFloat64())), MaxLength)
	return max(int64(v), d.Min)
}

// Mean is the mean before rounding and clipping, exp(μ + σ²/2).
func (d LogNormal) Mean() float64 { return math.Exp(d.Mu + d.Sigma*d.Sigma/2) }
func (d LogNormal) String() string {
	return fmt.Sprintf("lognormal(mu=%g,sigma=%g,min=%d)", d.Mu, d.Sigma, d.Min)
}

// Empirical draws uniformly from observed lengths (tokens).
type Empirical struct{ Values []int64 }

func (d Empirical) Sample(r *rand.Rand) int64 { return d.Values[r.IntN(len(d.Values))] }
func (d Empirical) Mean() float64 {
	var s float64
	for _, v := range d.Values {
		s += float64(v)
	}
	return s / float64(len(d.Values))
}
func (d Empirical) String() string { return fmt.Sprintf("empirical(n=%d)", len(d.Values)) }
