package gonumlp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Why not gonum's lp.Simplex: it takes no context and has no iteration
// limit, and its degenerate-pivot rule, though called Bland's, ranks the
// entering and leaving candidates by their position in arrays that every
// pivot permutes, not by variable index, so it is not Bland's rule and can
// cycle: issue 35's six-request block trace (b6) spun in it for ever under
// 'solve --level block', ignoring --time-limit. This file is a two-phase
// dense tableau simplex with Bland's rule proper, which cannot cycle
// (Bland 1977) — and, against floating-point ties, an iteration limit and
// the context checked every pivot.

// Errors of simplex.
var (
	errInfeasible     = errors.New("simplex: infeasible")
	errUnbounded      = errors.New("simplex: unbounded")
	errIterationLimit = errors.New("simplex: iteration limit")
)

// pivotTol is the smallest magnitude of a pivot element, and of a
// reduced cost that counts as negative; feasTol the phase-1 objective
// above which the problem is infeasible. Both are relative to the
// problem's scale (the guard of Fits keeps entries within 2^24).
const (
	pivotTol = 1e-9
	feasTol  = 1e-7
)

// maxPivots returns the iteration limit for an m×n standard form:
// Bland's rule cannot cycle, so the limit is only against floating-point
// ties; 50·(m + n) pivots is far beyond what the backend's problems take
// (a few times m).
func maxPivots(m, n int) int { return 50 * (m + n) }

// simplex minimizes c·y subject to A y = b, y ≥ 0 by the two-phase
// tableau method with Bland's rule (entering: the least-index column with
// a negative reduced cost; leaving: among the rows of least ratio, the
// one whose basic variable has the least index). It returns the optimum
// and a point, or errInfeasible, errUnbounded, errIterationLimit or ctx's
// error.
func simplex(ctx context.Context, c []float64, A *mat.Dense, b []float64) (float64, []float64, error) {
	m, n := A.Dims()
	// Tableau: rows 0..m−1 the constraints over columns 0..n−1 (y) and
	// n..n+m−1 (artificials), column w = n+m the right-hand side; row m
	// the objective's reduced costs.
	w := n + m
	T := make([][]float64, m+1)
	for i := range T {
		T[i] = make([]float64, w+1)
	}
	basis := make([]int, m)
	for i := 0; i < m; i++ {
		sgn := 1.0
		if b[i] < 0 {
			sgn = -1
		}
		for j := 0; j < n; j++ {
			T[i][j] = sgn * A.At(i, j)
		}
		T[i][n+i] = 1
		T[i][w] = sgn * b[i]
		basis[i] = n + i
	}
	limit := maxPivots(m, n)
	pivots := 0
	// run pivots until optimal for the objective row obj over the
	// columns < allowed.
	run := func(allowed int) error {
		obj := T[m]
		for {
			if pivots&15 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			e := -1
			for j := 0; j < allowed; j++ {
				if obj[j] < -pivotTol {
					e = j
					break
				}
			}
			if e < 0 {
				return nil
			}
			r := -1
			best := math.Inf(1)
			for i := 0; i < m; i++ {
				a := T[i][e]
				if a <= pivotTol {
					continue
				}
				ratio := max(T[i][w], 0) / a
				eps := 1e-12 * max(1, math.Abs(best))
				switch {
				case r < 0 || ratio < best-eps:
					r, best = i, ratio
				case ratio <= best+eps && basis[i] < basis[r]:
					r, best = i, min(best, ratio)
				}
			}
			if r < 0 {
				return errUnbounded
			}
			if pivots++; pivots > limit {
				return errIterationLimit
			}
			pivot(T, r, e)
			basis[r] = e
		}
	}
	// Phase 1: minimize the sum of the artificials; reduced costs are
	// −(column sums over the rows).
	for j := 0; j <= w; j++ {
		if j >= n && j < w {
			continue
		}
		s := 0.0
		for i := 0; i < m; i++ {
			s += T[i][j]
		}
		T[m][j] = -s
	}
	if err := run(w); err != nil {
		return 0, nil, err
	}
	scale := 1.0
	for i := 0; i < m; i++ {
		scale = max(scale, math.Abs(b[i]))
	}
	if -T[m][w] > feasTol*scale {
		return 0, nil, errInfeasible
	}
	// Drive artificials out of the basis where a y column can replace
	// them; a row where none can is redundant and its artificial stays at
	// 0 (its row is 0 over the y columns, so no pivot changes it).
	for i := 0; i < m; i++ {
		if basis[i] < n {
			continue
		}
		for j := 0; j < n; j++ {
			if math.Abs(T[i][j]) > pivotTol {
				pivot(T, i, j)
				basis[i] = j
				break
			}
		}
	}
	// Phase 2: the true costs, reduced against the basis; artificials
	// never enter.
	obj := T[m]
	for j := range obj {
		obj[j] = 0
	}
	copy(obj, c)
	for i := 0; i < m; i++ {
		if k := basis[i]; k < n && obj[k] != 0 {
			f := obj[k]
			for j := 0; j <= w; j++ {
				obj[j] -= f * T[i][j]
			}
		}
	}
	if err := run(n); err != nil {
		return 0, nil, err
	}
	y := make([]float64, n)
	for i, k := range basis {
		if k < n {
			y[k] = max(T[i][w], 0)
		}
	}
	f := 0.0
	for j := range y {
		f += c[j] * y[j]
	}
	return f, y, nil
}

// pivot makes column e of T a unit column with its 1 in row r.
func pivot(T [][]float64, r, e int) {
	pr := T[r]
	inv := 1 / pr[e]
	for j := range pr {
		pr[j] *= inv
	}
	pr[e] = 1
	for i := range T {
		if i == r {
			continue
		}
		row := T[i]
		f := row[e]
		if f == 0 {
			continue
		}
		for j, v := range pr {
			if v != 0 {
				row[j] -= f * v
			}
		}
		row[e] = 0
	}
}

// simplexError maps simplex's errors to the detail of a Solution.
func simplexError(err error) string { return fmt.Sprintf("pure-Go simplex: %v", err) }
