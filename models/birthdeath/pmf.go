package birthdeath

import (
	"fmt"
	"math"
	"sort"
)

// maxAtoms bounds the atoms PMF enumerates (a million: a belief MDP or an
// ET-LRU expectation over more is not small anyway).
const maxAtoms = 1_000_000

// PMF returns the distribution d as atoms: increasing lengths in tokens
// and their probabilities, summing to 1 (Atoms are returned as given).
// Unbounded distributions (geometric, log-normal) are cut where their
// remaining tail mass falls below tail, and that mass is added to the last
// atom, so the result is within total-variation distance tail of d. A
// distribution that would need more than a million atoms is an error.
func PMF(d Dist, tail float64) (Atoms, error) {
	values, probs, err := pmf(d, tail)
	return Atoms{Values: values, Probs: probs}, err
}

func pmf(d Dist, tail float64) (values []int64, probs []float64, err error) {
	if !(tail > 0 && tail < 1) {
		return nil, nil, fmt.Errorf("pmf: tail mass must be in (0, 1), got %v", tail)
	}
	switch d := d.(type) {
	case Atoms:
		return d.Values, d.Probs, nil
	case Fixed:
		return []int64{d.N}, []float64{1}, nil
	case Geometric:
		extra := d.MeanTokens - float64(d.Min)
		if extra <= 0 {
			return []int64{d.Min}, []float64{1}, nil
		}
		p := 1 / (extra + 1)
		if n := math.Log(tail) / math.Log1p(-p); n > maxAtoms {
			return nil, nil, fmt.Errorf("pmf: %s needs about %.3g atoms to leave a tail of %g, more than %d", d, n, tail, maxAtoms)
		}
		rest := 1.0
		for k := int64(0); ; k++ {
			pk := p * math.Pow(1-p, float64(k))
			values = append(values, d.Min+k)
			probs = append(probs, pk)
			rest -= pk
			if rest < tail {
				probs[len(probs)-1] += max(rest, 0)
				return values, probs, nil
			}
		}
	case LogNormal:
		if d.Sigma == 0 {
			return []int64{max(int64(math.Round(math.Exp(d.Mu))), d.Min)}, []float64{1}, nil
		}
		cdf := func(x float64) float64 { // P(exp(Z) < x)
			if x <= 0 {
				return 0
			}
			return 0.5 * math.Erfc(-(math.Log(x)-d.Mu)/(d.Sigma*math.Sqrt2))
		}
		// The enumeration below visits every integer up to the upper
		// quantile at tail mass; refuse before it runs for hours.
		if hi := math.Exp(d.Mu + d.Sigma*math.Sqrt2*math.Erfinv(1-2*tail)); hi-float64(d.Min) > maxAtoms {
			return nil, nil, fmt.Errorf("pmf: %s reaches %.3g tokens before its tail mass falls to %g: more than %d atoms", d, hi, tail, maxAtoms)
		}
		prev := cdf(float64(d.Min) + 0.5) // all of it rounds to ≤ Min
		values, probs = append(values, d.Min), append(probs, prev)
		for k := d.Min + 1; 1-prev >= tail; k++ {
			c := cdf(float64(k) + 0.5)
			if c > prev {
				values = append(values, k)
				probs = append(probs, c-prev)
			}
			prev = c
		}
		probs[len(probs)-1] += max(1-prev, 0)
		return values, probs, nil
	case Empirical:
		if len(d.Values) == 0 {
			return nil, nil, fmt.Errorf("pmf: empty empirical distribution")
		}
		v := append([]int64(nil), d.Values...)
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		for i := 0; i < len(v); {
			j := i
			for j < len(v) && v[j] == v[i] {
				j++
			}
			values = append(values, v[i])
			probs = append(probs, float64(j-i)/float64(len(v)))
			i = j
		}
		return values, probs, nil
	}
	return nil, nil, fmt.Errorf("pmf: no probability mass function for %s", d)
}
