//go:build coin

package coin

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
)

func cpuSecs() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// TestCLPSettings times one CLP configuration on the compact LP relaxation
// of the default birth–death trace (C = 131072, B = 16, ξ = 300 tokens) —
// the settings study behind the compact reduction (doc.go). It runs only
// when COIN_PROBE is set, e.g.
//
//	COIN_PROBE="turns=30000;form=interval;type=0;perturb=50" go test -tags coin -run CLPSettings -v ./lp/coin/
//
// Keys: turns, form (interval|balance), type (ClpSolve::SolveType),
// presolve=off, startup/extra (special option 0 or 1), perturb, scaling,
// dualbound, log, limit (s), basis=1 (u columns basic), elim=1 (excess
// rows eliminated in the test), pm=1 (±1 matrix by scaling), reduce=1
// (the binding's compact reduction, type read as a Method).
func TestCLPSettings(t *testing.T) {
	spec := os.Getenv("COIN_PROBE")
	if spec == "" {
		t.Skip()
	}
	kv := map[string]string{}
	for _, f := range strings.Split(spec, ";") {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		}
	}
	num := func(k string, d float64) float64 {
		if v, ok := kv[k]; ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		return d
	}
	turns := int(num("turns", 100000))
	in := compactInstance(t, turns, 1, 131072, 16, 300)
	m := lp.BuildCompact(in, lp.BuildOptions{IntervalRows: kv["form"] == "interval"})
	tu := tuning{
		solveType:    int(num("type", 0)),
		presolveOff:  kv["presolve"] == "off",
		startup:      int(num("startup", -1)),
		startupExtra: int(num("extra", -1)),
		perturbation: int(num("perturb", 0)),
		scaling:      int(num("scaling", -1)),
		dualBound:    num("dualbound", 0),
		logLevel:     int(num("log", 0)),
	}
	prob := m.Problem
	off := m.Offset
	if kv["elim"] == "1" {
		var c float64
		prob, c = elimProbe(prob, float64(in.BlockSize))
		off += c
	}
	if kv["pm"] == "1" {
		prob = plusMinusProbe(prob, float64(in.BlockSize))
	}
	if kv["basis"] == "1" {
		tu.colStatus, tu.rowStatus = basisProbe(prob, float64(in.BlockSize))
	}
	la, _ := os.ReadFile("/proc/loadavg")
	c0 := cpuSecs()
	t0 := time.Now()
	solve := func(ctx context.Context, q *lp.Problem, o lp.Options, tu tuning) (lp.Solution, error) {
		if kv["reduce"] == "1" {
			return solveLPWith(ctx, q, o, Method(tu.solveType), false)
		}
		return solveTuned(ctx, q, o, tu)
	}
	sol, err := solve(context.Background(), prob, lp.Options{Relax: true, TimeLimit: time.Duration(num("limit", 120)) * time.Second}, tu)
	wall := time.Since(t0)
	c1 := cpuSecs()
	la2, _ := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RESULT %s | rows %d cols %d nz %d | %v obj %.3f iters %d | wall %.2f s cpu %.2f s | load before %s after %s | %s",
		spec, m.Problem.NumRows, m.Problem.NumCols, m.Problem.NonZeros(), sol.Status, sol.Obj+off, sol.Iterations,
		wall.Seconds(), c1-c0, strings.TrimSpace(string(la)), strings.TrimSpace(string(la2)), sol.Detail)
}

// plusMinusProbe divides the rows holding a B entry by B and multiplies the
// columns then holding only 1/B by B: all entries become ±1.
func plusMinusProbe(p *lp.Problem, b float64) *lp.Problem {
	q := *p
	q.Value = append([]float64(nil), p.Value...)
	q.Obj = append([]float64(nil), p.Obj...)
	q.RowLo = append([]float64(nil), p.RowLo...)
	q.RowUp = append([]float64(nil), p.RowUp...)
	ex := make([]bool, p.NumRows)
	for k, v := range p.Value {
		if v == b {
			ex[p.RowIndex[k]] = true
		}
	}
	for i := range ex {
		if ex[i] {
			q.RowLo[i] /= b
			q.RowUp[i] /= b
		}
	}
	for k := range q.Value {
		if ex[q.RowIndex[k]] {
			q.Value[k] /= b
		}
	}
	for j := 0; j < p.NumCols; j++ {
		all := true
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			if q.Value[k] != 1/b {
				all = false
			}
		}
		if all && p.ColStart[j+1] > p.ColStart[j] {
			for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
				q.Value[k] = 1
			}
			q.Obj[j] *= b
			if p.ColUp[j] < inf {
				panic("bounded")
			}
		}
	}
	for _, v := range q.Value {
		if v != 1 && v != -1 {
			panic(v)
		}
	}
	return &q
}

// elimProbe removes the excess rows u + B z >= a and their u columns.
func elimProbe(p *lp.Problem, b float64) (*lp.Problem, float64) {
	rowZ, rowU := excessColumns(p, b)
	dropRow := make([]bool, p.NumRows)
	dropCol := make([]bool, p.NumCols)
	lo := append([]float64(nil), p.ColLo...)
	up := append([]float64(nil), p.ColUp...)
	obj := append([]float64(nil), p.Obj...)
	var c float64
	for r := 0; r < p.NumRows; r++ {
		z, u := rowZ[r], rowU[r]
		if z < 0 || u < 0 {
			continue
		}
		dropRow[r], dropCol[u] = true, true
		a := p.RowLo[r]
		if a > b*lo[z] {
			up[z] = math.Min(up[z], a/b)
			obj[z] = -b
			c += a
		} else {
			up[z] = lo[z]
			c += math.Max(0, a-b*lo[z])
		}
	}
	newRow := make([]int, p.NumRows)
	q := &lp.Problem{}
	for i := 0; i < p.NumRows; i++ {
		if dropRow[i] {
			newRow[i] = -1
			continue
		}
		newRow[i] = q.NumRows
		q.NumRows++
		q.RowLo = append(q.RowLo, p.RowLo[i])
		q.RowUp = append(q.RowUp, p.RowUp[i])
	}
	for j := 0; j < p.NumCols; j++ {
		if dropCol[j] {
			continue
		}
		q.NumCols++
		q.ColStart = append(q.ColStart, len(q.Value))
		q.Obj = append(q.Obj, obj[j])
		q.ColLo = append(q.ColLo, lo[j])
		q.ColUp = append(q.ColUp, up[j])
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			if r := newRow[p.RowIndex[k]]; r >= 0 {
				q.RowIndex = append(q.RowIndex, r)
				q.Value = append(q.Value, p.Value[k])
			}
		}
	}
	q.ColStart = append(q.ColStart, len(q.Value))
	return q, c
}

// basisProbe: u basic in excess rows with a > B lo, other rows basic, other columns at lower bound.
func basisProbe(p *lp.Problem, b float64) (col, row []int) {
	col = make([]int, p.NumCols)
	row = make([]int, p.NumRows)
	for j := range col {
		col[j] = 3
	}
	for i := range row {
		row[i] = 1
	}
	rowZ, rowU := excessColumns(p, b)
	for r := range row {
		z, u := rowZ[r], rowU[r]
		if z < 0 || u < 0 {
			continue
		}
		if p.RowLo[r] > b*p.ColLo[z] {
			col[u] = 1
			row[r] = 3
		}
	}
	return
}

// excessColumns returns, per row, the z column with coefficient b and the
// u column (a singleton of cost 1) of an excess row u + b·z ≥ a, or −1.
func excessColumns(p *lp.Problem, b float64) (rowZ, rowU []int) {
	rowZ = make([]int, p.NumRows)
	rowU = make([]int, p.NumRows)
	for i := range rowZ {
		rowZ[i], rowU[i] = -1, -1
	}
	for j := 0; j < p.NumCols; j++ {
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			if p.Value[k] == b {
				rowZ[p.RowIndex[k]] = j
			}
		}
		if p.ColStart[j+1]-p.ColStart[j] == 1 && p.Obj[j] == 1 {
			rowU[p.RowIndex[p.ColStart[j]]] = j
		}
	}
	return rowZ, rowU
}
