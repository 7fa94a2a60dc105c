package gonumlp

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/lp"
)

// FeasTol is the relative tolerance of the check every gonum answer passes
// before it is reported optimal: a bound b on a quantity whose terms have
// magnitude s (Σ|a_j x_j| for a row, |x_j| for a column) may be missed by
// at most FeasTol·max(1, |b|, s). gonum's simplex pivots with tolerance
// 1e-10 on a dense LU factorisation; within DefaultMaxMagnitude its
// answers on this project's problems miss their bounds by less than 1e-9
// relative, so 1e-7 leaves two orders of margin while a numerically
// singular basis (relative errors of order 1 and more) is caught.
const FeasTol = 1e-7

// verify checks that x satisfies p's rows and the column bounds lo, up
// within FeasTol, and that Obj·x + nothing else equals obj within the same
// relative tolerance; it returns why not. This makes the magnitude guard
// (Fits) a matter of speed, not correctness: an answer gonum computes from
// an ill-conditioned basis is reported as lp.Numerical, never as a number.
func verify(p *lp.Problem, lo, up, x []float64, obj float64) error {
	if len(x) != p.NumCols {
		return fmt.Errorf("%d values for %d columns", len(x), p.NumCols)
	}
	activity := make([]float64, p.NumRows)
	scale := make([]float64, p.NumRows)
	cost, costScale := 0.0, 0.0
	for j := 0; j < p.NumCols; j++ {
		v := x[j]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("column %d is %v", j, v)
		}
		if miss(v, lo[j], up[j], math.Abs(v)) {
			return fmt.Errorf("column %d = %g outside [%g, %g]", j, v, lo[j], up[j])
		}
		cost += p.Obj[j] * v
		costScale += math.Abs(p.Obj[j] * v)
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			r := p.RowIndex[k]
			activity[r] += p.Value[k] * v
			scale[r] += math.Abs(p.Value[k] * v)
		}
	}
	for i := 0; i < p.NumRows; i++ {
		if miss(activity[i], p.RowLo[i], p.RowUp[i], scale[i]) {
			return fmt.Errorf("row %d activity %g outside [%g, %g]", i, activity[i], p.RowLo[i], p.RowUp[i])
		}
	}
	if math.Abs(cost-obj) > FeasTol*math.Max(1, math.Max(math.Abs(obj), costScale)) {
		return fmt.Errorf("objective %g but the solution costs %g", obj, cost)
	}
	return nil
}

// miss reports whether v lies outside [lo, up] by more than the tolerance
// for a quantity of term magnitude s.
func miss(v, lo, up, s float64) bool {
	tol := func(b float64) float64 { return FeasTol * math.Max(1, math.Max(math.Abs(b), s)) }
	return (!math.IsInf(lo, -1) && v < lo-tol(lo)) || (!math.IsInf(up, 1) && v > up+tol(up))
}
