package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/tailbound/tailbound/lp/mcf"
)

// Lagrangian bound with cuts. For cuts c (Σ_{n∈c} y_n ≤ r_c, valid at
// every integer point: cuts.go) and multipliers μ_c ≥ 0, every integer
// point y of a component satisfies
//
//	Σ_n y_n ≤ Σ_n y_n + Σ_c μ_c (r_c − Σ_{n∈c} y_n) = Σ_c μ_c r_c + Σ_n p_n y_n,
//
// p_n = 1 − Σ_{c∋n} μ_c, so the most pairs served is at most
// Σ_c μ_c r_c + max{Σ_n p_n y_n : y in the LP relaxation}, and the LP is
// the min-cost flow of lpBound with pair n's arc costing p_n/d_n per block
// (pairs with p_n ≤ 0 are left out: y_n = 0 is optimal for them). Every
// μ ≥ 0 gives a valid bound; the subgradient method only looks for a low
// one. With μ = 0 it is the plain LP bound.
//
// Exactness: multipliers are kept as whole multiples of 2^−muBits, so
// p_n = P_n/2^muBits with P_n a whole number; the flow's weight per block
// is w_n = ⌊P_n·2^(S−muBits)/d_n⌋, so the true weight p_n/d_n lies in
// [w_n, w_n+1)·2^−S, and for the LP optimum f* (blocks per arc)
// Σ p_n f*_n/d_n < (Σ w_n f*_n + Σ d_n)·2^−S ≤ (W + Σ d_n)·2^−S, W the
// min-cost flow's optimum for the weights w. The bound is computed in
// whole numbers and floored, as lpBound's: never below the true one.

// muBits is the number of binary digits of the multipliers' fractions.
const muBits = 16

// wholeShares returns n shares of one whole pair each (2^muBits): every
// pair's profit left where it is, the split the stretches start from.
func wholeShares(n int) []int64 {
	P := make([]int64, n)
	for i := range P {
		P[i] = 1 << muBits
	}
	return P
}

// bound is a certified upper bound on the pairs served in a component
// (or a node of its branch and bound): floor(num/2^S).
type bound struct {
	num *big.Int
	S   uint
}

// floor returns ⌊num/2^S⌋ (at most limit).
func (b bound) floor(limit int) int {
	q := new(big.Int).Rsh(b.num, b.S)
	if !q.IsInt64() || q.Int64() > int64(limit) {
		return limit
	}
	return int(q.Int64())
}

// value is num/2^S as a float, for reports and step sizes.
func (b bound) value() float64 {
	f, _ := new(big.Rat).SetFrac(b.num, new(big.Int).Lsh(big.NewInt(1), b.S)).Float64()
	return f
}

// errInfeasible says a node of the branch and bound has no feasible point.
var errInfeasible = errors.New("slo: no feasible point")

// residualCaps is each segment's capacity less the demands of the members
// fix marks 1 (fixed in; nil: none), blocks; errInfeasible when a segment
// goes below zero.
func (m *component) residualCaps(fix []int8) ([]int64, error) {
	caps := slices.Clone(m.segCap)
	if fix == nil {
		return caps, nil
	}
	diff := make([]int64, len(caps)+1)
	for i, f := range fix {
		if f == 1 {
			diff[m.lo[i]] += m.d[i]
			diff[m.hi[i]] -= m.d[i]
		}
	}
	var load int64
	for j := range caps {
		load += diff[j]
		caps[j] -= load
		if caps[j] < 0 {
			return nil, errInfeasible
		}
	}
	return caps, nil
}

// lineNetwork is the flow LP's line: node j per segment boundary, the
// capacity of segment j as the flow along arc j → j+1 (supplies carry its
// changes), to which each member adds its own arc.
func lineNetwork(caps []int64) *mcf.Network {
	g := mcf.NewNetwork(len(caps) + 1)
	var prev int64
	for j, c := range caps {
		g.AddSupply(j, c-prev)
		prev = c
		g.AddArc(j, j+1, c, 0)
	}
	g.AddSupply(len(caps), -prev)
	return g
}

// flowBound bounds Σ_c μ_c r_c + Σ_{fixed in} p_n + max Σ_{free} p_n y_n
// over the LP relaxation of the component with members fixed in
// (fix = 1) carried and those fixed out (fix = −1) not; P holds
// p_n·2^muBits per member and muR = Σ_c μ_c r_c·2^muBits. It returns the
// bound, the LP point y (fixed members at their value) and errInfeasible
// when the fixed-in members break a row.
func (m *component) flowBound(ctx context.Context, P []int64, muR *big.Int, fix []int8) (bound, []float64, error) {
	nseg := len(m.segCap)
	caps, err := m.residualCaps(fix)
	if err != nil {
		return bound{}, nil, err
	}
	fixedIn := new(big.Int).Set(muR)
	var in int64
	for i, f := range fix {
		if f == 1 {
			in += P[i]
		}
	}
	fixedIn.Add(fixedIn, big.NewInt(in))
	// S: costs up to 2^S per block on arcs of at most d blocks; path
	// sums and the total stay below 2^62 when 2^S·(nodes + members) does.
	S := uint(36)
	if b := uint(bits.Len(uint(len(m.ends) + len(m.members) + 1))); S+b > 60 {
		S = 60 - b
	}
	g := lineNetwork(caps)
	var arcs []int32
	var w []int64
	var sumD int64
	for i := range m.members {
		if P[i] <= 0 || fix != nil && fix[i] != 0 {
			continue
		}
		wi := (P[i] << (S - muBits)) / m.d[i]
		if wi <= 0 {
			continue // p_n/d_n < 2^−S: kept out; the bound adds d_n·2^−S for it
		}
		arcs = append(arcs, int32(i))
		w = append(w, wi)
		g.AddArc(int(m.lo[i]), int(m.hi[i]), m.d[i], -wi)
		sumD += m.d[i]
	}
	y := make([]float64, len(m.members))
	for i := range m.members {
		if fix != nil && fix[i] == 1 {
			y[i] = 1
		}
	}
	num := new(big.Int).Lsh(fixedIn, S-muBits)
	if len(arcs) > 0 {
		flow, _, err := g.Solve(ctx, mcf.NetworkSimplex)
		if err != nil {
			return bound{}, nil, fmt.Errorf("slo: Lagrangian flow: %w", err)
		}
		W := new(big.Int)
		var t big.Int
		for k, i := range arcs {
			f := flow[nseg+k]
			W.Add(W, t.Mul(big.NewInt(w[k]), big.NewInt(f)))
			y[i] = float64(f) / float64(m.d[i])
		}
		num.Add(num, W)
	}
	// The members left out for a tiny positive weight (wi = 0) could
	// add up to d_n·2^−S each; count them with the others.
	for i := range m.members {
		if P[i] > 0 && (fix == nil || fix[i] == 0) && (P[i]<<(S-muBits))/m.d[i] == 0 {
			sumD += m.d[i]
		}
	}
	num.Add(num, big.NewInt(sumD))
	return bound{num: num, S: S}, y, nil
}

// lagrangian is the state of the subgradient method on one component.
type lagrangian struct {
	m    *component
	pool *cutPool
	mu   []int64 // μ_c·2^muBits per cut of pool
}

// profits returns P_n = p_n·2^muBits per member and Σ μ_c r_c·2^muBits.
func (l *lagrangian) profits() ([]int64, *big.Int) {
	P := wholeShares(len(l.m.members))
	muR := new(big.Int)
	for c, mu := range l.mu {
		if mu == 0 {
			continue
		}
		ct := l.pool.cuts[c]
		muR.Add(muR, big.NewInt(mu*int64(ct.rhs)))
		for _, i := range ct.items {
			P[i] -= mu
		}
	}
	return P, muR
}

// lagrangeStats reports a run of the subgradient method.
type lagrangeStats struct {
	Iterations, Cuts int
	Root, Best       float64 // plain LP and best Lagrangian bound, pairs
}

// lagrangeBound runs the subgradient method on component m with cuts
// separated at the LP points it visits, until ctx is done (parent, which
// ctx derives from, bounds the root LP when ctx ends first), maxIter
// iterations or the bound's floor reaches incumbent (pairs served by a
// known schedule: no bound can go below it). It returns the best
// multipliers' state, the best certified bound and statistics.
func (m *component) lagrangeBound(ctx, parent context.Context, incumbent, maxIter int) (*lagrangian, bound, lagrangeStats, error) {
	l := &lagrangian{m: m, pool: newCutPool()}
	var st lagrangeStats
	P, muR := l.profits()
	b, y, err := m.flowBound(ctx, P, muR, nil)
	if err != nil && ctx.Err() != nil && parent.Err() == nil {
		// The subgradient's share of the time ran out before the root
		// LP: solve it with the whole time, without cuts.
		b, y, err = m.flowBound(parent, P, muR, nil)
	}
	if err != nil {
		return nil, bound{}, st, err
	}
	best, bestMu := b, []int64(nil)
	st.Root, st.Best = b.value(), b.value()
	theta := 1.0
	stall := 0
	mu := make([]float64, 0)
	for it := 0; it < maxIter && ctx.Err() == nil && best.floor(len(m.members)) > incumbent; it++ {
		st.Iterations++
		if it%5 == 0 {
			if n := l.pool.add(m.separate(y, 1e-3)); n > 0 {
				l.mu = append(l.mu, make([]int64, n)...)
				mu = append(mu, make([]float64, n)...)
			}
		}
		// Subgradient of the bound in μ: r_c − Σ_{n∈c} y_n.
		g := make([]float64, len(l.pool.cuts))
		var norm float64
		for c, ct := range l.pool.cuts {
			s := float64(ct.rhs)
			for _, i := range ct.items {
				s -= y[i]
			}
			if mu[c] <= 0 && s > 0 {
				s = 0 // projected: μ_c stays at 0
			}
			g[c] = s
			norm += s * s
		}
		if norm < 1e-12 {
			break
		}
		// Polyak's step towards a target just under the next whole
		// number of pairs (what the floor needs), never under a known
		// schedule's count.
		target := max(float64(incumbent), math.Floor(best.value())-0.05)
		step := theta * max(b.value()-target, 0.05) / norm
		for c := range mu {
			mu[c] = max(0, mu[c]-step*g[c])
			l.mu[c] = int64(math.Round(mu[c] * (1 << muBits)))
		}
		P, muR = l.profits()
		b, y, err = m.flowBound(ctx, P, muR, nil)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, bound{}, st, err
		}
		if b.num.Cmp(best.num) < 0 { // same S: it depends on m's sizes only
			best, bestMu = b, append(bestMu[:0], l.mu...)
			stall = 0
		} else if stall++; stall >= 4 {
			theta /= 2
			stall = 0
		}
	}
	l.mu = make([]int64, len(l.pool.cuts))
	copy(l.mu, bestMu)
	st.Cuts, st.Best = len(l.pool.cuts), best.value()
	return l, best, st, nil
}
