// Package objective names what a hindsight solve minimises: total tail
// excess latency (tel), the number of SLO violations (slo), or a Q-th
// percentile of uncached tokens (pQ, e.g. p90, p99.9), together with the
// nearest-rank rule that turns a percentile into a count of violations and
// the command-line settings of the SLO threshold (--slo-tokens, --slo-ms).
package objective

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Kind is the family of an objective.
type Kind int

const (
	// TEL is total tail excess latency Σ_k max(b_k − ξ, 0), tokens.
	TEL Kind = iota
	// SLO is the number of turns whose uncached tokens b_k exceed the SLO
	// threshold s (tokens), i.e. whose TTFT exceeds the SLO.
	SLO
	// Percentile is the Q-th nearest-rank percentile of b_k over all
	// turns, tokens.
	Percentile
)

// Objective is one objective: a Kind and, for Percentile, Q in (0, 100)
// (percent). The zero value is TEL.
type Objective struct {
	Kind Kind
	Q    float64 // percent, in (0, 100); only for Percentile
}

// Parse reads "tel", "slo" or "pQ" (Q a decimal in (0, 100): "p90",
// "p99.9"); case-insensitive, surrounding spaces ignored.
func Parse(s string) (Objective, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "tel":
		return Objective{Kind: TEL}, nil
	case "slo":
		return Objective{Kind: SLO}, nil
	}
	if len(t) < 2 || t[0] != 'p' {
		return Objective{}, fmt.Errorf("objective %q: want tel, slo or pQ with Q in (0, 100), e.g. p90", s)
	}
	q, err := strconv.ParseFloat(t[1:], 64)
	if err != nil || strings.ContainsAny(t[1:], "eExXpP_+-") {
		return Objective{}, fmt.Errorf("objective %q: %q is not a decimal percentile", s, t[1:])
	}
	if !(q > 0 && q < 100) {
		return Objective{}, fmt.Errorf("objective %q: percentile %v is not in (0, 100)", s, q)
	}
	return Objective{Kind: Percentile, Q: q}, nil
}

// String is the name Parse reads: "tel", "slo", or "p" followed by Q in
// its shortest decimal form ("p90", "p99.9").
func (o Objective) String() string {
	switch o.Kind {
	case TEL:
		return "tel"
	case SLO:
		return "slo"
	case Percentile:
		return "p" + strconv.FormatFloat(o.Q, 'f', -1, 64)
	}
	return fmt.Sprintf("objective(%d)", int(o.Kind))
}

// Rank is the nearest rank of the Q-th percentile (Q in percent) among n
// values: the ⌈Q·n/100⌉-th smallest, at least 1. It is computed exactly,
// with Q read as its shortest decimal ("99.9" is 999/10, not the binary
// fraction nearest to it), so p99.9 of 1000 turns is rank 999. For the
// percentiles simulate reports (p50, p90, p95, p99) this is the rank
// models/metrics uses. n must be ≥ 1.
func Rank(n int, q float64) int {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(q, 'f', -1, 64))
	if !ok {
		return max(1, int(math.Ceil(q/100*float64(n))))
	}
	r.Mul(r, big.NewRat(int64(n), 100))
	c := new(big.Int).Quo(r.Num(), r.Denom()) // r ≥ 0, so this is ⌊r⌋
	if !r.IsInt() {
		c.Add(c, big.NewInt(1))
	}
	return max(1, int(c.Int64()))
}

// MaxExceeding is the largest number of the n values that may exceed τ
// while the Q-th nearest-rank percentile is still ≤ τ: P_Q ≤ τ iff at most
// n − Rank(n, Q) values exceed τ.
func MaxExceeding(n int, q float64) int { return n - Rank(n, q) }
