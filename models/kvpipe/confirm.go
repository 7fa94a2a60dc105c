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
