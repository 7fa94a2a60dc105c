package belief

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// History is what the decision maker has observed of one conversation.
type History struct {
	// First is the time of its first turn, seconds.
	First float64
	// Last is the time of its latest turn, seconds (≥ First).
	Last float64
	// Turns is the number of turns observed (≥ 1).
	Turns int
}

// Belief gives a conversation's probability of being alive and its
// expected turn rate at time now ≥ h.Last (seconds).
type Belief interface {
	// Alive returns P(alive at now | h).
	Alive(h History, now float64) float64
	// LogRate returns the natural logarithm of the expected turn rate
	// E[λ̄·1{alive} | h] at now (rate per second); −Inf when it is 0.
	// Logarithms keep long-silent conversations comparable when the rate
	// itself underflows.
	LogRate(h History, now float64) float64
	// String names the belief and its parameters.
	String() string
}

// Rate returns the expected turn rate of b at now, per second.
func Rate(b Belief, h History, now float64) float64 { return math.Exp(b.LogRate(h, now)) }

// Prior is the distribution of per-conversation turn rates the decision
// maker assumes: rate classes or a Gamma distribution.
type Prior struct {
	Classes []birthdeath.RateClass // used when Gamma is nil
	Gamma   *birthdeath.Gamma
}

// Mean returns the prior mean rate, per second.
func (p Prior) Mean() float64 {
	if p.Gamma != nil {
		return p.Gamma.MeanRate
	}
	return birthdeath.ClassMean(p.Classes)
}

func (p Prior) validate() error {
	if p.Gamma != nil {
		if !(p.Gamma.Shape > 0 && p.Gamma.MeanRate > 0) {
			return fmt.Errorf("belief: gamma prior %v needs shape and mean > 0", *p.Gamma)
		}
		return nil
	}
	if len(p.Classes) == 0 {
		return fmt.Errorf("belief: the rate prior needs at least one class or a gamma distribution")
	}
	for _, c := range p.Classes {
		if !(c.Rate > 0 && c.Weight > 0) || math.IsInf(c.Rate, 0) || math.IsInf(c.Weight, 0) {
			return fmt.Errorf("belief: rate class %+v needs rate and weight > 0", c)
		}
	}
	return nil
}

func (p Prior) String() string {
	if p.Gamma != nil {
		return p.Gamma.String()
	}
	return birthdeath.ClassDist(p.Classes).String()
}

// silence returns now − h.Last, clamped at 0 seconds.
func silence(h History, now float64) float64 { return max(now-h.Last, 0) }
