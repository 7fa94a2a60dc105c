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
	// dec is Q as the decimal Parse read, when float64 cannot hold it
	// exactly as its shortest decimal ("33.3333333333333333" is not
	// 33.333333333333336); "" otherwise. Rank and String use it, so the
	// documented exact-decimal rule holds for every Q typed.
	dec string
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
	typed, ok := new(big.Rat).SetString(t[1:])
	if err != nil || !ok || strings.ContainsAny(t[1:], "eExXpP_+-") {
		return Objective{}, fmt.Errorf("objective %q: %q is not a decimal percentile", s, t[1:])
	}
	// The range is the exact decimal's: 99.99999999999999999999 is in
	// (0, 100) though float64 rounds it to 100.
	if typed.Sign() <= 0 || typed.Cmp(big.NewRat(100, 1)) >= 0 {
		return Objective{}, fmt.Errorf("objective %q: percentile %s is not in (0, 100)", s, t[1:])
	}
	o := Objective{Kind: Percentile, Q: min(max(q, math.SmallestNonzeroFloat64), math.Nextafter(100, 0))}
	if short, _ := new(big.Rat).SetString(strconv.FormatFloat(o.Q, 'f', -1, 64)); typed.Cmp(short) != 0 {
		o.dec = typed.FloatString(decimals(t[1:]))
	}
	return o, nil
}

// decimals is the number of digits after the point of decimal d.
func decimals(d string) int {
	if _, frac, ok := strings.Cut(d, "."); ok {
		return len(frac)
	}
	return 0
}

// Rank is the nearest rank of o's percentile among n values (see the
// function Rank), from the decimal Q as Parse read it, exactly.
func (o Objective) Rank(n int) int {
	if o.dec == "" {
		return Rank(n, o.Q)
	}
	return rankOf(n, o.dec)
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
		if o.dec != "" {
			return "p" + o.dec
		}
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
	return rankOf(n, strconv.FormatFloat(q, 'f', -1, 64))
}

// rankOf is Rank of the percentile written as decimal q (percent).
func rankOf(n int, q string) int {
	r, ok := new(big.Rat).SetString(q)
	if !ok {
		f, _ := strconv.ParseFloat(q, 64)
		return max(1, int(math.Ceil(f/100*float64(n))))
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
