package slo

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/tailbound/tailbound/lp"
)

// What the pure-Go side hands the backend's integer program of an open
// component (solveIP), so that a MIP solver (CBC under -tags coin) starts
// from what the search has learned rather than from the pair formulation
// alone:
//
//   - Cuts, as extra rows Σ_{n∈c} y_n ≤ r_c: the extended cover and
//     cardinality inequalities the branch and bound separated at the root
//     (cuts.go: each holds at every integer point of the component's
//     program, so the rows remove no schedule), those with a positive
//     Lagrangian multiplier first, up to cutRows rows and cutNonZeros
//     entries; when the search did not run, the covers the plain LP
//     point violates.
//   - A MIP start (lp.Options.Start): the best schedule found so far (the
//     greedy stages, the large-neighbourhood search and the branch and
//     bound), which the backend may take as its first incumbent.
//   - Its bound (lp.Solution.Bound): the backend's best bound on
//     −(pairs served), certified by certifiedServed.

// cutRows and cutNonZeros bound the cut rows handed to a backend and
// their entries. More rows make every LP of the backend's search slower:
// on the 10^4-turn birth–death instance of docs/tail-bounds.md (3,455
// pairs, 3,993 rows) CBC's root with the 1,108 cuts of a 40 s search took
// 40 s at load 28, and with the 7,228 of a 600 s search did not finish in
// 193 s.
const (
	cutRows     = 1000
	cutNonZeros = 200_000
)

// learn records the cut pool of component c's search and its best
// multipliers (mu, one per cut; nil: none), for solveIP.
func (pr *problem) learn(c int, cuts []cut, mu []int64) {
	if len(cuts) == 0 {
		return
	}
	order := make([]int, len(cuts))
	for i := range order {
		order[i] = i
	}
	weight := func(i int) int64 {
		if i < len(mu) {
			return mu[i]
		}
		return 0
	}
	slices.SortStableFunc(order, func(a, b int) int {
		wa, wb := weight(a), weight(b)
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return 0
	})
	out := make([]cut, 0, len(cuts))
	nz := 0
	for _, i := range order {
		if nz += len(cuts[i].items); nz > cutNonZeros || len(out) == cutRows {
			break
		}
		out = append(out, cuts[i])
	}
	if pr.learned == nil {
		pr.learned = map[int][]cut{}
	}
	pr.learned[c] = out
}

// cutsFor returns the cuts to add to component c's program (members: its
// candidates; the cuts' items are positions in members): those learned by
// its search, else the extended covers its plain LP point violates.
func (pr *problem) cutsFor(ctx context.Context, c int, members []int) []cut {
	if cs := pr.learned[c]; len(cs) > 0 {
		return cs
	}
	m := pr.newComponent(members)
	P := wholeShares(len(members))
	_, y, err := m.flowBound(ctx, P, new(big.Int), nil)
	if err != nil {
		return nil // no cuts: the program is valid without them
	}
	return m.separate(y, 1e-3)
}

// startOf is the 0/1 point of served on members, as a MIP start.
func startOf(members []int, served []bool) []float64 {
	x := make([]float64, len(members))
	for j, i := range members {
		if served[i] {
			x[j] = 1
		}
	}
	return x
}

// Tolerances of a backend's bound (certifiedServed). A MIP solver's bound
// comes from LP solves in floating point: at a dual infeasibility of at
// most ipDualTol per column (CLP's default dual tolerance is 10^−7) and
// columns in [0, 1], the LP value it reports can exceed the true bound by
// up to ipDualTol per column; ipRelTol allows for the rounding of the sum
// itself. Both are far below the 1 pair the floor discards.
const (
	ipDualTol = 1e-7
	ipRelTol  = 1e-6
)

// certifiedServed returns, from a backend's bound on the program's
// objective −Σ y_n over n columns, a certified upper bound on the pairs
// served: ⌊−Bound + tol⌋ with tol = ipRelTol·(1 + |Bound|) + ipDualTol·n
// (the objective is a whole number, so the floor loses nothing). ok is
// false when the backend reported no bound.
func certifiedServed(sol lp.Solution, n int) (int, bool) {
	if !sol.HasBound || math.IsNaN(sol.Bound) || math.IsInf(sol.Bound, 0) {
		return 0, false
	}
	tol := ipRelTol*(1+math.Abs(sol.Bound)) + ipDualTol*float64(n)
	ub := math.Floor(-sol.Bound + tol)
	if ub >= float64(n) {
		return n, true
	}
	return int(ub), true
}

// noteIP records, for the result's Detail, what the backend did with a
// component it did not close: its program's size, the schedule it
// started from (pairs), the bound after it and its own status text.
func (pr *problem) noteIP(name string, cols, rows, cuts, start, ub int, sol lp.Solution) {
	b := "no bound"
	if sol.HasBound {
		b = fmt.Sprintf("bound %.4g", sol.Bound)
	}
	pr.ipNotes = append(pr.ipNotes, fmt.Sprintf("%s on %d pairs, %d rows + %d cuts, started from %d pairs: %s, %d pairs served at most; %s",
		name, cols, rows, cuts, start, b, ub, sol.Detail))
}
