//go:build coin

package coin

import (
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp"
)

// marketSplit returns a market-split instance (Cornuéjols and Dawande,
// 1999): m equality rows Σ_j a_ij x_j + s⁺_i − s⁻_i = ⌊Σ_j a_ij / 2⌋ with
// a_ij uniform in [0, 99], n binary x and 2m continuous slacks ≥ 0,
// minimizing Σ (s⁺ + s⁻). With n = 10(m−1) it is notoriously hard for
// branch and bound; the tests use it to hit time limits.
func marketSplit(m, n int, seed uint64) *lp.Problem {
	r := rand.New(rand.NewPCG(seed, 1))
	a := make([][]float64, m)
	rhs := make([]float64, m)
	for i := range a {
		a[i] = make([]float64, n+2*m)
		var sum float64
		for j := 0; j < n; j++ {
			a[i][j] = float64(r.IntN(100))
			sum += a[i][j]
		}
		a[i][n+2*i] = 1
		a[i][n+2*i+1] = -1
		rhs[i] = float64(int(sum / 2))
	}
	obj := make([]float64, n+2*m)
	colUp := repeat(inf, n+2*m)
	integer := make([]bool, n+2*m)
	for j := 0; j < n; j++ {
		colUp[j] = 1
		integer[j] = true
	}
	for j := n; j < n+2*m; j++ {
		obj[j] = 1
	}
	return fromDense(obj, a, rhs, rhs, repeat(0, n+2*m), colUp, integer)
}

// intervalLP returns a synthetic LP with the structure of the compact TEL
// LP on n turns: one capacity row per step t (one turn per step), one
// column z_j per turn j for the tokens carried to the conversation's next
// turn, covering the contiguous steps j … j+len_j−1 with len_j geometric
// with mean meanSpan (clipped at the last step), 0 ≤ z_j ≤ h_j (history,
// 100…5000 tokens), and a column u_j ≥ 0 for the uncached excess with the
// row z_j + u_j ≥ d_j, d_j = h_j + q_j − ξ (q_j the next prompt, 1…1000
// tokens, ξ = 300 tokens; the row is dropped when d_j ≤ 0). Objective:
// minimize Σ u_j (tokens). Capacity is a third of the mean load (Σ_j h_j
// len_j / n, rounded down to whole tokens), so it binds; all data are
// integers. Sizes: 2n columns, n + (rows with d_j > 0) rows,
// about n·(meanSpan+2) non-zeros.
func intervalLP(n int, meanSpan float64, seed uint64) *lp.Problem {
	r := rand.New(rand.NewPCG(seed, 2))
	const xi = 300
	h := make([]float64, n)
	d := make([]float64, n)
	end := make([]int, n)
	var load float64
	for j := 0; j < n; j++ {
		h[j] = float64(100 + r.IntN(4901))
		d[j] = h[j] + float64(1+r.IntN(1000)) - xi
		span := 1 + int(r.ExpFloat64()*(meanSpan-1))
		end[j] = min(n, j+span)
		load += h[j] * float64(end[j]-j)
	}
	capacity := math.Floor(load / float64(n) / 3)

	p := &lp.Problem{NumRows: n, NumCols: 2 * n}
	// Demand rows n, n+1, … for the turns with d_j > 0.
	demandRow := make([]int, n)
	for j := 0; j < n; j++ {
		demandRow[j] = -1
		if d[j] > 0 {
			demandRow[j] = p.NumRows
			p.NumRows++
		}
	}
	p.RowLo = make([]float64, p.NumRows)
	p.RowUp = make([]float64, p.NumRows)
	for t := 0; t < n; t++ {
		p.RowLo[t], p.RowUp[t] = -inf, capacity
	}
	for j := 0; j < n; j++ {
		if k := demandRow[j]; k >= 0 {
			p.RowLo[k], p.RowUp[k] = d[j], inf
		}
	}
	// Columns z_0 … z_{n−1}, then u_0 … u_{n−1}.
	for j := 0; j < n; j++ {
		p.ColStart = append(p.ColStart, len(p.Value))
		for t := j; t < end[j]; t++ {
			p.RowIndex = append(p.RowIndex, t)
			p.Value = append(p.Value, 1)
		}
		if k := demandRow[j]; k >= 0 {
			p.RowIndex = append(p.RowIndex, k)
			p.Value = append(p.Value, 1)
		}
		p.Obj = append(p.Obj, 0)
		p.ColLo = append(p.ColLo, 0)
		p.ColUp = append(p.ColUp, h[j])
	}
	for j := 0; j < n; j++ {
		p.ColStart = append(p.ColStart, len(p.Value))
		if k := demandRow[j]; k >= 0 {
			p.RowIndex = append(p.RowIndex, k)
			p.Value = append(p.Value, 1)
		}
		p.Obj = append(p.Obj, 1)
		p.ColLo = append(p.ColLo, 0)
		p.ColUp = append(p.ColUp, inf)
	}
	p.ColStart = append(p.ColStart, len(p.Value))
	return p
}
