//go:build coin

package coin

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// randomPacking draws a 0/1 packing program of n columns and m rows:
// minimize −Σ x_j (the most columns chosen, like the SLO programs of
// lp/slo) under rows Σ a_ij x_j ≤ b_i with a_ij in 20..29 (two thirds
// non-zero) and b_i a quarter of the row's sum, rounded down.
func randomPacking(r *rand.Rand, n, m int) *lp.Problem {
	a := make([][]float64, m)
	up := make([]float64, m)
	for i := range a {
		a[i] = make([]float64, n)
		var sum float64
		for j := range a[i] {
			if r.IntN(3) > 0 {
				a[i][j] = float64(20 + r.IntN(10))
				sum += a[i][j]
			}
		}
		up[i] = math.Floor(sum / 4)
	}
	return fromDense(repeat(-1, n), a, repeat(-inf, m), up, repeat(0, n), repeat(1, n), binaries(n))
}

// binaries marks n columns integer.
func binaries(n int) []bool {
	b := make([]bool, n)
	for j := range b {
		b[j] = true
	}
	return b
}

// binaryOptimum returns the least objective of p over the 0/1 points
// that satisfy its rows exactly (no tolerance; the data are whole
// numbers), by visiting all 2^n of them in Gray-code order (one column
// flips per step).
func binaryOptimum(p *lp.Problem) float64 {
	best := math.Inf(1)
	act := make([]float64, p.NumRows)
	x := make([]bool, p.NumCols)
	var obj float64
	for step := 0; ; step++ {
		ok := true
		for i, v := range act {
			ok = ok && v >= p.RowLo[i] && v <= p.RowUp[i]
		}
		if ok {
			best = min(best, obj)
		}
		if step == 1<<p.NumCols-1 {
			return best
		}
		j := bits.TrailingZeros(uint(step + 1)) // the column Gray code flips
		sign := 1.0
		if x[j] {
			sign = -1
		}
		x[j] = !x[j]
		obj += sign * p.Obj[j]
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			act[p.RowIndex[k]] += sign * p.Value[k]
		}
	}
}

// greedyStart returns a feasible 0/1 point of a packing program (rows
// with RowLo = −∞ and non-negative entries): columns in random order, each
// taken when every row still fits.
func greedyStart(r *rand.Rand, p *lp.Problem) []float64 {
	x := make([]float64, p.NumCols)
	act := make([]float64, p.NumRows)
	for _, j := range r.Perm(p.NumCols) {
		fits := true
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			fits = fits && act[p.RowIndex[k]]+p.Value[k] <= p.RowUp[p.RowIndex[k]]
		}
		if fits && r.IntN(4) > 0 { // not maximal: leaves CBC room to improve
			x[j] = 1
			for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
				act[p.RowIndex[k]] += p.Value[k]
			}
		}
	}
	return x
}

// TestCBCStartAndBound: on seeded random 0/1 packing programs of 20
// columns, CBC given a feasible MIP start (a random greedy point) returns a
// feasible point never worse than the start, whether it runs to the end or
// stops after one node; the bound it reports (Solution.Bound) is never
// above the optimum found by enumerating all 2^20 points, and a proven
// optimum equals it. Integer objectives: compared to 10^−6.
func TestCBCStartAndBound(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	stopped := 0
	for i := 0; i < 25; i++ {
		p := randomPacking(r, 20, 8+r.IntN(8))
		opt := binaryOptimum(p)
		start := greedyStart(r, p)
		var startObj float64
		for j, v := range start {
			startObj += p.Obj[j] * v
		}
		for _, c := range []CBC{{}, {MaxNodes: 1}} {
			sol, err := c.Solve(context.Background(), p, lp.Options{Start: start})
			if err != nil {
				t.Fatalf("instance %d, %+v: %v", i, c, err)
			}
			if sol.X == nil {
				t.Fatalf("instance %d, %+v: no point although a feasible start was given (%s)", i, c, sol.Detail)
			}
			checkPoint(t, p, sol.X, sol.Obj, true)
			if sol.Obj > startObj+1e-6 {
				t.Errorf("instance %d, %+v: objective %v worse than the start's %v", i, c, sol.Obj, startObj)
			}
			if !sol.HasBound {
				t.Errorf("instance %d, %+v: no bound (%s)", i, c, sol.Detail)
			} else if sol.Bound > opt+1e-6 {
				t.Errorf("instance %d, %+v: bound %v above the optimum %v", i, c, sol.Bound, opt)
			}
			if sol.Status == lp.Optimal && math.Abs(sol.Obj-opt) > 1e-6 {
				t.Errorf("instance %d, %+v: proven %v, enumeration %v", i, c, sol.Obj, opt)
			}
			if sol.Status != lp.Optimal {
				stopped++
			}
		}
	}
	t.Logf("%d of 50 solves stopped on the node limit", stopped)
	if stopped == 0 {
		t.Error("no solve stopped on the node limit: the bound of a stopped search was not checked")
	}
}

// TestCBCStoppedBound: on 40-column packing programs, too large to
// enumerate and too hard for CBC's root, a search stopped after one node
// from a greedy start reports a point never worse than the start and a
// bound never above the optimum CBC proves without the limit (whose
// optima the test above checks against enumeration on smaller programs).
func TestCBCStoppedBound(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	stopped := 0
	for i := 0; i < 8; i++ {
		p := randomPacking(r, 40, 12)
		full, err := CBC{}.Solve(context.Background(), p, lp.Options{})
		if err != nil || full.Status != lp.Optimal {
			t.Fatalf("instance %d: %v %v", i, full.Status, err)
		}
		start := greedyStart(r, p)
		var startObj float64
		for j, v := range start {
			startObj += p.Obj[j] * v
		}
		sol, err := CBC{MaxNodes: 1}.Solve(context.Background(), p, lp.Options{Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if sol.X == nil || sol.Obj > startObj+1e-6 {
			t.Fatalf("instance %d: point %v, objective %v, the start's %v", i, sol.X != nil, sol.Obj, startObj)
		}
		checkPoint(t, p, sol.X, sol.Obj, true)
		if !sol.HasBound || sol.Bound > full.Obj+1e-6 {
			t.Fatalf("instance %d: bound %v (reported %v) above the optimum %v", i, sol.Bound, sol.HasBound, full.Obj)
		}
		if sol.Status != lp.Optimal {
			stopped++
		}
	}
	if stopped < 4 {
		t.Errorf("only %d of 8 searches stopped on the node limit", stopped)
	}
}

// TestCBCStartAccepted: CBC takes the MIP start as its incumbent. An
// equality knapsack Σ a_j x_j = b (a_j large and random, b the sum of a
// random subset) has feasible points that CBC's root heuristics do not
// find: after one node it reports no point without the start, and with the
// start it reports one at least as good.
func TestCBCStartAccepted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 40))
	n := 24
	a := make([]float64, n)
	start := make([]float64, n)
	var b float64
	for j := range a {
		a[j] = float64(100_003 + r.IntN(900_000))
		if r.IntN(2) == 0 {
			start[j] = 1
			b += a[j]
		}
	}
	p := fromDense(repeat(-1, n), [][]float64{a}, []float64{b}, []float64{b}, repeat(0, n), repeat(1, n), binaries(n))
	c := CBC{MaxNodes: 1}
	without, err := c.Solve(context.Background(), p, lp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	with, err := c.Solve(context.Background(), p, lp.Options{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without: %v %v (%s); with: %v %v (%s)", without.X != nil, without.Obj, without.Detail, with.X != nil, with.Obj, with.Detail)
	var startObj float64
	for j, v := range start {
		startObj += p.Obj[j] * v
	}
	if with.X == nil || with.Obj > startObj+1e-6 {
		t.Fatalf("with the start: point %v, objective %v, the start's %v (%s)", with.X != nil, with.Obj, startObj, with.Detail)
	}
	checkPoint(t, p, with.X, with.Obj, true)
	if without.X != nil {
		t.Fatalf("without the start CBC found a point (objective %v) after one node: this instance no longer shows that the start is taken", without.Obj)
	}
}

// TestCBCStartLength: a start of the wrong length is an error, not a
// crash in the library.
func TestCBCStartLength(t *testing.T) {
	p := randomPacking(rand.New(rand.NewPCG(1, 1)), 5, 2)
	if _, err := (CBC{}).Solve(context.Background(), p, lp.Options{Start: []float64{1}}); err == nil {
		t.Fatal("a 1-value start for 5 columns was accepted")
	}
}
