package slo

import (
	"slices"

	"github.com/tailbound/tailbound/lp"
)

// Dominance among the pairs of a component (or of a wide window): pair a
// dominates pair b when d_a ≤ d_b and a's span lies inside b's, ties
// (equal demand and span) broken by the lower index. Some optimum serves a
// whenever it serves b: see wideSolver (window_wide.go) for the exchange
// argument.

// dominates reports whether a dominates b in m (see wideSolver).
func (m *component) dominates(a, b int) bool { return m.dominatesBy(nil, a, b) }

// dominatesBy is dominates where member i is worth P[i] (nil: all worth
// the same): a dominates b when, besides demand and span, P[a] ≥ P[b],
// ties in all three broken by the lower index. Serving a in place of b
// then never lowers the value either, so the exchange argument of
// wideSolver holds for the weighted program (stretchflow.go) as it is.
func (m *component) dominatesBy(P []int64, a, b int) bool {
	if a == b || m.d[a] > m.d[b] || m.lo[a] < m.lo[b] || m.hi[a] > m.hi[b] || P != nil && P[a] < P[b] {
		return false
	}
	if m.d[a] < m.d[b] || m.lo[a] > m.lo[b] || m.hi[a] < m.hi[b] || P != nil && P[a] > P[b] {
		return true
	}
	return a < b
}

// dominance returns, per member, the members it dominates and those
// dominating it, and the number of relations.
func (m *component) dominance() (dominate, domBy [][]int32, n int) { return m.dominanceBy(nil) }

// dominanceBy is dominance by dominatesBy(P, ·, ·).
func (m *component) dominanceBy(P []int64) (dominate, domBy [][]int32, n int) {
	k := len(m.d)
	dominate = make([][]int32, k)
	domBy = make([][]int32, k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if m.dominatesBy(P, a, b) {
				dominate[a] = append(dominate[a], int32(b))
				domBy[b] = append(domBy[b], int32(a))
				n++
			}
		}
	}
	return dominate, domBy, n
}

// Dominance is one relation of EnumerateDominance, stated on turns: some
// optimal schedule in which the Free turns meet the SLO meets it at turn A
// whenever it meets it at turn B.
type Dominance struct {
	A, B int
}

// EnumerateDominance returns the free turns (as CutSet.Free) and every
// dominance relation among the pairs of each component of in at SLO s
// (tokens), for checking against exhaustive search that imposing them
// all keeps an optimum.
func EnumerateDominance(in *lp.Instance, s int64) (free []int, rel []Dominance) {
	pr := reduce(in, s)
	for n, ok := range pr.meets {
		if ok {
			free = append(free, n)
		}
	}
	for _, mem := range pr.members() {
		m := pr.newComponent(mem)
		dominate, _, _ := m.dominance()
		for a, bs := range dominate {
			for _, b := range bs {
				rel = append(rel, Dominance{A: pr.cands[m.members[a]].n, B: pr.cands[m.members[b]].n})
			}
		}
	}
	slices.SortFunc(rel, func(x, y Dominance) int {
		if x.A != y.A {
			return x.A - y.A
		}
		return x.B - y.B
	})
	return free, rel
}
