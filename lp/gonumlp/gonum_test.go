package gonumlp_test

import (
	"context"
	"math"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// twoByTwo is: minimize −x − y subject to x + 2y ≤ 4, 3x + y ≤ 6, x, y ≥ 0
// (integer when integer). By hand: the LP optimum is the vertex where both
// rows bind, x = 1.6, y = 1.2, objective −2.8; the integer points with the
// largest x + y are (2, 0), (1, 1) and (0, 2), objective −2.
func twoByTwo(integer bool) *lp.Problem {
	inf := math.Inf(1)
	p := &lp.Problem{NumRows: 2, NumCols: 2, Obj: []float64{-1, -1},
		ColLo: []float64{0, 0}, ColUp: []float64{inf, inf},
		RowLo: []float64{-inf, -inf}, RowUp: []float64{4, 6},
		ColStart: []int{0, 2, 4}, RowIndex: []int{0, 1, 0, 1}, Value: []float64{1, 3, 2, 1}}
	if integer {
		p.Integer = []bool{true, true}
	}
	return p
}

func TestHandWorked(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		be      gonumlp.Backend
		integer bool
		relax   bool
		status  lp.Status
		obj     float64
	}{
		{"LP", gonumlp.Backend{}, false, false, lp.Optimal, -2.8},
		{"IP", gonumlp.Backend{}, true, false, lp.Optimal, -2},
		{"IP relaxed", gonumlp.Backend{}, true, true, lp.Optimal, -2.8},
		{"too large", gonumlp.Backend{MaxRows: 1}, false, false, lp.TooLarge, math.NaN()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol, err := c.be.Solve(ctx, twoByTwo(c.integer), lp.Options{Relax: c.relax})
			if err != nil {
				t.Fatal(err)
			}
			if sol.Status != c.status {
				t.Fatalf("status %v (%s), want %v", sol.Status, sol.Detail, c.status)
			}
			if c.status == lp.Optimal && math.Abs(sol.Obj-c.obj) > 1e-9 {
				t.Errorf("objective %v, want %v (x = %v)", sol.Obj, c.obj, sol.X)
			}
		})
	}
}

// TestMagnitudeRefused: a right-hand side of 2^58 beside unit entries
// (issue 17: gonum panicked, "subcolumns of A for supplied initial basic
// singular") is refused with status TooLarge before gonum sees it; the same
// problem at a right-hand side of 4 is solved (hand value −2.8 above).
func TestMagnitudeRefused(t *testing.T) {
	for _, c := range []struct {
		rhs    float64
		status lp.Status
	}{{4, lp.Optimal}, {1 << 26, lp.TooLarge}, {1 << 58, lp.TooLarge}} {
		p := twoByTwo(false)
		p.RowUp[0] = c.rhs
		sol, err := gonumlp.Backend{}.Solve(context.Background(), p, lp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != c.status {
			t.Errorf("rhs %g: status %v (%s), want %v", c.rhs, sol.Status, sol.Detail, c.status)
		}
	}
}
