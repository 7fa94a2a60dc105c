package slo

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"slices"
	"sync"

	"github.com/tailbound/tailbound/lp"
)

// Lagrangian decomposition into long stretches of rows (issue 32).
//
// The windows of decomp.go hold one or two rows and keep the flow for the
// rest; on the instances of issue 32 they gain 0.1–0.3 pairs, because the
// LP's fractional pairs are spread thinly along the whole path. Here the
// component's rows (cuts.go: the binding segments, in step order) are cut
// into stretches of many consecutive rows, w = rows r_w .. r_{w+1}−1, and
// nothing is left to the flow. Member n's items I_w are the members
// spanning one of w's rows; a member spans a contiguous range of rows, so
// it lies in a contiguous range W_n of stretches (W_n empty: it spans no
// row, N_0 those members).
//
// Shares. Give member n a share β_{w,n} of its unit profit in each w ∈ W_n
// with Σ_{w∈W_n} β_{w,n} = 1 exactly (whatever their signs). For every
// integer point y of the component — every schedule of its members that
// meets every row; an optimal one is among them —
//
//	Σ_n y_n = Σ_{n∈N_0} y_n + Σ_w Σ_{n∈I_w} β_{w,n} y_n ≤ |N_0| + Σ_w V_w(β_w),
//
// V_w(β_w) = max{Σ_{n∈I_w} β_{w,n} z_n : z ∈ {0,1}^{I_w}, Σ_{n∈I_w spans r}
// d_n z_n ≤ cap_r for every row r of w}: y restricted to I_w is one of
// those z, since y meets every row and w's rows are among them. So for
// any shares summing to one per member, |N_0| + Σ_w V_w is an upper bound
// on the most pairs served, i.e. turns − always-violating − that bound is
// a lower bound on violations; and the same holds with V_w replaced by
// any upper bound on it (a branch and bound stopped early). The identity
// needs the sum to be exactly one: the shares are kept whole multiples of
// 2^−muBits summing to 2^muBits per member, so V_w is a whole number of
// 2^−muBits units and the bound is computed without rounding. Optimized
// over the shares, the bound is the LP over the intersection of the
// stretches' integer hulls (Lagrangian decomposition): every valid
// inequality of tens to hundreds of consecutive rows at once.
//
// Each V_w is computed exactly by depth-first branch and bound
// (stretch.solve) with a Lagrangian bound: for row multipliers λ_r ≥ 0
// (whole units of 2^−S per block) and Λ_n = Σ_{r∈w, n spans r} λ_r, the
// items still open at a node, given the residual capacities rem_r, add at
// most Σ_r λ_r rem_r + Σ_n max(0, β_{w,n} − d_n Λ_n) (weak duality of
// the rows), computed in whole numbers, so pruning a node whose bound is
// not above the best point found never loses the maximum. When the node
// budget runs out the answer is the largest bound of the nodes left open
// (and of the best point): still an upper bound on V_w.
//
// The shares start from the LP's split: with row prices π (rowDuals) and
// reduced profit ρ_n = 1 − d_n Σ_{r spanned} π_r, β_{w,n} = d_n Σ_{r∈w
// spanned} π_r + ρ_n/|W_n|, at which each stretch's LP relaxation has
// the optimal dual π restricted to it and Σ_w LP_w equals the whole LP
// (complementary slackness carries over); each V_w ≤ LP_w, so the bound
// starts at most at the LP's and gains the stretches' integrality gaps at
// once. Then subgradient steps on the shares, projected onto {β ≥ 0,
// Σ_w β_{w,n} = 1}: ∂/∂β_{w,n} = z^w_n − mean_{w'∈W_n} z^{w'}_n.

// stretch is one stretch of consecutive rows of a component and its
// shares.
type stretch struct {
	r0, r1 int32   // the component's rows r0 .. r1−1
	items  []int32 // members spanning one of them, increasing
	cLo    []int32 // per item, the local rows cLo .. cHi−1 it spans
	cHi    []int32
	beta   []int64 // share of each item, 2^−muBits units
	lam    []int64 // per local row, 2^−S per block, ≥ 0 (the solve's bound)
	z      []bool  // the best point of the last solve
	val    int64   // upper bound on V_w at the last solve, 2^−muBits units
	exact  bool    // the last solve finished (val = V_w)
	fresh  bool    // val and z are for the current shares
	nodes  int     // nodes of the last solve
}

// stretchDecomp is the decomposition of one component into stretches.
type stretchDecomp struct {
	m    *component
	S    uint // the row multipliers' unit is 2^−S per block
	wins []*stretch
	free int // members spanning no row
	// occ[n]: (stretch, position) of member n in each stretch of W_n
	occ [][][2]int32
	// nodeLimit bounds each stretch's branch and bound per solve
	nodeLimit int
	// layers is 1, or 2 when a second layer of stretches overlaps the
	// first (each row in two stretches)
	layers int
}

// maxLam caps a row multiplier at one pair per block (2^S units):
// a higher price never lowers the bound, since no share exceeds one.
func (sd *stretchDecomp) maxLam() int64 { return int64(1) << sd.S }

// newStretchDecomp cuts m's rows into stretches of span rows each (the
// last may be shorter), shares all zero.
//
// With layers = 2 (and more than span rows) a second layer of stretches
// is laid over the first, offset by half a stretch, so every row is in
// two stretches; the identity of the package comment holds as long as
// each member's shares over all its stretches sum to one, whatever the
// layers.
func (m *component) newStretchDecomp(span, layers int) *stretchDecomp {
	sd := &stretchDecomp{m: m, S: min(m.flowScale(), 32), nodeLimit: defaultStretchNodes, layers: layers}
	nr := int32(len(m.rowSeg))
	rowOf := func(seg int32) int32 { // first row whose segment is ≥ seg
		r, _ := slices.BinarySearch(m.rowSeg, seg)
		return int32(r)
	}
	rf := make([]int32, len(m.members))
	re := make([]int32, len(m.members))
	for i := range m.members {
		rf[i], re[i] = rowOf(m.lo[i]), rowOf(m.hi[i])
		if rf[i] >= re[i] {
			sd.free++
		}
	}
	sd.occ = make([][][2]int32, len(m.members))
	var ranges [][2]int32
	for r0 := int32(0); r0 < nr; r0 += int32(span) {
		ranges = append(ranges, [2]int32{r0, min(r0+int32(span), nr)})
	}
	if sd.layers == 2 && nr > int32(span) {
		// a second layer, offset by half a stretch: every boundary of
		// the first lies inside a stretch of the second
		h := int32(span+1) / 2
		ranges = append(ranges, [2]int32{0, h})
		for r0 := h; r0 < nr; r0 += int32(span) {
			ranges = append(ranges, [2]int32{r0, min(r0+int32(span), nr)})
		}
	} else {
		sd.layers = 1
	}
	for _, rg := range ranges {
		w := &stretch{r0: rg[0], r1: rg[1]}
		k := int32(len(sd.wins))
		for i := range m.members {
			a, b := max(rf[i], w.r0), min(re[i], w.r1)
			if a >= b {
				continue
			}
			sd.occ[i] = append(sd.occ[i], [2]int32{k, int32(len(w.items))})
			w.items = append(w.items, int32(i))
			w.cLo = append(w.cLo, a-w.r0)
			w.cHi = append(w.cHi, b-w.r0)
		}
		w.beta = make([]int64, len(w.items))
		w.lam = make([]int64, w.r1-w.r0)
		w.z = make([]bool, len(w.items))
		sd.wins = append(sd.wins, w)
	}
	return sd
}

// defaultStretchNodes bounds the nodes of one stretch's branch and bound
// per solve: beyond it the stretch answers its largest open bound.
const defaultStretchNodes = 50_000

// evenShares sets every member's shares equal (the remainder of 2^muBits
// to its first stretch).
func (sd *stretchDecomp) evenShares() {
	for _, oc := range sd.occ {
		if len(oc) == 0 {
			continue
		}
		q := int64(1<<muBits) / int64(len(oc))
		for _, o := range oc {
			sd.wins[o[0]].beta[o[1]] = q
		}
		sd.wins[oc[0][0]].beta[oc[0][1]] += int64(1<<muBits) - q*int64(len(oc))
	}
}

// lpShares sets the shares to the LP's split for row prices pi (per
// segment, 2^−S0 per block, S0 = m.flowScale(), as rowDuals returns
// them), and each stretch's row multipliers to the same prices.
func (sd *stretchDecomp) lpShares(pi []int64) {
	m := sd.m
	S0 := m.flowScale()
	conv := func(p int64) int64 { // 2^−S0 → 2^−S per block, capped
		if S0 >= sd.S {
			return min(p>>(S0-sd.S), sd.maxLam())
		}
		return min(p<<(sd.S-S0), sd.maxLam())
	}
	// each row is in sd.layers stretches: its price is shared among them
	for _, w := range sd.wins {
		for q := range w.lam {
			w.lam[q] = conv(pi[m.rowSeg[w.r0+int32(q)]]) / int64(sd.layers)
		}
	}
	f := make([]float64, 0, 8)
	for i, oc := range sd.occ {
		if len(oc) == 0 {
			continue
		}
		f = f[:0]
		total := 0.0
		for _, o := range oc {
			w := sd.wins[o[0]]
			var s float64
			for q := w.cLo[o[1]]; q < w.cHi[o[1]]; q++ {
				s += float64(w.lam[q])
			}
			v := float64(m.d[i]) * s / float64(int64(1)<<sd.S)
			f = append(f, v)
			total += v
		}
		rho := (1 - total) / float64(len(oc))
		for k := range f {
			f[k] += rho
		}
		sd.setShares(i, f)
	}
}

// setShares projects f (one value per stretch of member i, pairs) onto
// {β ≥ 0, Σ β = 1} and stores it on the 2^−muBits grid with the sum
// exactly 2^muBits.
func (sd *stretchDecomp) setShares(i int, f []float64) {
	oc := sd.occ[i]
	p := projectSimplex(f)
	var sum int64
	big := 0
	old := make([]int64, len(oc))
	for k, o := range oc {
		old[k] = sd.wins[o[0]].beta[o[1]]
		v := int64(math.Floor(p[k] * (1 << muBits)))
		sd.wins[o[0]].beta[o[1]] = v
		sum += v
		if p[k] > p[big] {
			big = k
		}
	}
	sd.wins[oc[big][0]].beta[oc[big][1]] += int64(1<<muBits) - sum
	for k, o := range oc {
		if w := sd.wins[o[0]]; w.beta[o[1]] != old[k] {
			w.fresh = false
		}
	}
}

// projectSimplex returns the Euclidean projection of v onto the simplex
// {x ≥ 0, Σ x = 1}.
func projectSimplex(v []float64) []float64 {
	u := slices.Clone(v)
	slices.SortFunc(u, func(a, b float64) int { return cmp.Compare(b, a) })
	var cum, theta float64
	for k, x := range u {
		cum += x
		if t := (cum - 1) / float64(k+1); x-t > 0 {
			theta = t
		}
	}
	out := make([]float64, len(v))
	for k, x := range v {
		out[k] = max(x-theta, 0)
	}
	return out
}

// solveAll solves every stretch (on every core; each solve is
// deterministic, so the result does not depend on the scheduling) and
// returns |N_0|·2^muBits + Σ_w val_w, an upper bound on the pairs served
// in 2^−muBits units.
func (sd *stretchDecomp) solveAll(ctx context.Context) *big.Int {
	workers := max(1, runtime.GOMAXPROCS(0))
	if len(sd.wins) < 2*workers {
		workers = 1
	}
	var wg sync.WaitGroup
	next := make(chan *stretch)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ws stretchSolver
			for w := range next {
				ws.solve(ctx, sd, w)
			}
		}()
	}
	for _, w := range sd.wins {
		if !w.fresh { // unchanged shares: the same value
			next <- w
		}
	}
	close(next)
	wg.Wait()
	total := big.NewInt(int64(sd.free) << muBits)
	for _, w := range sd.wins {
		total.Add(total, big.NewInt(w.val))
	}
	return total
}

// stretchSolver is the scratch of one stretch's branch and bound.
type stretchSolver struct {
	rem       []int64 // residual capacity per local row, blocks
	order     []int32 // items with positive share, in branching order
	p, lamSum []int64 // per item: share and Λ (2^−S units)
	red       []int64 // per item: p − d·Λ (2^−S units)
	suffix    []int64 // suffix sums over order of max(0, red), plus the A items'
	suffixP   []int64 // suffix sums over order of the shares
	fA        []int64 // knapsack table of the A items (2^−muBits units)
	keepA     []bool
	shift     uint
	bestPick  []bool
	bestMin   int64 // least residual capacity at the best leaf (−1: none)
	pick      []bool
	best      int64 // best point's value, 2^−S units
	openMax   int64 // largest bound of a node left open, 2^−S units
	nodes     int
	limit     int
	aborted   bool
	w         *stretch
	d         []int64
	ctx       context.Context
}

// solve sets w.val, w.z, w.exact and w.nodes: the branch and bound of the
// package comment above, after a short subgradient descent on w.lam
// (any λ ≥ 0 keeps it exact; better ones prune more).
func (ws *stretchSolver) solve(ctx context.Context, sd *stretchDecomp, w *stretch) {
	m := sd.m
	ws.w, ws.d, ws.ctx = w, m.d, ctx
	nr := len(w.lam)
	shift := sd.S - muBits
	ws.rem = slices.Grow(ws.rem[:0], nr)[:nr]
	for q := range ws.rem {
		ws.rem[q] = m.segCap[m.rowSeg[w.r0+int32(q)]]
	}
	n := len(w.items)
	ws.p = slices.Grow(ws.p[:0], n)[:n]
	ws.lamSum = slices.Grow(ws.lamSum[:0], n)[:n]
	ws.red = slices.Grow(ws.red[:0], n)[:n]
	ws.pick = slices.Grow(ws.pick[:0], n)[:n]
	clear(ws.pick)
	for k := range w.items {
		ws.p[k] = max(w.beta[k], 0) << shift
	}
	ws.tuneLambda(sd)
	// Λ per item by prefix sums of λ
	pre := make([]int64, nr+1)
	for q, l := range w.lam {
		pre[q+1] = pre[q] + l
	}
	var base int64 // Σ λ_r cap_r
	for q, l := range w.lam {
		base += l * ws.rem[q]
	}
	// A: items spanning every row of the stretch, a knapsack on the
	// least residual capacity (fA, exact by dynamic programming); the
	// others are branched on.
	ws.order = ws.order[:0]
	var aItems []int32
	var aPos []int
	var aP []int64
	var sumRedA int64 // Σ_A max(0, red): the A items' part of the Lagrangian bound
	for k, i := range w.items {
		ws.lamSum[k] = pre[w.cHi[k]] - pre[w.cLo[k]]
		ws.red[k] = ws.p[k] - m.d[i]*ws.lamSum[k]
		if ws.p[k] <= 0 {
			continue
		}
		if w.cLo[k] == 0 && int(w.cHi[k]) == nr {
			aItems, aPos, aP = append(aItems, i), append(aPos, k), append(aP, w.beta[k])
			sumRedA += max(0, ws.red[k])
			continue
		}
		ws.order = append(ws.order, int32(k))
	}
	minCap := slices.Min(ws.rem)
	ws.fA, ws.keepA = knapsack(aItems, aP, m.d, minCap, ws.keepA)
	// ambiguous items (reduced profit near 0) first: deeper levels hold
	// the items the bound decides
	slices.SortStableFunc(ws.order, func(a, b int32) int {
		return cmp.Compare(abs64(ws.red[a]), abs64(ws.red[b]))
	})
	ws.suffix = slices.Grow(ws.suffix[:0], len(ws.order)+1)[:len(ws.order)+1]
	ws.suffixP = slices.Grow(ws.suffixP[:0], len(ws.order)+1)[:len(ws.order)+1]
	ws.suffix[len(ws.order)] = sumRedA
	ws.suffixP[len(ws.order)] = 0
	for k := len(ws.order) - 1; k >= 0; k-- {
		ws.suffix[k] = ws.suffix[k+1] + max(0, ws.red[ws.order[k]])
		ws.suffixP[k] = ws.suffixP[k+1] + ws.p[ws.order[k]]
	}
	ws.shift = shift
	ws.best, ws.openMax, ws.nodes, ws.aborted = 0, 0, 0, false
	ws.bestMin = -1
	ws.limit = sd.nodeLimit
	ws.bestPick = slices.Grow(ws.bestPick[:0], n)[:n]
	clear(ws.bestPick)
	// The last solve's point (feasible whatever the shares; less its
	// items of no positive share) is the incumbent to beat.
	for k := range w.z {
		if w.z[k] && w.beta[k] > 0 {
			ws.best += ws.p[k]
		} else {
			w.z[k] = false
		}
	}
	ws.dfs(0, 0, base)
	w.nodes, w.exact = ws.nodes, !ws.aborted
	if ws.bestMin >= 0 { // a leaf beat it
		clear(w.z)
		copy(w.z, ws.bestPick)
		recoverKnap(aItems, m.d, minCap, ws.keepA, ws.bestMin, func(j int) { w.z[aPos[j]] = true })
	}
	v := ws.best >> shift // a sum of shares: exact
	if ws.aborted {
		v = max(v, (ws.openMax+(int64(1)<<shift)-1)>>shift)
	}
	w.val, w.fresh = v, true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// dfs explores order[k:] (the items not spanning the whole stretch) with
// value cur (2^−S units) of the items taken and lag = Σ λ_r rem_r at the
// current residual capacities. A node's bound is the least of the
// Lagrangian one (cur + lag + Σ of the open items' positive reduced
// profits, the A items' included) and cur + F_A(least rem) + Σ of the
// open items' shares; a leaf's value is cur + F_A(least rem), exact.
func (ws *stretchSolver) dfs(k int, cur, lag int64) {
	minRem := slices.Min(ws.rem)
	fa := ws.fA[minRem] << ws.shift
	bound := min(cur+lag+ws.suffix[k], cur+fa+ws.suffixP[k])
	if bound <= ws.best {
		return
	}
	if ws.aborted || ws.nodes >= ws.limit {
		ws.aborted = true
		ws.openMax = max(ws.openMax, bound)
		return
	}
	ws.nodes++
	if ws.nodes&1023 == 0 && ws.ctx.Err() != nil {
		ws.limit = ws.nodes // stop: the rest is left open
	}
	w := ws.w
	if k == len(ws.order) {
		if v := cur + fa; v > ws.best {
			ws.best, ws.bestMin = v, minRem
			copy(ws.bestPick, ws.pick)
		}
		return
	}
	it := ws.order[k]
	d := ws.d[w.items[it]]
	fits := true
	for q := w.cLo[it]; q < w.cHi[it]; q++ {
		if ws.rem[q] < d {
			fits = false
			break
		}
	}
	take := func() {
		for q := w.cLo[it]; q < w.cHi[it]; q++ {
			ws.rem[q] -= d
		}
		ws.pick[it] = true
		ws.dfs(k+1, cur+ws.p[it], lag-d*ws.lamSum[it])
		ws.pick[it] = false
		for q := w.cLo[it]; q < w.cHi[it]; q++ {
			ws.rem[q] += d
		}
	}
	if fits && ws.red[it] >= 0 {
		take()
		ws.dfs(k+1, cur, lag)
		return
	}
	ws.dfs(k+1, cur, lag)
	if fits {
		take()
	}
}

// tuneLambda runs a short subgradient descent on w.lam for the stretch's
// Lagrangian dual L(λ) = Σ_r λ_r cap_r + Σ_n max(0, p_n − d_n Λ_n) (an
// upper bound on V_w for every λ ≥ 0), towards a greedy point's value,
// and keeps the best λ found.
func (ws *stretchSolver) tuneLambda(sd *stretchDecomp) {
	w, m := ws.w, sd.m
	nr := len(w.lam)
	caps := ws.rem // not yet touched: the capacities
	eval := func(lam []int64, g []float64) int64 {
		pre := make([]int64, nr+1)
		for q, l := range lam {
			pre[q+1] = pre[q] + l
		}
		var L int64
		for q, l := range lam {
			L += l * caps[q]
			if g != nil {
				g[q] = float64(caps[q])
			}
		}
		diff := make([]int64, nr+1)
		for k, i := range w.items {
			if r := ws.p[k] - m.d[i]*(pre[w.cHi[k]]-pre[w.cLo[k]]); r > 0 {
				L += r
				diff[w.cLo[k]] += m.d[i]
				diff[w.cHi[k]] -= m.d[i]
			}
		}
		if g != nil {
			var run int64
			for q := range g {
				run += diff[q]
				g[q] -= float64(run)
			}
		}
		return L
	}
	// a greedy point: items by share per block-row, taken while they fit
	idx := make([]int, 0, len(w.items))
	for k := range w.items {
		if ws.p[k] > 0 {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		da := float64(m.d[w.items[a]]) * float64(w.cHi[a]-w.cLo[a])
		db := float64(m.d[w.items[b]]) * float64(w.cHi[b]-w.cLo[b])
		return cmp.Compare(float64(ws.p[b])/db, float64(ws.p[a])/da)
	})
	rem := slices.Clone(caps)
	var greedy int64
	for _, k := range idx {
		d := m.d[w.items[k]]
		ok := true
		for q := w.cLo[k]; q < w.cHi[k]; q++ {
			ok = ok && rem[q] >= d
		}
		if ok {
			for q := w.cLo[k]; q < w.cHi[k]; q++ {
				rem[q] -= d
			}
			greedy += ws.p[k]
		}
	}
	g := make([]float64, nr)
	best := eval(w.lam, g)
	bestLam := slices.Clone(w.lam)
	lf := make([]float64, nr)
	for q, l := range w.lam {
		lf[q] = float64(l)
	}
	cur := best
	theta := 1.0
	for it := 0; it < stretchLamIter && cur > greedy; it++ {
		var norm float64
		for q, x := range g {
			if lf[q] <= 0 && x > 0 {
				g[q] = 0
				continue
			}
			norm += x * x
		}
		if norm == 0 {
			break
		}
		step := theta * float64(cur-greedy) / norm
		for q := range lf {
			lf[q] = min(max(0, lf[q]-step*g[q]), float64(sd.maxLam()))
			w.lam[q] = int64(lf[q])
		}
		cur = eval(w.lam, g)
		if cur < best {
			best = cur
			copy(bestLam, w.lam)
		} else {
			theta /= 2
		}
	}
	copy(w.lam, bestLam)
}

// stretchLamIter bounds tuneLambda's steps per solve.
const stretchLamIter = 30

// stretchStats reports a run of the stretch decomposition.
type stretchStats struct {
	Iterations, Stretches int
	Start, Best           float64 // bound at the LP's split and at the end, pairs
	Inexact               int     // stretches whose last solve hit the node limit
}

// stretchBound runs the decomposition of m into stretches of span rows
// from the LP's split (the flow relaxation's point y with unit profits
// P), then subgradient steps on the shares until ctx is done, maxIter
// iterations or the bound's floor reaches incumbent. It returns the best
// bound found (pairs served, certified) and statistics.
func (m *component) stretchBound(ctx context.Context, P []int64, y []float64, span, incumbent, maxIter int) (bound, stretchStats) {
	return m.stretchBoundNodes(ctx, P, y, span, stretchLayers, incumbent, maxIter, 0)
}

// stretchBoundNodes is stretchBound with layers of stretches (1 or 2) and
// each stretch's node budget per solve (0: defaultStretchNodes).
func (m *component) stretchBoundNodes(ctx context.Context, P []int64, y []float64, span, layers, incumbent, maxIter, nodes int) (bound, stretchStats) {
	sd := m.newStretchDecomp(span, layers)
	if nodes > 0 {
		sd.nodeLimit = nodes
	}
	st := stretchStats{Stretches: len(sd.wins)}
	if len(sd.wins) == 0 {
		b := bound{num: big.NewInt(int64(len(m.members)) << muBits), S: muBits}
		return b, st
	}
	sd.lpShares(m.rowDuals(P, y))
	best := bound{num: sd.solveAll(ctx), S: muBits}
	st.Start, st.Best = best.value(), best.value()
	// float copies of the shares for the subgradient
	bf := make([][]float64, len(sd.wins))
	for k, w := range sd.wins {
		bf[k] = make([]float64, len(w.beta))
		for j, b := range w.beta {
			bf[k][j] = float64(b) / (1 << muBits)
		}
	}
	theta := 1.0
	cur := best
	stall := 0
	f := make([]float64, 0, 8)
	// dir: the step's direction per (stretch, item), the projected
	// subgradient plus stretchDeflect times the last direction (a
	// deflected subgradient: at equal CPU it ends lower than the plain
	// one, docs/tail-bounds.md)
	dir := make([][]float64, len(sd.wins))
	for k, w := range sd.wins {
		dir[k] = make([]float64, len(w.beta))
	}
	for it := 0; it < maxIter && ctx.Err() == nil && best.floor(len(m.members)) > incumbent; it++ {
		st.Iterations++
		var norm float64
		for _, oc := range sd.occ {
			if len(oc) < 2 {
				continue
			}
			var mean float64
			for _, o := range oc {
				if sd.wins[o[0]].z[o[1]] {
					mean++
				}
			}
			mean /= float64(len(oc))
			for _, o := range oc {
				g := -mean // ∂/∂β_{w,n} = z^w_n, less the mean over n's stretches
				if sd.wins[o[0]].z[o[1]] {
					g++
				}
				g += stretchDeflect * dir[o[0]][o[1]]
				dir[o[0]][o[1]] = g
				norm += g * g
			}
		}
		if norm < 1e-12 {
			break
		}
		target := max(float64(incumbent), math.Floor(best.value())-0.05)
		step := theta * max(cur.value()-target, 0.05) / norm
		for i, oc := range sd.occ {
			if len(oc) < 2 {
				continue
			}
			f = f[:0]
			for _, o := range oc {
				f = append(f, bf[o[0]][o[1]]-step*dir[o[0]][o[1]])
			}
			sd.setShares(i, f)
			for _, o := range oc {
				bf[o[0]][o[1]] = float64(sd.wins[o[0]].beta[o[1]]) / (1 << muBits)
			}
		}
		// a solve cut short by ctx answers its open bound: still valid
		cur = bound{num: sd.solveAll(ctx), S: muBits}
		if cur.num.Cmp(best.num) < 0 {
			best = cur
			stall = 0
		} else if stall++; stall >= stretchStall {
			theta /= 2
			stall = 0
		}
	}
	st.Best = best.value()
	for _, w := range sd.wins {
		if !w.exact {
			st.Inexact++
		}
	}
	return best, st
}

// tooWide says a row of m has more capacity than maxWindowCap blocks: a
// stretch's knapsack table holds one entry per block of its least
// capacity for each pair spanning it whole, so such components get no
// stretches.
func (m *component) tooWide() bool {
	for _, r := range m.rowSeg {
		if m.segCap[r] > maxWindowCap {
			return true
		}
	}
	return false
}

// StretchBound returns a certified lower bound on the fewest turns of in
// whose uncached tokens exceed s (tokens): per component, the
// decomposition into stretches of span consecutive rows (span ≥ 1), each
// solved exactly (or bounded, beyond its node budget), from the LP's split
// and then at most iterations subgradient steps (a component with a row
// of more than 65,536 blocks of capacity gets the LP's bound alone). Any
// shares give a valid
// bound, so it is never above the true fewest violations, whatever the
// iterations and the time ctx leaves.
func StretchBound(ctx context.Context, in *lp.Instance, s int64, span, iterations int) (int, error) {
	if span < 1 {
		return 0, fmt.Errorf("slo: stretch span %d rows: want ≥ 1", span)
	}
	pr := reduce(in, s)
	members := make([][]int, pr.ncomp)
	for i, c := range pr.comp {
		members[c] = append(members[c], i)
	}
	served := 0
	for _, mem := range members {
		m := pr.newComponent(mem)
		P := make([]int64, len(mem))
		for i := range P {
			P[i] = 1 << muBits
		}
		lpb, y, err := m.flowBound(ctx, P, new(big.Int), nil)
		if err != nil {
			return 0, err
		}
		if m.tooWide() {
			served += lpb.floor(len(mem)) // the LP's bound alone
			continue
		}
		b, _ := m.stretchBound(ctx, P, y, span, 0, iterations)
		served += b.floor(len(mem))
	}
	return in.K() - pr.always - served, nil
}

// Defaults of the stretches at the root of the branch and bound.
const (
	// stretchSpan is the rows per stretch: on the 10^4-turn instance of
	// docs/tail-bounds.md 20–30 rows bound best within a minute (5 rows
	// gain a third as much, 80 rows leave most stretches unsolved).
	stretchSpan = 25
	// stretchIter bounds the subgradient steps on the shares (on the
	// 10^4-turn instance the bound still falls after 200).
	stretchIter = 300
)

// The subgradient's step rule: the direction keeps stretchDeflect of the
// last one, and the step halves after stretchStall steps without a lower
// bound. On the 10^4-turn instance (seed 1, about 45 s of CPU) the
// plain rule (no deflection, halving after 3) ends at 3,073.02 pairs,
// halving after 10 at 3,072.75, deflection 0.5 at 3,072.62, both with
// 0.7 at 3,072.56.
const (
	stretchDeflect = 0.7
	stretchStall   = 10
)

// stretchLayers is the layers of stretches (1 or 2; newStretchDecomp).
const stretchLayers = 1

// rootStretch is the stretches' bound of m for the branch and bound's
// root: the flow LP's point, then stretchBound from its split. ok is false
// when it was skipped (no rows, a capacity above maxWindowCap blocks: the
// knapsack tables grow with it) or ctx ended before the LP.
func (m *component) rootStretch(ctx context.Context, incumbent int) (bound, stretchStats, bool) {
	if len(m.rowSeg) == 0 || ctx.Err() != nil {
		return bound{}, stretchStats{}, false
	}
	if m.tooWide() {
		return bound{}, stretchStats{}, false
	}
	P := make([]int64, len(m.members))
	for i := range P {
		P[i] = 1 << muBits
	}
	_, y, err := m.flowBound(ctx, P, new(big.Int), nil)
	if err != nil {
		return bound{}, stretchStats{}, false
	}
	b, st := m.stretchBound(ctx, P, y, stretchSpan, incumbent, stretchIter)
	return b, st, true
}
