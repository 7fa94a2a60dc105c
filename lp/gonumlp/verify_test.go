package gonumlp

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// The check, by hand on minimize −x − y s.t. x + 2y ≤ 4, 3x + y ≤ 6,
// x, y ≥ 0: the optimum (1.6, 1.2) costs −2.8 and passes; a point past a
// row, a column or with the wrong cost fails, naming what it missed.
func TestVerifyHandWorked(t *testing.T) {
	inf := math.Inf(1)
	p := &lp.Problem{NumRows: 2, NumCols: 2, Obj: []float64{-1, -1},
		ColLo: []float64{0, 0}, ColUp: []float64{inf, inf},
		RowLo: []float64{-inf, -inf}, RowUp: []float64{4, 6},
		ColStart: []int{0, 2, 4}, RowIndex: []int{0, 1, 0, 1}, Value: []float64{1, 3, 2, 1}}
	for _, c := range []struct {
		x    []float64
		obj  float64
		want string // "" for no error, else a word of the message
	}{
		{[]float64{1.6, 1.2}, -2.8, ""},
		{[]float64{1.6, 1.2 + 1e-12}, -2.8, ""}, // within FeasTol
		{[]float64{1.6, 1.3}, -2.9, "row 0"},
		{[]float64{-0.5, 0}, 0.5, "column 0"},
		{[]float64{1.6, 1.2}, -2.7, "objective"},
		{[]float64{math.NaN(), 0}, 0, "column 0"},
	} {
		err := verify(p, p.ColLo, p.ColUp, c.x, c.obj)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("x = %v: %v", c.x, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("x = %v: error %v, want one naming %q", c.x, err, c.want)
		}
	}
}

// With the magnitude guard lifted, gonum on the example trace at
// capacities from 2^20 to 2^34 blocks either reports the exact optimum
// (the min-cost flow's, an independent exact solver) or refuses with
// fails: past 2^26 its basis is singular (lp.Numerical), and at 2^34 it
// even reports this feasible problem infeasible — the wrong verdict that
// keeps the magnitude guard (Fits) in place. No wrong number comes out as
// optimal.
func TestNoWrongOptimumWithoutGuard(t *testing.T) {
	tr, err := trace.ReadFile("../../examples/fig1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for e := 20; e <= 34; e += 2 {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: 1 << e, BlockSize: 1, Xi: 150})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := lp.SolveFlow(ctx, in, lp.Options{})
		if err != nil || exact.Status != lp.Optimal {
			t.Fatalf("2^%d: flow %v %v", e, exact, err)
		}
		got, err := lp.SolveInstance(ctx, in, lp.Compact, Backend{MaxMagnitude: math.Inf(1)}, true, lp.Options{})
		if err != nil {
			t.Fatalf("2^%d: %v", e, err)
		}
		switch got.Status {
		case lp.Optimal:
			if math.Abs(got.TEL-exact.TEL) > 1e-6*math.Max(1, exact.TEL) {
				t.Errorf("2^%d blocks: gonum reports optimal %v, the exact optimum is %v", e, got.TEL, exact.TEL)
			}
		case lp.Numerical, lp.Infeasible:
		default:
			t.Errorf("2^%d blocks: status %v (%s)", e, got.Status, got.Detail)
		}
	}
}
