package birthdeath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Atoms is a discrete distribution of lengths: Values[i] tokens with
// probability Probs[i]. It is the one type for a length distribution given
// by its atoms (the exact belief-MDP solver's prompts and responses,
// ET-LRU's known prompt distribution, any Dist turned into atoms by PMF),
// and a Dist itself. Valid atoms (see Validate) have tokens ≥ 0 and
// probabilities ≥ 0 summing to 1 within 1e-9, in any order, values possibly
// repeated; Normalized sorts and merges them.
type Atoms struct {
	Values []int64
	Probs  []float64
}

// Validate reports atoms that are not a distribution: none, a length
// mismatch, a negative length, a negative or non-finite probability, or
// probabilities not summing to 1 within 1e-9.
func (a Atoms) Validate() error {
	if len(a.Values) == 0 || len(a.Values) != len(a.Probs) {
		return fmt.Errorf("need as many probabilities as values (≥ 1)")
	}
	var total float64
	for i, v := range a.Values {
		if p := a.Probs[i]; v < 0 || !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("atom %d tokens with probability %v: need tokens ≥ 0 and probability ≥ 0", v, p)
		}
		total += a.Probs[i]
	}
	if math.Abs(total-1) > 1e-9 {
		return fmt.Errorf("probabilities sum to %v, not 1", total)
	}
	return nil
}

// Normalized returns valid atoms with increasing, distinct values (equal
// values merged) and probabilities divided by their sum, so that they sum
// to 1 up to rounding.
func (a Atoms) Normalized() (Atoms, error) {
	if err := a.Validate(); err != nil {
		return Atoms{}, err
	}
	var total float64
	idx := make([]int, len(a.Values))
	for i := range idx {
		idx[i] = i
		total += a.Probs[i]
	}
	sort.SliceStable(idx, func(x, y int) bool { return a.Values[idx[x]] < a.Values[idx[y]] })
	var out Atoms
	for _, i := range idx {
		if n := len(out.Values); n > 0 && out.Values[n-1] == a.Values[i] {
			out.Probs[n-1] += a.Probs[i] / total
			continue
		}
		out.Values = append(out.Values, a.Values[i])
		out.Probs = append(out.Probs, a.Probs[i]/total)
	}
	return out, nil
}

// Sample draws a length in tokens by inverting the cumulative
// probabilities in the atoms' order.
func (a Atoms) Sample(r *rand.Rand) int64 {
	u := r.Float64()
	for i, p := range a.Probs {
		if u < p {
			return a.Values[i]
		}
		u -= p
	}
	return a.Values[len(a.Values)-1]
}

// Mean returns Σ p·v, tokens.
func (a Atoms) Mean() float64 {
	var m float64
	for i, v := range a.Values {
		m += a.Probs[i] * float64(v)
	}
	return m
}

// String writes the atoms as a pmf specification, "pmf:TOKENS:PROB,…",
// which ParseAtoms reads back.
func (a Atoms) String() string {
	parts := make([]string, len(a.Values))
	for i, v := range a.Values {
		parts[i] = strconv.FormatInt(v, 10) + ":" + strconv.FormatFloat(a.Probs[i], 'g', -1, 64)
	}
	return "pmf:" + strings.Join(parts, ",")
}

// ParseAtoms reads a length distribution as atoms: "pmf:TOKENS:PROB,…"
// (tokens ≥ 0, probabilities ≥ 0 summing to 1, kept in the order given), or
// any specification of ParseDist (field and min as there) turned into atoms
// by PMF with tail mass tail.
func ParseAtoms(spec, field string, min int64, tail float64) (Atoms, error) {
	rest, ok := strings.CutPrefix(spec, "pmf:")
	if !ok {
		d, err := ParseDist(spec, field, min)
		if err != nil {
			return Atoms{}, err
		}
		return PMF(d, tail)
	}
	var a Atoms
	for _, f := range strings.Split(rest, ",") {
		vs, ps, ok := strings.Cut(strings.TrimSpace(f), ":")
		v, err1 := strconv.ParseInt(vs, 10, 64)
		p, err2 := strconv.ParseFloat(ps, 64)
		if !ok || err1 != nil || err2 != nil || v < 0 || !(p >= 0) || math.IsInf(p, 0) {
			return Atoms{}, fmt.Errorf("distribution %q: atom %q: want TOKENS:PROB with tokens ≥ 0 and probability ≥ 0", spec, f)
		}
		a.Values, a.Probs = append(a.Values, v), append(a.Probs, p)
	}
	if err := a.Validate(); err != nil {
		return Atoms{}, fmt.Errorf("distribution %q: %w", spec, err)
	}
	return a, nil
}
