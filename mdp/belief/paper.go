package belief

import (
	"fmt"
	"math"
)

// Paper is the tail-latency paper's belief: a conversation silent for s
// seconds is alive with probability exp(−μ·s), and turns at rate
// λ̄·exp(−μ·s), where λ̄ is Rate (the paper assumes each conversation's
// rate known; with an unknown rate tailbound uses the prior mean).
type Paper struct {
	Mu   float64 // death rate μ, per second
	Rate float64 // λ̄, per second
}

// NewPaper returns the paper's belief with death rate mu and the mean rate
// of prior, per second.
func NewPaper(mu float64, prior Prior) (Paper, error) {
	if !(mu > 0) || math.IsInf(mu, 0) {
		return Paper{}, fmt.Errorf("belief: μ must be a finite rate > 0 per second, got %v", mu)
	}
	if err := prior.validate(); err != nil {
		return Paper{}, err
	}
	return Paper{Mu: mu, Rate: prior.Mean()}, nil
}

// Alive returns exp(−μ·s).
func (p Paper) Alive(h History, now float64) float64 { return math.Exp(-p.Mu * silence(h, now)) }

// LogRate returns log λ̄ − μ·s.
func (p Paper) LogRate(h History, now float64) float64 {
	return math.Log(p.Rate) - p.Mu*silence(h, now)
}

func (p Paper) String() string { return fmt.Sprintf("paper(mu=%g/s,rate=%g/s)", p.Mu, p.Rate) }
