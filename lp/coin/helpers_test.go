//go:build coin

package coin

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

var inf = math.Inf(1)

// fromDense builds a Problem from a dense row-major matrix a (rows × cols),
// storing only its non-zeros column by column.
func fromDense(obj []float64, a [][]float64, rowLo, rowUp, colLo, colUp []float64, integer []bool) *lp.Problem {
	n := len(obj)
	p := &lp.Problem{
		NumRows: len(a), NumCols: n,
		Obj: obj, ColLo: colLo, ColUp: colUp, RowLo: rowLo, RowUp: rowUp,
		Integer:  integer,
		ColStart: make([]int, 0, n+1),
	}
	for j := 0; j < n; j++ {
		p.ColStart = append(p.ColStart, len(p.Value))
		for i := range a {
			if a[i][j] != 0 {
				p.RowIndex = append(p.RowIndex, i)
				p.Value = append(p.Value, a[i][j])
			}
		}
	}
	p.ColStart = append(p.ColStart, len(p.Value))
	return p
}

// repeat returns n copies of v.
func repeat(v float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// feasTol is the absolute primal feasibility tolerance the checks allow:
// CLP's default primal tolerance is 1e-7 on the scaled problem, and the
// test problems have entries of magnitude ≤ 100, so 1e-6 leaves room for
// unscaling.
const feasTol = 1e-6

// checkPoint fails t unless x satisfies p's bounds, rows and (when integral
// is set) integrality within feasTol, and Obj·x equals obj within
// 1e-9·(1+|obj|).
func checkPoint(t *testing.T, p *lp.Problem, x []float64, obj float64, integral bool) {
	t.Helper()
	if len(x) != p.NumCols {
		t.Fatalf("solution has %d values for %d columns", len(x), p.NumCols)
	}
	act := make([]float64, p.NumRows)
	var cx float64
	for j := 0; j < p.NumCols; j++ {
		if x[j] < p.ColLo[j]-feasTol || x[j] > p.ColUp[j]+feasTol {
			t.Errorf("x[%d] = %v outside [%v, %v]", j, x[j], p.ColLo[j], p.ColUp[j])
		}
		if integral && p.Integer != nil && p.Integer[j] && math.Abs(x[j]-math.Round(x[j])) > feasTol {
			t.Errorf("integer x[%d] = %v", j, x[j])
		}
		cx += p.Obj[j] * x[j]
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			act[p.RowIndex[k]] += p.Value[k] * x[j]
		}
	}
	for i, a := range act {
		if a < p.RowLo[i]-feasTol || a > p.RowUp[i]+feasTol {
			t.Errorf("row %d activity %v outside [%v, %v]", i, a, p.RowLo[i], p.RowUp[i])
		}
	}
	if math.Abs(cx-obj) > 1e-9*(1+math.Abs(obj)) {
		t.Errorf("Obj·x = %v but reported objective %v", cx, obj)
	}
}
