package slo

import (
	"cmp"
	"context"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/tailbound/tailbound/lp"
)

// Lagrangian decomposition into windows of rows, each solved exactly.
//
// A window w is a set of one or two rows of a component (rows: cuts.go);
// its items I_w are the members spanning one of them. Give each member n a
// share β_{w,n} ≥ 0 of its unit profit in each window, the flow keeping
// p_n = 1 − Σ_c μ_c[n∈c] − Σ_w β_{w,n} (the cuts' multipliers as in
// lagrange.go). For every integer point y of the component (every
// schedule serving the free pairs; an optimal one is among them)
//
//	Σ_n y_n = Σ_n p_n y_n + Σ_c μ_c Σ_{n∈c} y_n + Σ_w Σ_{n∈I_w} β_{w,n} y_n
//	        ≤ LP(p) + Σ_c μ_c r_c + Σ_w V_w(β_w),
//
// where LP(p) is the flow relaxation's optimum with profits p (lagrange.go:
// flowBound, certified from above), Σ_{n∈c} y_n ≤ r_c is a valid cut
// (cuts.go), and V_w(β_w) = max{Σ_{n∈I_w} β_{w,n} z_n : z ∈ {0,1}^{I_w}
// meets w's rows} is the exact optimum of the window's own 0/1 program: y
// restricted to I_w is one of its points, since y meets every row. So any
// β ≥ 0 gives a valid upper bound on the pairs served (windows may share
// rows: each is a relaxation of the whole program on its own). The bound
// is at most the cut bound at β = 0, and, optimized over β, at least the
// LP over the intersection of the windows' integer hulls: it sees every
// valid inequality of a row (not only covers) and of two rows together.
//
// Exactness: β is kept on the grid of 2^−muBits as the cuts' μ, so V_w is
// a whole number of 2^−muBits units computed by integer dynamic
// programming (no rounding at all), and enters the bound beside Σ μ_c r_c
// in flowBound's whole-number arithmetic. A one-row window is a 0/1
// knapsack: f(c) = most profit of items of weight ≤ c, over c = 0..cap. A
// two-row window (rows r ≠ r', capacities c, c') splits its items into A
// (spanning both), X (only r) and Y (only r'); a choice is feasible iff
// its A-part weighs some u ≤ min(c, c') and the X- and Y-parts fit in
// c − u and c' − u, so V_w = max_u F_A(u) + F_X(c − u) + F_Y(c' − u), each
// F a knapsack table as above.

// window is one window of the decomposition and its multipliers.
type window struct {
	rows  []int32 // one or two rows of the component, increasing
	items []int32 // members spanning one of them, increasing
	beta  []int64 // β per item, 2^−muBits units
}

// knapsack returns f with f[c] the most Σ p_i over subsets of items (local
// indices into p and d) weighing at most c, c = 0..capacity, and keep, the
// items' choices (keep[k*(capacity+1)+c] says item k is in an optimal
// subset of items[:k+1] for weight c), for recovering a subset. Items of
// non-positive profit are skipped (never needed in a maximum).
func knapsack(items []int32, p, d []int64, capacity int64, keep []bool) ([]int64, []bool) {
	w := int(capacity) + 1
	f := make([]int64, w)
	keep = slices.Grow(keep[:0], len(items)*w)[:len(items)*w]
	clear(keep)
	for k, i := range items {
		if p[k] <= 0 || d[i] > capacity {
			continue
		}
		row := keep[k*w : (k+1)*w]
		di := int(d[i])
		for c := w - 1; c >= di; c-- {
			if v := f[c-di] + p[k]; v > f[c] {
				f[c] = v
				row[c] = true
			}
		}
	}
	return f, keep
}

// recover marks in z the items (by item position k) of an optimal subset
// of weight at most c from knapsack's keep table.
func recoverKnap(items []int32, d []int64, capacity int64, keep []bool, c int64, set func(k int)) {
	w := int(capacity) + 1
	for k := len(items) - 1; k >= 0; k-- {
		if keep[k*w+int(c)] {
			set(k)
			c -= d[items[k]]
		}
	}
}

// windowValue returns V_w(β_w) (2^−muBits units) and an optimal point,
// z[k] for item k of w. With fix (one value per member, nil: none) it is
// the optimum over the window's points that agree with the fixings
// (members fixed in, 1, are taken, those fixed out, −1, are not): the
// value at a node of the branch and bound; ok is false when the members
// fixed in already overfill one of w's rows.
func (m *component) windowValue(w *window, z []bool, fix []int8) (v int64, ok bool) {
	clear(z)
	caps := make([]int64, len(w.rows))
	for q, r := range w.rows {
		caps[q] = m.segCap[m.rowSeg[r]]
	}
	var fixed int64
	// class: −1 out of the program, else the bit mask of w's rows it spans
	var A, X, Y []int32 // positions k into w.items
	for k, i := range w.items {
		var mask int
		for q, r := range w.rows {
			if seg := m.rowSeg[r]; m.lo[i] <= seg && seg < m.hi[i] {
				mask |= 1 << q
			}
		}
		switch {
		case fix != nil && fix[i] == -1:
		case fix != nil && fix[i] == 1:
			z[k] = true
			fixed += w.beta[k]
			for q := range w.rows {
				if mask>>q&1 == 1 {
					caps[q] -= m.d[i]
				}
			}
		case mask == 3:
			A = append(A, int32(k))
		case mask == 1:
			X = append(X, int32(k))
		default:
			Y = append(Y, int32(k))
		}
	}
	for _, c := range caps {
		if c < 0 {
			return 0, false
		}
	}
	sub := func(pos []int32, capacity int64) ([]int64, []bool, []int32) {
		items := make([]int32, len(pos))
		p := make([]int64, len(pos))
		for j, k := range pos {
			items[j], p[j] = w.items[k], w.beta[k]
		}
		f, keep := knapsack(items, p, m.d, capacity, nil)
		return f, keep, items
	}
	if len(w.rows) == 1 {
		c := caps[0]
		f, keep, items := sub(X, c)
		recoverKnap(items, m.d, c, keep, c, func(j int) { z[X[j]] = true })
		return fixed + f[c], true
	}
	c1, c2 := caps[0], caps[1]
	cu := min(c1, c2)
	fA, kA, iA := sub(A, cu)
	fX, kX, iX := sub(X, c1)
	fY, kY, iY := sub(Y, c2)
	best, bu := int64(-1), int64(0)
	for u := int64(0); u <= cu; u++ {
		if v := fA[u] + fX[c1-u] + fY[c2-u]; v > best {
			best, bu = v, u
		}
	}
	recoverKnap(iA, m.d, cu, kA, bu, func(j int) { z[A[j]] = true })
	recoverKnap(iX, m.d, c1, kX, c1-bu, func(j int) { z[X[j]] = true })
	recoverKnap(iY, m.d, c2, kY, c2-bu, func(j int) { z[Y[j]] = true })
	return fixed + best, true
}

// newWindow returns the window of rows (one or two, increasing) with β = 0.
func (m *component) newWindow(rows ...int32) *window {
	w := &window{rows: rows}
	for _, r := range rows {
		w.items = append(w.items, m.rowItems[r]...)
	}
	slices.Sort(w.items)
	w.items = slices.Compact(w.items)
	w.beta = make([]int64, len(w.items))
	return w
}

// decomposition is the cuts' Lagrangian (lagrange.go) with windows.
type decomposition struct {
	*lagrangian
	windows []*window
	val     []int64 // V_w at the last profits, per window
}

// profits returns P_n = p_n·2^muBits per member and Σ_c μ_c r_c + Σ_w V_w
// (2^−muBits units), and each window's optimal point.
func (dc *decomposition) profits(zs [][]bool) ([]int64, *big.Int) {
	P, muR := dc.lagrangian.profits()
	for k, w := range dc.windows {
		for j, i := range w.items {
			P[i] -= w.beta[j]
		}
		var z []bool
		if zs != nil {
			z = zs[k]
		} else {
			z = make([]bool, len(w.items))
		}
		v, _ := dc.m.windowValue(w, z, nil) // no fixings: always ok
		muR.Add(muR, big.NewInt(v))
		if k < len(dc.val) {
			dc.val[k] = v
		} else {
			dc.val = append(dc.val, v)
		}
	}
	return P, muR
}

// nodeTerms returns the constant terms of the bound at a node of the
// branch and bound with fixings fix, from muR, the last profits' (Σ μ r
// + Σ_w V_w): each window holding a fixed member is solved again over
// its points that agree with the fixings (the node's schedules restricted
// to it are among them), the others keep their value. errInfeasible when
// the members fixed in overfill a window's row.
func (dc *decomposition) nodeTerms(muR *big.Int, fix []int8) (*big.Int, error) {
	if len(dc.windows) == 0 {
		return muR, nil
	}
	out := new(big.Int).Set(muR)
	var z []bool
	for k, w := range dc.windows {
		touched := false
		for _, i := range w.items {
			if fix[i] != 0 {
				touched = true
				break
			}
		}
		if !touched {
			continue
		}
		z = slices.Grow(z[:0], len(w.items))[:len(w.items)]
		v, ok := dc.m.windowValue(w, z, fix)
		if !ok {
			return nil, errInfeasible
		}
		out.Add(out, big.NewInt(v-dc.val[k]))
	}
	return out, nil
}

// maxWindowCap: refineRoot adds no windows to a component with a step of
// more capacity than this (blocks), since a window's dynamic program takes
// time and memory in proportion to its pairs times its capacity.
const maxWindowCap = 1 << 16

// decompIter bounds the decomposition's subgradient iterations at the
// root of the branch and bound.
const decompIter = 100

// refineRoot continues the root's Lagrangian l (cuts and multipliers,
// bound root) with two-row windows from the LP's split (decompose) until
// ctx is done, decompIter iterations or the floor reaches incumbent, and
// returns the decomposition at its best multipliers and its bound (never
// above root). When the windows gain nothing they are dropped, so the
// nodes cost what they did.
func (m *component) refineRoot(ctx context.Context, l *lagrangian, root bound, incumbent int) (*decomposition, bound, decompStats) {
	tooWide := false
	for _, c := range m.segCap {
		tooWide = tooWide || c > maxWindowCap
	}
	if tooWide || len(m.rowItems) == 0 || ctx.Err() != nil || root.floor(len(m.members)) <= incumbent {
		return &decomposition{lagrangian: l}, root, decompStats{Start: root.value(), Best: root.value()}
	}
	dc, b, st, err := m.decompose(ctx, l, root, incumbent, decompIter, true, len(m.rowItems))
	if err != nil || b.num.Cmp(root.num) >= 0 {
		// decompose keeps the cuts' best multipliers in l either way
		return &decomposition{lagrangian: l}, root, st
	}
	return dc, b, st
}

// decompStats reports a run of the decomposition's subgradient method.
type decompStats struct {
	Iterations, Windows int
	Start, Best         float64 // bound before and after, pairs
	Dual                float64 // bound at the LP's split (dualWindows)
}

// pickWindows returns rows, not yet in a window, that are tight at the
// flow point y (load within 1 block of capacity) and hold a fractional
// member: where the flow's point may lie outside the row's integer hull.
func (dc *decomposition) pickWindows(y []float64, used map[int32]bool, limit int) []int32 {
	mm := dc.m
	var out []int32
	for r, row := range mm.rowItems {
		if used[int32(r)] {
			continue
		}
		var load float64
		frac := false
		for _, i := range row {
			load += float64(mm.d[i]) * y[i]
			if y[i] > 1e-6 && y[i] < 1-1e-6 {
				frac = true
			}
		}
		if frac && load >= float64(mm.segCap[mm.rowSeg[r]])-1 {
			out = append(out, int32(r))
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// decompose continues the subgradient method of l (cuts and their best
// multipliers) with windows: every fifth iteration it adds windows on the
// rows pickWindows finds (pairs of consecutive ones when pairs is set,
// else one row each), until ctx is done, maxIter iterations or the floor
// of the bound reaches incumbent. It returns the best multipliers' state
// and bound.
func (m0 *component) decompose(ctx context.Context, l *lagrangian, start bound, incumbent, maxIter int, pairs bool, dualInit int) (*decomposition, bound, decompStats, error) {
	dc := &decomposition{lagrangian: l}
	st := decompStats{Start: start.value(), Best: start.value()}
	best := start
	type snap struct{ mu, beta []int64 }
	save := func() snap {
		s := snap{mu: slices.Clone(l.mu)}
		for _, w := range dc.windows {
			s.beta = append(s.beta, w.beta...)
		}
		return s
	}
	bestSnap := save()
	used := map[int32]bool{}
	var zs [][]bool
	var betaF [][]float64
	P, muR := dc.profits(nil)
	b, y, err := m0.flowBound(ctx, P, muR, nil)
	if err != nil {
		return dc, best, st, nil
	}
	if dualInit > 0 {
		dc.dualWindows(m0.rowDuals(P, y), dualInit, pairs)
		for _, w := range dc.windows {
			for _, r := range w.rows {
				used[r] = true
			}
			bf := make([]float64, len(w.items))
			for j, v := range w.beta {
				bf[j] = float64(v) / (1 << muBits)
			}
			betaF = append(betaF, bf)
			zs = append(zs, make([]bool, len(w.items)))
		}
		P, muR = dc.profits(zs)
		b, y, err = m0.flowBound(ctx, P, muR, nil)
		if err != nil {
			return dc, best, st, nil
		}
		st.Dual = b.value()
		if b.num.Cmp(best.num) < 0 {
			best, bestSnap = b, save()
		}
	}
	theta := 1.0
	stall := 0
	var fail error
	muF := make([]float64, len(l.mu))
	for c, v := range l.mu {
		muF[c] = float64(v) / (1 << muBits)
	}
	for it := 0; it < maxIter && ctx.Err() == nil && best.floor(len(m0.members)) > incumbent; it++ {
		st.Iterations++
		if it%5 == 0 {
			rows := dc.pickWindows(y, used, 200)
			for k := 0; k < len(rows); k++ {
				var w *window
				if pairs && k+1 < len(rows) {
					w = m0.newWindow(rows[k], rows[k+1])
					used[rows[k]], used[rows[k+1]] = true, true
					k++
				} else {
					w = m0.newWindow(rows[k])
					used[rows[k]] = true
				}
				dc.windows = append(dc.windows, w)
				betaF = append(betaF, make([]float64, len(w.items)))
				zs = append(zs, make([]bool, len(w.items)))
			}
			// New windows have β = 0: their point is the empty set, as
			// zs holds (the others' points are the last profits' own).
		}
		var norm float64
		gc := make([]float64, len(l.pool.cuts))
		for c, ct := range l.pool.cuts {
			s := float64(ct.rhs)
			for _, i := range ct.items {
				s -= y[i]
			}
			if muF[c] <= 0 && s > 0 {
				s = 0
			}
			gc[c] = s
			norm += s * s
		}
		gw := make([][]float64, len(dc.windows))
		for k, w := range dc.windows {
			gw[k] = make([]float64, len(w.items))
			for j, i := range w.items {
				zv := 0.0
				if zs[k][j] {
					zv = 1
				}
				s := zv - y[i] // ∂bound/∂β
				if betaF[k][j] <= 0 && s > 0 {
					s = 0
				}
				gw[k][j] = s
				norm += s * s
			}
		}
		if norm < 1e-12 {
			break
		}
		target := max(float64(incumbent), math.Floor(best.value())-0.05)
		step := theta * max(b.value()-target, 0.05) / norm
		for c := range muF {
			muF[c] = max(0, muF[c]-step*gc[c])
			l.mu[c] = int64(math.Round(muF[c] * (1 << muBits)))
		}
		for k, w := range dc.windows {
			for j := range w.items {
				betaF[k][j] = max(0, betaF[k][j]-step*gw[k][j])
				w.beta[j] = int64(math.Round(betaF[k][j] * (1 << muBits)))
			}
		}
		P, muR = dc.profits(zs)
		b, y, err = m0.flowBound(ctx, P, muR, nil)
		if err != nil {
			if ctx.Err() == nil {
				fail = err
			}
			break
		}
		if b.num.Cmp(best.num) < 0 {
			best, bestSnap = b, save()
			stall = 0
		} else if stall++; stall >= 4 {
			theta /= 2
			stall = 0
		}
	}
	// Restore the best multipliers (windows added after it keep β = 0,
	// which leaves their V_w at 0 and the bound as it was).
	copy(l.mu, bestSnap.mu)
	for c := len(bestSnap.mu); c < len(l.mu); c++ {
		l.mu[c] = 0
	}
	off := 0
	for _, w := range dc.windows {
		for j := range w.beta {
			if off < len(bestSnap.beta) {
				w.beta[j] = bestSnap.beta[off]
			} else {
				w.beta[j] = 0
			}
			off++
		}
	}
	st.Windows, st.Best = len(dc.windows), best.value()
	if fail != nil {
		return dc, best, st, fail
	}
	return dc, best, st, nil
}

// chainWindows: with two-row windows, each row of positive price but the
// first and last is in two windows (with its neighbours on either side),
// its price split between them; otherwise the rows are paired off.
const chainWindows = true

// flowScale is the S of flowBound for m: its weights are 2^−S per block.
func (m *component) flowScale() uint {
	S := uint(36)
	if b := uint(bits.Len(uint(len(m.ends) + len(m.members) + 1))); S+b > 60 {
		S = 60 - b
	}
	return S
}

// rowDuals returns, for the flow relaxation with profits P (2^−muBits
// units per pair) at its optimal point y, a dual price per segment
// (2^−S per block, S = flowScale, never negative): the potentials of the
// residual network (shortest distances by Bellman–Ford from a source
// joined to every node), π_j = φ_j − φ_{j+1}. They only steer the
// decomposition's starting split; the bound's validity does not depend
// on them.
func (m *component) rowDuals(P []int64, y []float64) []int64 {
	nseg := len(m.segCap)
	S := m.flowScale()
	type arc struct {
		u, v int32
		c    int64
	}
	var arcs []arc
	load := make([]int64, nseg+1)
	for i := range m.members {
		if P[i] <= 0 {
			continue
		}
		w := (P[i] << (S - muBits)) / m.d[i]
		if w <= 0 {
			continue
		}
		f := int64(math.Round(y[i] * float64(m.d[i])))
		if f < m.d[i] {
			arcs = append(arcs, arc{m.lo[i], m.hi[i], -w})
		}
		if f > 0 {
			arcs = append(arcs, arc{m.hi[i], m.lo[i], w})
		}
		load[m.lo[i]] += f
		load[m.hi[i]] -= f
	}
	var run int64
	for j := 0; j < nseg; j++ {
		run += load[j]
		slack := m.segCap[j] - run
		if slack < m.segCap[j] {
			arcs = append(arcs, arc{int32(j), int32(j + 1), 0})
		}
		if slack > 0 {
			arcs = append(arcs, arc{int32(j + 1), int32(j), 0})
		}
	}
	phi := make([]int64, nseg+1) // the source's arcs give 0
	for pass := 0; pass <= nseg+1; pass++ {
		changed := false
		for _, a := range arcs {
			if v := phi[a.u] + a.c; v < phi[a.v] {
				phi[a.v] = v
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	pi := make([]int64, nseg)
	for j := range pi {
		pi[j] = max(0, phi[j]-phi[j+1])
	}
	return pi
}

// dualWindows adds windows on the rows whose dual price π (of rowDuals)
// is positive, the limit highest first, with the LP's split: β_{w,n} =
// d_n·Σ_{j} π_j in 2^−muBits units per pair (j over the window's segments
// n spans), so that the flow keeps each pair's reduced profit and each
// window's value is about Σ_j π_j·cap_j: the bound starts near the LP's
// (the windows' integrality only lowers it). With pairs set, the rows
// are taken two by two in step order (each window two rows), else one
// per window.
func (dc *decomposition) dualWindows(pi []int64, limit int, pairs bool) {
	S := dc.m.flowScale()
	var rows []int32
	for r, j := range dc.m.rowSeg {
		if pi[j] > 0 {
			rows = append(rows, int32(r))
		}
	}
	if len(rows) > limit {
		slices.SortStableFunc(rows, func(a, b int32) int { return cmp.Compare(pi[dc.m.rowSeg[b]], pi[dc.m.rowSeg[a]]) })
		rows = rows[:limit]
		slices.Sort(rows)
	}
	// times[r]: windows row r is in (its price is shared among them)
	times := map[int32]int64{}
	var wins [][]int32
	for k := 0; k < len(rows); k++ {
		switch {
		case chainWindows && pairs && len(rows) > 1:
			if k+1 < len(rows) {
				wins = append(wins, []int32{rows[k], rows[k+1]})
			}
		case pairs && k+1 < len(rows):
			wins = append(wins, []int32{rows[k], rows[k+1]})
			k++
		default:
			wins = append(wins, []int32{rows[k]})
		}
	}
	for _, rs := range wins {
		for _, r := range rs {
			times[r]++
		}
	}
	for _, rs := range wins {
		w := dc.m.newWindow(rs...)
		for q, i := range w.items {
			var price int64
			for _, r := range w.rows {
				if j := dc.m.rowSeg[r]; dc.m.lo[i] <= j && j < dc.m.hi[i] {
					price += pi[j] / times[r]
				}
			}
			// a pair's profit per block is at most 2^S in the flow, and
			// its share at most its whole profit: both keep the product
			// far inside int64 (the shares' values do not matter for
			// validity)
			price = min(price, int64(1)<<S)
			w.beta[q] = min((dc.m.d[i]*price)>>(S-muBits), 1<<muBits)
		}
		dc.windows = append(dc.windows, w)
	}
}

// DecompBound returns a certified lower bound on the fewest turns of in
// whose uncached tokens exceed s (tokens): per component, the LP
// relaxation tightened by the cuts' Lagrangian (lagrange.go) and then by
// the decomposition into two-row windows started from the LP's split
// (dualWindows), each run for at most iterations subgradient steps. Any
// multipliers give a valid bound, so it is never above the true fewest
// violations, whatever the iterations; they only make it higher.
func DecompBound(ctx context.Context, in *lp.Instance, s int64, iterations int) (int, error) {
	pr := reduce(in, s)
	members := pr.members()
	served := 0
	for _, mem := range members {
		m := pr.newComponent(mem)
		l, b, _, err := m.lagrangeBound(ctx, ctx, 0, iterations)
		if err != nil {
			return 0, err
		}
		_, b, _, err = m.decompose(ctx, l, b, 0, iterations, true, len(m.rowItems))
		if err != nil {
			return 0, err
		}
		served += b.floor(len(mem))
	}
	return in.K() - pr.always - served, nil
}
