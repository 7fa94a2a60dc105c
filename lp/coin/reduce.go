//go:build coin

package coin

import (
	"math"

	"github.com/tailbound/tailbound/lp"
)

// The compact reduction.
//
// CLP's simplex spends most of its time on the compact TEL program's excess
// rows (u_n + B·z_n ≥ D_n − ξ, one per pair): from CLP's slack basis every
// one of them is infeasible, and at 10^5 turns the dual simplex needed
// 110 365 pivots, 51–79 s. Before solving an LP (or a relaxation), CLP.Solve
// therefore looks for that structure and, when it finds it, solves an
// equivalent smaller LP and maps its answer back. It is found by shape alone
// and applies to any LP that has the shape; every step below is exact for
// the LP relaxation (it is not for the integer program: it caps z at a
// fractional a/β, so it is never used by CBC's branch and bound).
//
// Excess pair: a row r with exactly two entries, α·u + β·z with α, β > 0 and
// bounds [a, +∞), where u is a singleton column (no other entry) with cost
// c_u > 0 and bounds [0, +∞), and z is a column with finite bounds
// [lo, hi], cost c_z ≥ 0, and every other entry "packing": positive in a
// row with no lower bound, or negative in a row with no upper bound (in
// the balance form, after step 1).
//
// Step 1 (balance rows, only if every row that is not an excess row is an
// equality and all such rows form a running balance: a chain column f_t
// per row t, cost 0, bounds [0, +∞), with +1 in row t and −1 in row t+1
// (+1 only for the last), and every other entry of these rows ±1 in a z
// column, +1 at some row s and −1 at a later row e or none). Replacing row
// t by the sum of rows 0..t is an invertible row operation (the matrix of
// it is lower triangular with ones), so the feasible set is unchanged. In
// the summed rows f_t appears only in row t with coefficient +1: row t
// reads f_t + Σ_{z: s ≤ t < e} z = Σ_{τ≤t} d_τ =: D_t. f_t has cost 0 and
// no upper bound, so it is the slack of that row, and eliminating it
// exactly (f_t = D_t − Σ z, feasible iff ≥ 0) leaves the interval row
// Σ_{z: s ≤ t < e} z ≤ D_t. This is the interval form of lp.BuildCompact
// (BuildOptions.IntervalRows), and its z entries are packing.
//
// Step 2 (excess elimination). For fixed z the best u is
// u = max(0, (a − β·z)/α), so the pair's cost is
// c_z·z + (c_u/α)·max(0, a − β·z), convex piecewise linear in z with its
// kink at z* = a/β. Let c = max(lo, min(hi, z*)). Any feasible point with
// z > c can lower z to c: the cost does not rise (above z* the cost is
// c_z·z, non-decreasing; above hi z cannot be), and every other entry of z
// is packing, so the other rows stay feasible. So the LP optimum is
// reached with z ∈ [lo, c], where u = (a − β·z)/α ≥ 0 when c > lo, i.e.
// the pair costs (c_u·a/α) + (c_z − c_u·β/α)·z, linear; when c = lo
// (a ≤ β·lo), z = lo and u = 0. Dropping row r and column u, with z's
// bounds [lo, c] and that cost, plus the constant, is the same LP
// optimum; and the optimal z of the reduced LP with u = max(0, (a − β·z)/α)
// (and, after step 1, f_t = D_t − Σ z) is an optimal point of the original.
//
// After mapping back, the point is checked against the original rows and
// bounds (tolerance 1e-6·(1 + |bound|)); if it fails, or if the structure is
// not complete, the original LP is solved as given. TestCompactReduction
// checks equal optima against the rows as built on random instances, both
// row forms, optional and forced caching.

// reduction is a recognized compact structure and the reduced LP.
type reduction struct {
	orig    *lp.Problem
	reduced *lp.Problem
	balance bool    // step 1 was applied
	konst   float64 // constant cost of the eliminated columns
	// For each original column: its column in reduced, or -1.
	keep []int
	// Step 1's chain columns and their rows, in step order.
	chain, chainRow []int
	// Excess pairs: row, u column, z column, α, β.
	pairs []excessPair
}

type excessPair struct {
	row, u, z   int
	alpha, beta float64
}

// reduceName names the reduction in Solution.Detail.
const reduceName = "compact reduction"

// reduceCompact recognizes the structure described above in p and
// returns the reduction, or nil.
func reduceCompact(p *lp.Problem) *reduction {
	if p.NumRows == 0 || p.NumCols == 0 {
		return nil
	}
	rowLen := make([]int, p.NumRows)
	for _, i := range p.RowIndex {
		rowLen[i]++
	}
	// Candidate u columns: singletons with positive cost and bounds [0, ∞).
	rowU := make([]int, p.NumRows)
	for i := range rowU {
		rowU[i] = -1
	}
	for j := 0; j < p.NumCols; j++ {
		k := p.ColStart[j]
		if p.ColStart[j+1]-k != 1 || p.Obj[j] <= 0 || p.ColLo[j] != 0 || !math.IsInf(p.ColUp[j], 1) || p.Value[k] <= 0 {
			continue
		}
		i := p.RowIndex[k]
		if rowLen[i] == 2 && math.IsInf(p.RowUp[i], 1) && !math.IsInf(p.RowLo[i], 0) && rowU[i] < 0 {
			rowU[i] = j
		}
	}
	r := &reduction{orig: p, keep: make([]int, p.NumCols)}
	isExcess := make([]bool, p.NumRows)
	zOf := make([]int, p.NumCols) // z column → index in pairs + 1
	for j := 0; j < p.NumCols; j++ {
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			i := p.RowIndex[k]
			if rowU[i] < 0 || rowU[i] == j || p.Value[k] <= 0 {
				continue
			}
			if zOf[j] != 0 || p.Obj[j] < 0 || math.IsInf(p.ColLo[j], 0) || math.IsInf(p.ColUp[j], 0) {
				return nil // a column in two excess rows, or unfit
			}
			u := rowU[i]
			r.pairs = append(r.pairs, excessPair{row: i, u: u, z: j, alpha: p.Value[p.ColStart[u]], beta: p.Value[k]})
			zOf[j] = len(r.pairs)
			isExcess[i] = true
		}
	}
	if len(r.pairs) == 0 {
		return nil
	}
	isU := make([]bool, p.NumCols)
	for _, e := range r.pairs {
		isU[e.u] = true
	}
	// Packing check on the rows as given.
	packing := true
	for j := 0; j < p.NumCols && packing; j++ {
		if zOf[j] == 0 {
			continue
		}
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			i := p.RowIndex[k]
			if isExcess[i] {
				if i != r.pairs[zOf[j]-1].row {
					packing = false
				}
				continue
			}
			if !(p.Value[k] > 0 && math.IsInf(p.RowLo[i], -1) || p.Value[k] < 0 && math.IsInf(p.RowUp[i], 1)) {
				packing = false
				break
			}
		}
	}
	var q *lp.Problem
	if packing {
		q = r.eliminate(p, isExcess, isU, zOf, nil)
	} else if bal := r.balanceRows(p, isExcess, zOf); bal != nil {
		r.balance = true
		r.chain, r.chainRow = bal.chain, bal.rows
		q = r.eliminate(p, isExcess, isU, zOf, bal)
	} else {
		return nil
	}
	r.reduced = q
	return r
}

// balanceInfo is step 1's view of the capacity rows: rows[t] is the t-th
// non-excess row, chain[t] its chain column, cum[t] = D_t.
type balanceInfo struct {
	rows  []int
	chain []int
	cum   []float64
	pos   []int // row → t, or -1
	// span of each z column: first and end step (end = len(rows) if none).
	first, end []int
}

// balanceRows checks step 1's conditions and returns the running-balance
// structure, or nil.
func (r *reduction) balanceRows(p *lp.Problem, isExcess []bool, zOf []int) *balanceInfo {
	b := &balanceInfo{pos: make([]int, p.NumRows)}
	for i := 0; i < p.NumRows; i++ {
		b.pos[i] = -1
		if isExcess[i] {
			continue
		}
		if p.RowLo[i] != p.RowUp[i] || math.IsInf(p.RowLo[i], 0) {
			return nil
		}
		b.pos[i] = len(b.rows)
		b.rows = append(b.rows, i)
	}
	K := len(b.rows)
	if K == 0 {
		return nil
	}
	b.chain = make([]int, K)
	for t := range b.chain {
		b.chain[t] = -1
	}
	b.first = make([]int, p.NumCols)
	b.end = make([]int, p.NumCols)
	for j := 0; j < p.NumCols; j++ {
		n := p.ColStart[j+1] - p.ColStart[j]
		if zOf[j] != 0 {
			// +1 at s, optionally −1 at e > s, plus the excess entry.
			s, e := -1, K
			for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
				t := b.pos[p.RowIndex[k]]
				switch {
				case t < 0:
				case p.Value[k] == 1 && s < 0:
					s = t
				case p.Value[k] == -1 && e == K:
					e = t
				default:
					return nil
				}
			}
			if s < 0 && e < K || s >= 0 && e <= s {
				return nil
			}
			if s < 0 {
				s, e = K, K // no capacity entry
			}
			b.first[j], b.end[j] = s, e
			continue
		}
		// Columns not in excess pairs: u columns have no capacity entry;
		// the rest must be chain columns.
		touches := false
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			if b.pos[p.RowIndex[k]] >= 0 {
				touches = true
			}
		}
		if !touches {
			if n == 1 && isExcess[p.RowIndex[p.ColStart[j]]] {
				continue // a u column
			}
			return nil
		}
		if p.Obj[j] != 0 || p.ColLo[j] != 0 || !math.IsInf(p.ColUp[j], 1) || n < 1 || n > 2 {
			return nil
		}
		k := p.ColStart[j]
		t := b.pos[p.RowIndex[k]]
		if t < 0 || p.Value[k] != 1 || b.chain[t] >= 0 {
			return nil
		}
		if n == 2 {
			if b.pos[p.RowIndex[k+1]] != t+1 || p.Value[k+1] != -1 {
				return nil
			}
		} else if t != K-1 {
			return nil
		}
		b.chain[t] = j
	}
	b.cum = make([]float64, K)
	sum := 0.0
	for t, i := range b.rows {
		if b.chain[t] < 0 {
			return nil
		}
		sum += p.RowLo[i]
		b.cum[t] = sum
	}
	return b
}

// eliminate builds the reduced LP: step 1 when bal is not nil, then step 2.
func (r *reduction) eliminate(p *lp.Problem, isExcess, isU []bool, zOf []int, bal *balanceInfo) *lp.Problem {
	q := &lp.Problem{}
	newRow := make([]int, p.NumRows)
	for i := 0; i < p.NumRows; i++ {
		newRow[i] = -1
		if isExcess[i] {
			continue
		}
		newRow[i] = q.NumRows
		q.NumRows++
		if bal != nil {
			q.RowLo = append(q.RowLo, math.Inf(-1))
			q.RowUp = append(q.RowUp, bal.cum[bal.pos[i]])
		} else {
			q.RowLo = append(q.RowLo, p.RowLo[i])
			q.RowUp = append(q.RowUp, p.RowUp[i])
		}
	}
	isChain := make([]bool, p.NumCols)
	if bal != nil {
		for _, j := range bal.chain {
			isChain[j] = true
		}
	}
	for j := 0; j < p.NumCols; j++ {
		r.keep[j] = -1
		if isU[j] || isChain[j] {
			continue
		}
		lo, up, c := p.ColLo[j], p.ColUp[j], p.Obj[j]
		if zOf[j] != 0 {
			e := r.pairs[zOf[j]-1]
			cu := p.Obj[e.u]
			a := p.RowLo[e.row]
			if a > e.beta*lo {
				up = math.Min(up, a/e.beta)
				c -= cu * e.beta / e.alpha
				r.konst += cu * a / e.alpha
			} else {
				up = lo
			}
		}
		r.keep[j] = q.NumCols
		q.NumCols++
		q.ColStart = append(q.ColStart, len(q.Value))
		q.Obj = append(q.Obj, c)
		q.ColLo = append(q.ColLo, lo)
		q.ColUp = append(q.ColUp, up)
		if bal != nil {
			for t := bal.first[j]; t < bal.end[j]; t++ {
				q.RowIndex = append(q.RowIndex, newRow[bal.rows[t]])
				q.Value = append(q.Value, 1)
			}
			continue
		}
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			if i := newRow[p.RowIndex[k]]; i >= 0 {
				q.RowIndex = append(q.RowIndex, i)
				q.Value = append(q.Value, p.Value[k])
			}
		}
	}
	q.ColStart = append(q.ColStart, len(q.Value))
	return q
}

// expand maps a point of the reduced LP back to the original columns.
func (r *reduction) expand(y []float64) []float64 {
	p := r.orig
	x := make([]float64, p.NumCols)
	for j, k := range r.keep {
		if k >= 0 {
			x[j] = y[k]
		}
	}
	for _, e := range r.pairs {
		x[e.u] = math.Max(0, (p.RowLo[e.row]-e.beta*x[e.z])/e.alpha)
	}
	if r.balance {
		// Row t as given reads f_t − f_{t−1} + (rest) = d_t; with the
		// chain columns still 0 in x, act holds the rest.
		act := rowActivity(p, x)
		prev := 0.0
		for t, j := range r.chain {
			i := r.chainRow[t]
			x[j] = math.Max(0, p.RowLo[i]-act[i]+prev)
			prev = x[j]
		}
	}
	return x
}

// rowActivity returns A·x.
func rowActivity(p *lp.Problem, x []float64) []float64 {
	act := make([]float64, p.NumRows)
	for j := 0; j < p.NumCols; j++ {
		if x[j] == 0 {
			continue
		}
		for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
			act[p.RowIndex[k]] += p.Value[k] * x[j]
		}
	}
	return act
}

// feasible reports whether x satisfies p's rows and bounds within
// 1e-6·(1 + |bound|).
func feasible(p *lp.Problem, x []float64) bool {
	tol := func(b float64) float64 { return 1e-6 * (1 + math.Abs(b)) }
	for j, v := range x {
		if v < p.ColLo[j]-tol(p.ColLo[j]) || v > p.ColUp[j]+tol(p.ColUp[j]) || math.IsNaN(v) {
			return false
		}
	}
	for i, a := range rowActivity(p, x) {
		if a < p.RowLo[i]-tol(p.RowLo[i]) || a > p.RowUp[i]+tol(p.RowUp[i]) {
			return false
		}
	}
	return true
}
