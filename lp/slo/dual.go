package slo

import (
	"math/big"
	"math/bits"
	"slices"
)

// dualBound returns, per component, a certified upper bound on the pairs
// served (in any schedule, and in the LP relaxation) from node prices pi
// of lpBound's network (cost units 2^−S pair per block, one per node
// 0..K; any integers) by weak duality, and the same bounds unfloored
// (pairs, for reports).
//
// The LP of a component c is max Σ_{n∈c} y_n over 0 ≤ y ≤ 1 with
// Σ_{n∈c spanning t} d_n y_n ≤ cap_t at every step t its pairs span
// (dropping the other components' pairs only loosens the rows). For any
// u ≥ 0 (a price per block at each step) its dual gives
//
//	Σ_n y_n ≤ Σ_{t ∈ steps(c)} cap_t u_t + Σ_{n∈c} max(0, 1 − d_n U_n),
//
// U_n = Σ_{t=a_n}^{n−1} u_t: add u_t times each row to Σ y_n, and each
// pair's coefficient 1 − d_n U_n is at most its positive part while
// y_n ≤ 1. The bound holds for every u ≥ 0, so it needs no optimality of
// pi and no rounding analysis: here u_t = min(max(0, π_t − π_{t+1}), 2^S)
// in units of 2^−S (the line arc t→t+1's reduced cost, which at the
// min-cost flow's optimal prices is the step's LP dual for the costs
// ⌊2^S/d_n⌋; capping at 1 pair per block only lowers the bound, since a
// pair spanning such a step has d_n U_n ≥ 1 either way). Every sum is
// exact: 2^S times the bound is an integer, computed in 128 bits.
//
// Weighted (pr.wt set, WeightedLower), the objective is Σ ω_n y_n with
// ω_n = wt_n/den, and the same argument gives
//
//	Σ_n wt_n y_n ≤ den·Σ_t cap_t u_t + Σ_n max(0, wt_n − den·d_n U_n),
//
// in units of wt (ub and frac are then sums of wt_n, not pairs): 2^S
// times it is again an integer, wt_n·2^S < 2^61 and den·Σ cap_t u_t <
// 2^20·2^104 stay inside 128 bits. A component's served weight in a
// schedule is a sum of its wt_n, so its bound is floored to a multiple of
// their greatest common divisor g (with every wt_n = den the count's
// bound times den, exactly); it is capped at Σ wt_n as the count is at
// the pairs.
func (pr *problem) dualBound(pi []int64, S int) (ub []int, frac []float64) {
	K := pr.in.K()
	one := uint64(1) << S
	den := uint64(1)
	if pr.wt != nil {
		den = uint64(pr.den)
	}
	spanSum := func(x u128) u128 { // den·Σ cap_t u_t over a run of steps
		if den == 1 {
			return x
		}
		return x.mul64(den)
	}
	// Prefix sums of u_t and of cap_t·u_t.
	pu := make([]u128, K+1)
	pcu := make([]u128, K+1)
	for t := 0; t < K; t++ {
		u := uint64(0)
		if d := pi[t] - pi[t+1]; d > 0 {
			u = min(uint64(d), one)
		}
		pu[t+1] = pu[t].add(u128{lo: u})
		hi, lo := bits.Mul64(uint64(max(pr.cap[t], 0)), u)
		pcu[t+1] = pcu[t].add(u128{hi, lo})
	}
	// Per component: its pairs by start, their spans merged.
	order := make([]int, len(pr.cands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		if pr.comp[i] != pr.comp[j] {
			return pr.comp[i] - pr.comp[j]
		}
		return pr.cands[i].a - pr.cands[j].a
	})
	tot := make([]u128, pr.ncomp)
	size, g := pr.limits()
	for k := 0; k < len(order); {
		c := pr.comp[order[k]]
		lo, hi := pr.cands[order[k]].a, pr.cands[order[k]].n
		for ; k < len(order) && pr.comp[order[k]] == c; k++ {
			p := pr.cands[order[k]]
			if p.a > hi {
				tot[c] = tot[c].add(spanSum(pcu[hi].sub(pcu[lo])))
				lo, hi = p.a, p.n
			} else {
				hi = max(hi, p.n)
			}
			// the pair's term 2^S·max(0, 1 − d·U): U < 2^S/d < 2^S
			// (weighted: 2^S·max(0, wt − den·d·U), wt ≤ den)
			U := pu[p.n].sub(pu[p.a])
			if U.hi == 0 && U.lo < one {
				q := one
				if pr.wt != nil {
					q = uint64(pr.wt[p.n]) << S
				}
				if h, l := bits.Mul64(uint64(p.d), U.lo); h == 0 {
					if h, l := bits.Mul64(den, l); h == 0 && l < q {
						tot[c] = tot[c].add(u128{lo: q - l})
					}
				}
			}
		}
		tot[c] = tot[c].add(spanSum(pcu[hi].sub(pcu[lo])))
	}
	ub = make([]int, pr.ncomp)
	frac = make([]float64, pr.ncomp)
	for c := range ub {
		q := tot[c].shr(S)
		if q.hi == 0 && q.lo < uint64(size[c]) {
			ub[c] = int(q.lo) / g[c] * g[c]
		} else {
			ub[c] = size[c]
		}
		v, _ := new(big.Rat).SetFrac(tot[c].big(), new(big.Int).Lsh(big.NewInt(1), uint(S))).Float64()
		frac[c] = min(v, float64(size[c]))
	}
	return ub, frac
}

// u128 is an unsigned 128-bit integer (hi·2^64 + lo); dualBound's sums
// stay far inside it (at most K·2^S·max cap_t < 2^24·2^40·2^40).
type u128 struct{ hi, lo uint64 }

func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

// mul64 is x·y, which the caller keeps below 2^128.
func (x u128) mul64(y uint64) u128 {
	hi, lo := bits.Mul64(x.lo, y)
	return u128{x.hi*y + hi, lo}
}

// sub is x − y for y ≤ x.
func (x u128) sub(y u128) u128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, b)
	return u128{hi, lo}
}

// shr is x >> s for 0 < s < 64.
func (x u128) shr(s int) u128 {
	return u128{x.hi >> s, x.lo>>s | x.hi<<(64-s)}
}

func (x u128) big() *big.Int {
	v := new(big.Int).SetUint64(x.hi)
	v.Lsh(v, 64)
	return v.Or(v, new(big.Int).SetUint64(x.lo))
}
