package lp

import "math"

// Segment is one linear piece of the savings of a carried amount: up to
// Blocks blocks, each saving Tokens tokens of excess, plus H tokens more
// when PlusH is set (H = 1 − frac(ξ), see Instance.FracH).
type Segment struct {
	Blocks int64
	Tokens int64
	PlusH  bool
}

// PerBlock returns the segment's savings per block, tokens.
func (s Segment) PerBlock(h float64) float64 {
	if s.PlusH {
		return float64(s.Tokens) + h
	}
	return float64(s.Tokens)
}

// xiParts splits ξ into its floor and fractional part (exact for |ξ| <
// 2^52: subtracting a double's integral part is exact).
func (in *Instance) xiParts() (int64, float64) {
	f := math.Floor(in.Xi)
	return int64(f), in.Xi - f
}

// FracH returns H = 1 − frac(ξ) tokens when ξ is not a whole number of
// tokens, and 0 when it is: the fractional part of every partial block's
// savings.
func (in *Instance) FracH() float64 {
	_, fr := in.xiParts()
	if fr == 0 {
		return 0
	}
	return 1 - fr
}

// Savings returns the savings of the amount carried into turn n (which must
// have a previous turn) as concave pieces, in order: with E = D_n − ξ
// tokens, ⌊E/B⌋ blocks save B tokens each, one more block saves E mod B,
// and blocks after that save nothing; all capped at MaxKeep(prev) blocks
// (the carried amount z ≤ ⌊H_n/B⌋ and ≤ C/B). E ≤ 0 saves nothing. The
// pieces are exact: for every whole number of blocks z ≤ the cap, the
// savings of the first z blocks, filled in order, equal
// max(D_n − ξ, 0) − max(D_n − zB − ξ, 0). The floor and remainder are
// computed in integers from ξ's integral and fractional parts, so no
// rounding of D_n − ξ can move a block between pieces.
func (in *Instance) Savings(n int) []Segment {
	return in.SavingsCapped(n, in.MaxKeep(in.Prev[n]))
}

// SavingsCapped is Savings with the cap on the carried amount given, capz
// blocks, instead of read from turn n's previous turn: for a turn whose
// previous turn is not in this instance (a window of a longer trace, see
// lp/window), capz = min(⌊H_n/B⌋, C/B), which is MaxKeep(prev) since the
// previous turn's new history is H_n.
func (in *Instance) SavingsCapped(n int, capz int64) []Segment {
	b := in.BlockSize
	xf, fr := in.xiParts()
	ei := in.Load(n) - xf // E = ei − fr
	if ei <= 0 || capz == 0 {
		return nil
	}
	var full, remTok int64
	plusH := fr != 0
	if plusH { // E ∈ (ei−1, ei): ⌊E/B⌋ = ⌊(ei−1)/B⌋, E mod B = (ei−1) mod B + (1−fr)
		full = (ei - 1) / b
		remTok = ei - 1 - full*b
	} else {
		full = ei / b
		remTok = ei - full*b
	}
	var segs []Segment
	if k := min(full, capz); k > 0 {
		segs = append(segs, Segment{Blocks: k, Tokens: b})
	}
	if full < capz && (remTok > 0 || plusH) {
		segs = append(segs, Segment{Blocks: 1, Tokens: remTok, PlusH: plusH})
	}
	return segs
}
