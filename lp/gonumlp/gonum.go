// Package gonumlp is the pure-Go backend of package lp: linear programs
// by a dense two-phase simplex with Bland's rule (simplex.go; it replaced
// gonum's lp.Simplex, which could cycle and took no context) over gonum
// matrices, and integer programs by branch and bound over them, for small
// problems. lp/coin holds the COIN-OR backends.
package gonumlp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/tailbound/tailbound/lp"
)

// Backend solves lp.Problems in pure Go with a dense tableau simplex
// (Bland's rule, so it cannot cycle; it checks the context every 16
// pivots and stops after 50·(rows + columns) pivots with
// lp.IterationLimit), and integer programs by a depth-first branch and
// bound over its LP relaxations. A solve ends within its time limit plus
// the time of 16 pivots (O(rows·columns) each: milliseconds at the size
// limits below).
//
// The simplex works on a dense m×n standard-form tableau, so it suits
// small problems only: Solve
// refuses, with status lp.TooLarge, a problem whose standard form has more
// than MaxRows rows or more than MaxCells matrix entries. The standard form
// has one row per finite row bound (an equality row becomes two, so that
// every row has its own slack and the matrix has full row rank, which gonum
// requires) and one per finite column upper bound.
//
// Branch and bound: depth first, branching on the most fractional integer
// column (down branch first), pruning nodes whose LP bound is not below the
// incumbent by more than 1e-9·max(1, |incumbent|). It stops after MaxNodes
// LP solves (status lp.IterationLimit) or at the time limit (lp.TimeLimit), with
// the best integer point found, if any. Integrality tolerance:
// lp.IntegralityTol.
//
// Magnitudes: Solve refuses, with status lp.TooLarge and the value found,
// a problem with any finite coefficient, bound or right-hand side above
// MaxMagnitude in absolute value. The guard was measured with gonum's
// simplex, whose first basis became numerically singular when entries
// near 1 met right-hand sides near 2^26; the tableau simplex that replaced
// it is no better conditioned, so the guard stays. An optimal answer is in
// any case checked (verify) before it is reported, so that one computed
// from an ill-conditioned tableau is lp.Numerical, never a number.
type Backend struct {
	// MaxRows and MaxCells bound the standard form (0: DefaultMaxRows
	// and DefaultMaxCells).
	MaxRows, MaxCells int
	// MaxMagnitude bounds the absolute value of every finite number of
	// the problem (0: DefaultMaxMagnitude).
	MaxMagnitude float64
	// MaxNodes bounds branch-and-bound LP solves (0: DefaultMaxNodes).
	MaxNodes int
}

// Limits of the gonum backend, measured on this project's 2-core machine:
// a compact-formulation LP at the row limit solves in about a second.
const (
	DefaultMaxRows  = 400
	DefaultMaxCells = 400 * 1200
	DefaultMaxNodes = 20000
	// DefaultMaxMagnitude is 2^24: on the example trace (prompts of 100
	// tokens, B = 1) gonum solves a capacity of 2^24 blocks and fails from
	// 2^26 on, with basis condition numbers above 10^16.
	DefaultMaxMagnitude = 1 << 24
)

// Name returns "gonum".
func (Backend) Name() string { return "gonum" }

// Solve solves p (its LP relaxation when opt.Relax or p has no integer
// columns).
func (g Backend) Solve(ctx context.Context, p *lp.Problem, opt lp.Options) (lp.Solution, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return lp.Solution{}, err
	}
	sf, err := toStandard(p)
	if err != nil {
		return lp.Solution{}, err
	}
	if ok, why := g.Fits(p); !ok {
		return lp.Solution{Status: lp.TooLarge, Time: time.Since(start), Detail: why}, nil
	}
	ctx, cancel := opt.Bound(ctx)
	defer cancel()
	var sol lp.Solution
	if opt.Relax || !p.HasIntegers() {
		sol = sf.solve(ctx, p.ColLo, p.ColUp)
		sol.Iterations = 1
	} else {
		sol = g.branchAndBound(ctx, p, sf)
	}
	sol.Time = time.Since(start)
	return sol, nil
}

// Fits reports whether p is within the backend's size limits, and if not
// why, with the sizes.
func (g Backend) Fits(p *lp.Problem) (bool, string) {
	sf := &standard{p: p}
	maxRows, maxCells := orDefault(g.MaxRows, DefaultMaxRows), orDefault(g.MaxCells, DefaultMaxCells)
	if sf.rows() > maxRows || sf.rows()*sf.cols() > maxCells {
		return false, fmt.Sprintf("gonum's dense simplex handles standard forms up to %d rows and %d entries; this one is %d×%d (use --solver flow, or clp/cbc built with -tags coin)",
			maxRows, maxCells, sf.rows(), sf.cols())
	}
	maxMag := g.MaxMagnitude
	if maxMag <= 0 {
		maxMag = DefaultMaxMagnitude
	}
	if what, v := largest(p); v > maxMag {
		return false, fmt.Sprintf("gonum's dense simplex handles numbers up to %g in magnitude; this problem has %s %g (use --solver flow, or clp/cbc built with -tags coin)",
			maxMag, what, v)
	}
	return true, ""
}

// largest returns the largest finite absolute value among p's objective,
// matrix, column bounds and row bounds, and which of those holds it.
func largest(p *lp.Problem) (string, float64) {
	what, best := "", 0.0
	scan := func(name string, vs []float64) {
		for _, v := range vs {
			if a := math.Abs(v); !math.IsInf(a, 0) && a > best {
				what, best = name, a
			}
		}
	}
	scan("an objective coefficient", p.Obj)
	scan("a matrix entry", p.Value)
	scan("a column bound", p.ColLo)
	scan("a column bound", p.ColUp)
	scan("a row bound", p.RowLo)
	scan("a row bound", p.RowUp)
	return what, best
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// standard is a lp.Problem in gonum's standard form min c·y, A y = b, y ≥ 0,
// for given column bounds: x_j = lo_j + y_j for finite lo_j, x_j = up_j − y_j
// when only up_j is finite, x_j = y_j⁺ − y_j⁻ when free. The structure
// (which rows and columns exist) depends only on which bounds are finite,
// so branch and bound reuses it and only changes right-hand sides.
type standard struct {
	p *lp.Problem
}

func toStandard(p *lp.Problem) (*standard, error) { return &standard{p: p}, nil }

func (s *standard) rows() int {
	r := 0
	for i := 0; i < s.p.NumRows; i++ {
		if !math.IsInf(s.p.RowLo[i], 0) {
			r++
		}
		if !math.IsInf(s.p.RowUp[i], 0) {
			r++
		}
	}
	for j := 0; j < s.p.NumCols; j++ {
		if !math.IsInf(s.p.ColLo[j], 0) && !math.IsInf(s.p.ColUp[j], 0) {
			r++
		}
	}
	return r
}

func (s *standard) cols() int { return 2*s.p.NumCols + s.rows() }

// solve solves the LP with column bounds lo, up.
func (s *standard) solve(ctx context.Context, lo, up []float64) lp.Solution {
	p := s.p
	n := p.NumCols
	for j := 0; j < n; j++ {
		if lo[j] > up[j] {
			return lp.Solution{Status: lp.Infeasible, Detail: fmt.Sprintf("column %d bounds [%v, %v]", j, lo[j], up[j])}
		}
	}
	// Column maps: x_j = off_j + sign_j·y_{a_j} (− y_{b_j} when free).
	type colMap struct {
		fixed      bool
		off, sign  float64
		a, b, brow int
	}
	cm := make([]colMap, n)
	ny := 0
	for j := 0; j < n; j++ {
		l, u := lo[j], up[j]
		switch {
		case l == u:
			cm[j] = colMap{fixed: true, off: l, a: -1, b: -1, brow: -1}
		case !math.IsInf(l, 0):
			cm[j] = colMap{off: l, sign: 1, a: ny, b: -1, brow: -1}
			ny++
		case !math.IsInf(u, 0):
			cm[j] = colMap{off: u, sign: -1, a: ny, b: -1, brow: -1}
			ny++
		default:
			cm[j] = colMap{sign: 1, a: ny, b: ny + 1, brow: -1}
			ny += 2
		}
	}
	// Row activity offset from fixed parts, per row.
	off := make([]float64, p.NumRows)
	nzRow := make([]bool, p.NumRows)
	for j := 0; j < n; j++ {
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			off[p.RowIndex[k]] += p.Value[k] * cm[j].off
			if !cm[j].fixed && p.Value[k] != 0 {
				nzRow[p.RowIndex[k]] = true
			}
		}
	}
	// Standard rows: (row i, side) with slack; bound rows for finite ranges.
	type srow struct {
		i    int     // problem row, or -1 for a column bound row
		j    int     // column of a bound row
		sgn  float64 // +1: a·y + s = rhs; −1: a·y − s = rhs
		rhs  float64
		slck int
	}
	var srows []srow
	const feasTol = 1e-9
	for i := 0; i < p.NumRows; i++ {
		if !nzRow[i] { // constant row: check it and drop it
			if off[i] < p.RowLo[i]-feasTol*(1+math.Abs(p.RowLo[i])) || off[i] > p.RowUp[i]+feasTol*(1+math.Abs(p.RowUp[i])) {
				return lp.Solution{Status: lp.Infeasible, Detail: fmt.Sprintf("row %d is constant %v outside [%v, %v]", i, off[i], p.RowLo[i], p.RowUp[i])}
			}
			continue
		}
		if !math.IsInf(p.RowUp[i], 0) {
			srows = append(srows, srow{i: i, sgn: 1, rhs: p.RowUp[i] - off[i]})
		}
		if !math.IsInf(p.RowLo[i], 0) {
			srows = append(srows, srow{i: i, sgn: -1, rhs: p.RowLo[i] - off[i]})
		}
	}
	for j := 0; j < n; j++ {
		if !cm[j].fixed && !math.IsInf(lo[j], 0) && !math.IsInf(up[j], 0) {
			cm[j].brow = len(srows)
			srows = append(srows, srow{i: -1, j: j, sgn: 1, rhs: up[j] - lo[j]})
		}
	}
	m := len(srows)
	nc := ny + m
	c := make([]float64, nc)
	objOff := 0.0
	for j := 0; j < n; j++ {
		objOff += p.Obj[j] * cm[j].off
		if cm[j].fixed {
			continue
		}
		c[cm[j].a] += p.Obj[j] * cm[j].sign
		if cm[j].b >= 0 {
			c[cm[j].b] -= p.Obj[j]
		}
	}
	if m == 0 { // no rows: each y at 0 unless its cost is negative
		for j := 0; j < ny; j++ {
			if c[j] < 0 {
				return lp.Solution{Status: lp.Unbounded, Detail: "a column with negative cost has no bound"}
			}
		}
		return lp.Solution{Status: lp.Optimal, Obj: objOff, X: colValues(n, func(j int) float64 { return cm[j].off })}
	}
	A := mat.NewDense(m, nc, nil)
	b := make([]float64, m)
	rowOf := make(map[int][]int) // problem row → standard rows
	for r, sr := range srows {
		b[r] = sr.rhs
		A.Set(r, ny+r, sr.sgn)
		if sr.i >= 0 {
			rowOf[sr.i] = append(rowOf[sr.i], r)
		} else {
			A.Set(r, cm[sr.j].a, 1)
		}
	}
	used := make([]bool, ny)
	for j := 0; j < n; j++ {
		if cm[j].fixed {
			continue
		}
		if cm[j].brow >= 0 {
			used[cm[j].a] = true
		}
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			for _, r := range rowOf[p.RowIndex[k]] {
				A.Set(r, cm[j].a, A.At(r, cm[j].a)+p.Value[k]*cm[j].sign)
				used[cm[j].a] = used[cm[j].a] || p.Value[k] != 0
				if cm[j].b >= 0 {
					A.Set(r, cm[j].b, A.At(r, cm[j].b)-p.Value[k])
					used[cm[j].b] = used[cm[j].b] || p.Value[k] != 0
				}
			}
		}
	}
	// gonum refuses all-zero columns: a y with no row stays at 0 unless
	// its cost is negative (unbounded); give it a zero cost and a tiny
	// harmless presence by dropping it from the matrix instead.
	keep := make([]int, 0, nc)
	for j := 0; j < nc; j++ {
		if j >= ny || used[j] {
			keep = append(keep, j)
		} else if c[j] < 0 {
			return lp.Solution{Status: lp.Unbounded, Detail: "a column with negative cost has no bound"}
		}
	}
	Ak := mat.NewDense(m, len(keep), nil)
	ck := make([]float64, len(keep))
	for jj, j := range keep {
		ck[jj] = c[j]
		for r := 0; r < m; r++ {
			Ak.Set(r, jj, A.At(r, j))
		}
	}
	f, yk, err := simplex(ctx, ck, Ak, b)
	if err != nil {
		switch {
		case errors.Is(err, errInfeasible):
			return lp.Solution{Status: lp.Infeasible, Detail: simplexError(err)}
		case errors.Is(err, errUnbounded):
			return lp.Solution{Status: lp.Unbounded, Detail: simplexError(err)}
		case errors.Is(err, errIterationLimit):
			return lp.Solution{Status: lp.IterationLimit, Obj: math.NaN(), Detail: simplexError(err)}
		case ctx.Err() != nil:
			return lp.Solution{Status: lp.TimeLimit, Obj: math.NaN(), Detail: simplexError(err)}
		}
		return lp.Solution{Status: lp.Numerical, Detail: simplexError(err)}
	}
	y := make([]float64, nc)
	for jj, j := range keep {
		y[j] = yk[jj]
	}
	x := colValues(n, func(j int) float64 {
		v := cm[j].off
		if !cm[j].fixed {
			v += cm[j].sign * y[cm[j].a]
			if cm[j].b >= 0 {
				v -= y[cm[j].b]
			}
		}
		return v
	})
	if err := verify(p, lo, up, x, f+objOff); err != nil {
		return lp.Solution{Status: lp.Numerical, Detail: "the simplex's answer fails its check (" + err.Error() + ")"}
	}
	return lp.Solution{Status: lp.Optimal, Obj: f + objOff, X: x, Detail: "pure-Go simplex (Bland's rule)"}
}

func colValues(n int, f func(int) float64) []float64 {
	x := make([]float64, n)
	for j := range x {
		x[j] = f(j)
	}
	return x
}

// branchAndBound solves the integer program by depth-first branch and bound.
func (g Backend) branchAndBound(ctx context.Context, p *lp.Problem, s *standard) lp.Solution {
	maxNodes := orDefault(g.MaxNodes, DefaultMaxNodes)
	type node struct{ lo, up []float64 }
	stack := []node{{append([]float64(nil), p.ColLo...), append([]float64(nil), p.ColUp...)}}
	best := lp.Solution{Status: lp.Infeasible, Obj: math.Inf(1)}
	nodes := 0
	sawUnbounded := false
	for len(stack) > 0 {
		if ctx.Err() != nil || nodes >= maxNodes {
			st, why := lp.TimeLimit, "time limit"
			if ctx.Err() == nil {
				st, why = lp.IterationLimit, fmt.Sprintf("node limit %d", maxNodes)
			}
			best.Status = st
			best.Detail = fmt.Sprintf("branch and bound stopped at the %s after %d LP solves; best integer point %v", why, nodes, best.X != nil)
			best.Iterations = nodes
			if best.X == nil {
				best.Obj = math.NaN()
			}
			return best
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		sol := s.solve(ctx, nd.lo, nd.up)
		switch sol.Status {
		case lp.Infeasible:
			continue
		case lp.Unbounded:
			sawUnbounded = true
			continue
		case lp.Optimal:
		default:
			sol.Iterations = nodes
			return sol
		}
		if sol.Obj >= best.Obj-1e-9*math.Max(1, math.Abs(best.Obj)) {
			continue
		}
		branch, frac := -1, 0.0
		for j, isInt := range p.Integer {
			if !isInt {
				continue
			}
			f := math.Abs(sol.X[j] - math.Round(sol.X[j]))
			if f > lp.IntegralityTol && f > frac {
				branch, frac = j, f
			}
		}
		if branch < 0 {
			best = sol
			best.Status = lp.Optimal
			continue
		}
		v := sol.X[branch]
		upLo := append([]float64(nil), nd.lo...)
		upLo[branch] = math.Ceil(v)
		downUp := append([]float64(nil), nd.up...)
		downUp[branch] = math.Floor(v)
		stack = append(stack, node{upLo, nd.up}, node{nd.lo, downUp})
	}
	best.Iterations = nodes
	if best.X == nil {
		best.Obj = math.NaN()
		if sawUnbounded {
			best.Status = lp.Unbounded
			best.Detail = "an LP relaxation is unbounded and no integer point was found"
		} else {
			best.Detail = "no integer point"
		}
		return best
	}
	best.Detail = fmt.Sprintf("gonum branch and bound, %d LP solves", nodes)
	return best
}
