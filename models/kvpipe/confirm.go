package kvpipe

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Candidate is one ratio re-measured by Confirm.
type Candidate struct {
	// Names are the roles of the ratio ("r0", "r* paper", "grid best", …).
	Names []string `json:"names"`
	// R is the recompute ratio, a fraction of tokens.
	R float64 `json:"r"`
	// TTFT is the mean of the confirming runs, seconds; SE its standard
	// error, seconds.
	TTFT float64 `json:"ttft_s"`
	SE   float64 `json:"se_s"`
}

// Confirm re-measures the ratios rs (named by names; equal ratios are
// measured once) in rounds: each round runs every ratio once, in turn, so
// that drift and interference on a shared machine fall on all of them
// alike. Comparing ratios measured at different moments, by different
// phases of a search, can mistake noise for regret; comparing confirmed
// means does not.
func (p *Pipeline) Confirm(t Tier, tokens int, names []string, rs []float64, rounds int) ([]Candidate, error) {
	if len(names) != len(rs) || rounds < 2 {
		return nil, fmt.Errorf("kvpipe: confirm needs one name per ratio and ≥ 2 rounds, got %d, %d and %d", len(names), len(rs), rounds)
	}
	var cs []Candidate
	for i, r := range rs {
		found := false
		for j := range cs {
			if cs[j].R == r {
				cs[j].Names = append(cs[j].Names, names[i])
				found = true
			}
		}
		if !found {
			cs = append(cs, Candidate{Names: []string{names[i]}, R: r})
		}
	}
	xs := make([][]float64, len(cs))
	for range rounds {
		for j, c := range cs {
			d, err := p.Run(t, tokens, c.R)
			if err != nil {
				return nil, err
			}
			xs[j] = append(xs[j], d.Seconds())
		}
	}
	for j := range cs {
		m, sd := stat.MeanStdDev(xs[j], nil)
		cs[j].TTFT, cs[j].SE = m, sd/math.Sqrt(float64(rounds))
	}
	return cs, nil
}

// FindCandidate returns the candidate that carries name, or false.
func FindCandidate(cs []Candidate, name string) (Candidate, bool) {
	for _, c := range cs {
		for _, n := range c.Names {
			if n == name {
				return c, true
			}
		}
	}
	return Candidate{}, false
}

// BestCandidate returns the candidate of least mean TTFT (cs not empty).
func BestCandidate(cs []Candidate) Candidate {
	b := cs[0]
	for _, c := range cs[1:] {
		if c.TTFT < b.TTFT {
			b = c
		}
	}
	return b
}

// RooflineComparison is the roofline's r0 and the intercept-aware crossover
// against the best confirmed candidate of one measurement.
type RooflineComparison struct {
	// R0, Intercepts and Best are the confirmed candidates "r0",
	// "r0 intercepts" and the one of least mean TTFT.
	R0, Intercepts, Best Candidate
	// RegretR0 = TTFT(r0)/TTFT(best) − 1 and RegretIntercepts likewise for
	// the intercept-aware crossover, fractions.
	RegretR0, RegretIntercepts float64
}

// CompareRoofline compares r's confirmed r0 and intercept-aware crossover
// with its best confirmed candidate; false when either was not confirmed.
func CompareRoofline(r Result) (RooflineComparison, bool) {
	c0, ok0 := FindCandidate(r.Confirmed, "r0")
	cb, okb := FindCandidate(r.Confirmed, "r0 intercepts")
	if !ok0 || !okb {
		return RooflineComparison{}, false
	}
	best := BestCandidate(r.Confirmed)
	return RooflineComparison{R0: c0, Intercepts: cb, Best: best,
		RegretR0: c0.TTFT/best.TTFT - 1, RegretIntercepts: cb.TTFT/best.TTFT - 1}, true
}
