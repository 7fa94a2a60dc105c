//go:build coin

package coin

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// TestCompactReduction checks the compact reduction (reduce.go) against
// the rows as built: on random birth–death instances (random seed, turns,
// capacity, block size, ξ, optional or forced caching), in both capacity
// row forms, CLP on the reduced LP (CLP{}, the default) and CLP on the
// compact LP relaxation as lp.BuildCompact writes it (CLP{Direct: true})
// must reach the same optimum within 1e-7·(1+TEL); the reduction must be
// applied (named in Detail) and its point must be feasible for the rows
// as built, with Obj·x the reported objective.
func TestCompactReduction(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 24; i++ {
		seed := r.Uint64()
		turns := 50 + r.IntN(600)
		capacity := []int64{2048, 8192, 32768}[r.IntN(3)]
		block := []int64{1, 4, 16, 64}[r.IntN(4)]
		xi := []float64{0, 300, 1000}[r.IntN(3)]
		forced := r.IntN(2) == 1
		p := birthdeath.Default()
		p.Duration = 0
		p.MaxTurns = turns
		tr, err := birthdeath.Trace(p, seed)
		if err != nil {
			t.Fatal(err)
		}
		in, err := lp.NewInstance(tr, instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced})
		if err != nil {
			t.Fatal(err)
		}
		for _, interval := range []bool{false, true} {
			name := fmt.Sprintf("%d/turns=%d/C=%d/B=%d/xi=%v/forced=%v/interval=%v", i, turns, capacity, block, xi, forced, interval)
			t.Run(name, func(t *testing.T) {
				m := lp.BuildCompact(in, lp.BuildOptions{IntervalRows: interval})
				opt := lp.Options{Relax: true}
				want, err := CLP{Direct: true}.Solve(context.Background(), m.Problem, opt)
				if err != nil || want.Status != lp.Optimal {
					t.Fatalf("direct: %v (%s), %v", want.Status, want.Detail, err)
				}
				for _, meth := range []Method{Automatic, Dual, Primal} {
					got, err := CLP{Method: meth}.Solve(context.Background(), m.Problem, opt)
					if err != nil || got.Status != lp.Optimal {
						t.Fatalf("%v: %v (%s), %v", meth, got.Status, got.Detail, err)
					}
					if !strings.Contains(got.Detail, reduceName) {
						t.Errorf("%v: reduction not applied: %s", meth, got.Detail)
					}
					if tel, w := got.Obj+m.Offset, want.Obj+m.Offset; math.Abs(tel-w) > 1e-7*(1+math.Abs(w)) {
						t.Errorf("%v: reduced LP bound %v tokens, rows as built %v", meth, tel, w)
					}
					checkPoint(t, m.Problem, got.X, got.Obj, false)
				}
			})
		}
	}
}

// TestCompactReductionNotApplied: LPs that share part of the shape but
// where lowering z could hurt another row must be solved as given. Here
// min u + w with u + z ≥ 2, z + w ≥ 5, 0 ≤ z ≤ 10: z = 5 costs 0, while
// capping z at 2 (the excess row's kink) would cost 3.
func TestCompactReductionNotApplied(t *testing.T) {
	p := fromDense([]float64{1, 0, 1},
		[][]float64{{1, 1, 0}, {0, 1, 1}},
		[]float64{2, 5}, []float64{inf, inf},
		[]float64{0, 0, 0}, []float64{inf, 10, inf}, nil)
	if r := reduceCompact(p); r != nil {
		t.Fatalf("reduction applied to a covering row")
	}
	sol, err := CLP{}.Solve(context.Background(), p, lp.Options{})
	if err != nil || sol.Status != lp.Optimal || math.Abs(sol.Obj) > 1e-9 {
		t.Fatalf("got %v %v (%s), %v; want optimal 0", sol.Status, sol.Obj, sol.Detail, err)
	}
	// The same with the second row written as a packing row −z − w ≤ −5
	// is the same LP and must not be reduced either.
	p2 := fromDense([]float64{1, 0, 1},
		[][]float64{{1, 1, 0}, {0, -1, -1}},
		[]float64{2, -inf}, []float64{inf, -5},
		[]float64{0, 0, 0}, []float64{inf, 10, inf}, nil)
	if r := reduceCompact(p2); r != nil {
		t.Fatalf("reduction applied to a covering row written as ≤")
	}
}
