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
	"time"

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
// Each V_w is computed exactly by branch and bound (stretchSolver.solve;
// best-first with depth-first dives, stretchsolve.go, or the older
// depth-first search) with a Lagrangian bound: for row multipliers λ_r ≥ 0
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
// once. Then steps on the shares: a proximal bundle method
// (stretchDecomp.bundle; the default) or the deflected subgradient
// projected onto {β ≥ 0, Σ_w β_{w,n} = 1} (stretchDecomp.deflected), both
// from the subgradient ∂/∂β_{w,n} = z^w_n − mean_{w'∈W_n} z^{w'}_n.
//
// Nothing above needs the stretches to be disjoint or of one span. (a)
// Layers: with a second layer of stretches offset by half a span every
// row is in two stretches, and W_n is every stretch of either layer
// holding a row n spans; the identity Σ_n y_n = |N_0| + Σ_w Σ_{n∈I_w}
// β_{w,n} y_n needs only Σ_{w∈W_n} β_{w,n} = 1, and y restricted to I_w
// is still one of w's points, so the bound holds as it stands. It is
// tighter at its optimum because a stretch of the second layer holds the
// rows on both sides of a boundary of the first: its hull couples them.
// (b) Halving: the stretches are any list of row ranges; one whose
// branch and bound does not finish at the LP's split is replaced by its
// two halves (each a range of rows, the same argument), so the span
// adapts to what the branch and bound can close. (c) Whatever the rule
// that moves the shares, the bound returned is |N_0| + Σ_w val_w of
// shares that were solved (the least met), never a model's prediction.

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
	// nodes counts the nodes of every solve so far
	nodes int
	// stallStop > 0 stops the deflected subgradient after that many
	// steps without a gain of stretchRoundGain pairs, at its best
	// shares (to coarsen the stretches, layer.go)
	stallStop int
	// bestBeta (with stallStop > 0) is the shares of the least bound
	// met since the stretches last changed
	bestBeta [][]int64
	// depthFirst solves each stretch by the depth-first branch and bound
	// (stretchSolver.dfs) instead of the best-first search
	// (stretchSolver.bestFirst, the default): kept for comparison
	depthFirst bool
	// mip, when set, solves the stretches instead of the branch and
	// bound, one at a time, each within at most mipLimit (stretchmip.go)
	mip      lp.Backend
	mipLimit time.Duration
	// flow, when set, solves the stretches by the flow LP's branch and
	// bound (stretchflow.go) on every core, each within nodeLimit nodes
	// and mipLimit
	flow bool
	// flowStrong is stretchFlow's strong-branching candidates
	flowStrong int
}

// servedShare is the fraction of a member's stretches, oc (its entries of
// occ), whose current points serve it: the mean its shares' subgradient
// subtracts.
func (sd *stretchDecomp) servedShare(oc [][2]int32) float64 {
	var mean float64
	for _, o := range oc {
		if sd.wins[o[0]].z[o[1]] {
			mean++
		}
	}
	return mean / float64(len(oc))
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
	nr := int32(len(m.rowSeg))
	var ranges [][2]int32
	for r0 := int32(0); r0 < nr; r0 += int32(span) {
		ranges = append(ranges, [2]int32{r0, min(r0+int32(span), nr)})
	}
	if layers == 2 && nr > int32(span) {
		// a second layer, offset by half a stretch: every boundary of
		// the first lies inside a stretch of the second
		h := int32(span+1) / 2
		ranges = append(ranges, [2]int32{0, h})
		for r0 := h; r0 < nr; r0 += int32(span) {
			ranges = append(ranges, [2]int32{r0, min(r0+int32(span), nr)})
		}
	} else {
		layers = 1
	}
	return m.newStretchDecompRanges(ranges, layers)
}

// newStretchDecompRanges cuts m's rows into the stretches of ranges (rows
// r0 .. r1−1 each; layers: how many of them hold each row), shares all
// zero. A stretch lists its members in increasing order, a member its
// stretches in the order of ranges. Ranges come in runs, each sorted and
// disjoint (a layer is one run), so a member's stretches in a run are
// found by a binary search, not by a pass over every member per stretch:
// at 10^6 turns, 8,000 stretches of 435,000 members.
func (m *component) newStretchDecompRanges(ranges [][2]int32, layers int) *stretchDecomp {
	sd := &stretchDecomp{m: m, S: min(m.flowScale(), 32), nodeLimit: defaultStretchNodes, layers: layers}
	rowOf := func(seg int32) int32 { // first row whose segment is ≥ seg
		r, _ := slices.BinarySearch(m.rowSeg, seg)
		return int32(r)
	}
	sd.wins = make([]*stretch, len(ranges))
	var runs []int // start of each run of sorted, disjoint ranges; then len(ranges)
	for k, rg := range ranges {
		sd.wins[k] = &stretch{r0: rg[0], r1: rg[1]}
		if k == 0 || rg[0] < ranges[k-1][1] {
			runs = append(runs, k)
		}
	}
	runs = append(runs, len(ranges))
	sd.occ = make([][][2]int32, len(m.members))
	for i := range m.members {
		rf, re := rowOf(m.lo[i]), rowOf(m.hi[i])
		if rf >= re {
			sd.free++
		}
		for j := 0; j+1 < len(runs); j++ {
			run := ranges[runs[j]:runs[j+1]]
			// the run's first stretch ending after rf
			k, _ := slices.BinarySearchFunc(run, rf, func(rg [2]int32, r int32) int {
				if rg[1] <= r {
					return -1
				}
				return 1
			})
			for ; k < len(run) && run[k][0] < re; k++ {
				w := sd.wins[runs[j]+k]
				a, b := max(rf, w.r0), min(re, w.r1)
				if a >= b {
					continue
				}
				sd.occ[i] = append(sd.occ[i], [2]int32{int32(runs[j] + k), int32(len(w.items))})
				w.items = append(w.items, int32(i))
				w.cLo = append(w.cLo, a-w.r0)
				w.cHi = append(w.cHi, b-w.r0)
			}
		}
	}
	for _, w := range sd.wins {
		w.beta = make([]int64, len(w.items))
		w.lam = make([]int64, w.r1-w.r0)
		w.z = make([]bool, len(w.items))
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
// deterministic, so the result does not depend on the scheduling; with
// sd.mip set, by the backend one at a time: solveAllMIP) and
// returns |N_0|·2^muBits + Σ_w val_w, an upper bound on the pairs served
// in 2^−muBits units.
func (sd *stretchDecomp) solveAll(ctx context.Context) *big.Int {
	if sd.mip != nil {
		return sd.solveAllMIP(ctx)
	}
	if sd.flow {
		return sd.solveAllFlow(ctx)
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	if len(sd.wins) < 2*workers {
		workers = 1
	}
	run := func(ws []*stretch, limit int) {
		var wg sync.WaitGroup
		next := make(chan *stretch)
		for range min(workers, max(len(ws), 1)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var s stretchSolver
				for w := range next {
					s.solve(ctx, sd, w, limit)
				}
			}()
		}
		for _, w := range ws {
			next <- w
		}
		close(next)
		wg.Wait()
	}
	var todo []*stretch
	for _, w := range sd.wins {
		if !w.fresh { // unchanged shares: the same value
			todo = append(todo, w)
		}
	}
	run(todo, sd.nodeLimit)
	for _, w := range todo {
		sd.nodes += w.nodes
	}
	return sd.total()
}

// total is |N_0|·2^muBits + Σ_w val_w: the bound at the stretches' last
// solves, 2^−muBits units.
func (sd *stretchDecomp) total() *big.Int {
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
	keepA     []uint64
	topsA     []int64
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
	queue     bfQueue // the best-first search's open nodes
}

// solve sets w.val, w.z, w.exact and w.nodes: the branch and bound of the
// package comment above, after a short subgradient descent on w.lam
// (any λ ≥ 0 keeps it exact; better ones prune more).
func (ws *stretchSolver) solve(ctx context.Context, sd *stretchDecomp, w *stretch, limit int) {
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
	ws.fA, ws.keepA, ws.topsA = knapsackA(aItems, aP, m.d, minCap, ws.fA, ws.keepA, ws.topsA)
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
	ws.limit = limit
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
	if sd.depthFirst {
		ws.dfs(0, 0, base)
	} else {
		ws.bestFirst(base)
	}
	w.nodes, w.exact = ws.nodes, !ws.aborted
	if ws.bestMin >= 0 { // a leaf beat it
		clear(w.z)
		copy(w.z, ws.bestPick)
		recoverA(aItems, m.d, minCap, ws.keepA, ws.topsA, ws.bestMin, func(j int) { w.z[aPos[j]] = true })
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
// current residual capacities. A node's bound is nodeBound's (the least
// of a Lagrangian bound and cur + F_A(least rem) + Σ of the open items'
// shares); a leaf's value is cur + F_A(least rem), exact.
func (ws *stretchSolver) dfs(k int, cur, lag int64) {
	bound, minRem := ws.nodeBound(k, cur, lag)
	fa := ws.fA[minRem] << ws.shift
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
	Nodes                 int     // nodes of the stretches' last solves, all told
	AllNodes              int     // nodes of every solve of the run, all told
	Predicted             float64 // the bundle model's last predicted decrease, pairs
	Handoff               int     // the step after which the bundle method handed over to the subgradient (0: it did not)
	Stalled               bool    // the last subgradient run stopped without gain (with coarsening or AddLayer)
	Coarsened             int     // stretches merged with a neighbour (layer.go), all told
	Layered               int     // the step after which the second layer was added (0: it was not)
	MaxSpan               int     // rows of the longest stretch at the end
}

// stretchBound runs the decomposition of m into stretches of span rows
// from the LP's split (the flow relaxation's point y with unit profits
// P), then subgradient steps on the shares until ctx is done, maxIter
// iterations or the bound's floor reaches incumbent. It returns the best
// bound found (pairs served, certified) and statistics.
func (m *component) stretchBound(ctx context.Context, P []int64, y []float64, span, incumbent, maxIter int) (bound, stretchStats) {
	return m.stretchRun(ctx, P, y, StretchOptions{Span: span, Layers: stretchLayers, AddLayer: stretchAddLayer}.config(), incumbent, maxIter)
}

// stretchConfig is how stretchRun cuts a component and moves its
// shares.
type stretchConfig struct {
	span, layers int                         // rows per stretch; layers of stretches (1 or 2)
	nodes        int                         // each stretch's node budget per solve (0: defaultStretchNodes)
	depthFirst   bool                        // solve stretches depth first (the old search; comparisons)
	minSpan      int                         // > 0: stretches unsolved at the LP's split are halved down to minSpan rows
	rule         string                      // a StretchRule
	coarsen      int                         // > 0: when the shares stall, neighbouring stretches merge up to this many rows (layer.go)
	addLayer     bool                        // a second layer when the shares first stall (layer.go)
	roundStall   int                         // steps without gain that end a round (0: stretchRoundStall)
	trace        func(it int, pairs float64) // called after each step (tests)
	flow         bool                        // solve by the flow LP's branch and bound (stretchflow.go)
}

// stretchRun runs the decomposition of m as cfg says from the LP's split
// (y, P: the flow relaxation's point and unit profits), then steps on the
// shares until ctx is done, maxIter steps or the bound's floor reaches
// incumbent, and returns the best bound found and statistics.
func (m *component) stretchRun(ctx context.Context, P []int64, y []float64, cfg stretchConfig, incumbent, maxIter int) (bound, stretchStats) {
	sd := m.newStretchDecomp(cfg.span, max(cfg.layers, 1))
	setup := func() {
		if cfg.nodes > 0 {
			sd.nodeLimit = cfg.nodes
		}
		sd.depthFirst = cfg.depthFirst
	}
	setup()
	st := stretchStats{Stretches: len(sd.wins)}
	if len(sd.wins) == 0 {
		b := bound{num: big.NewInt(int64(len(m.members)) << muBits), S: muBits}
		return b, st
	}
	pi := m.rowDuals(P, y)
	sd.lpShares(pi)
	best := bound{num: sd.solveAll(ctx), S: muBits}
	overall := best
	// adaptive span: a stretch its branch and bound did not finish at
	// the LP's split is cut in two, until each finishes or is
	// cfg.minSpan rows long
	for cfg.minSpan > 0 && ctx.Err() == nil {
		var ranges [][2]int32
		split := false
		for _, w := range sd.wins {
			if h := (w.r1 - w.r0) / 2; !w.exact && h >= int32(cfg.minSpan) {
				ranges = append(ranges, [2]int32{w.r0, w.r0 + h}, [2]int32{w.r0 + h, w.r1})
				split = true
				continue
			}
			ranges = append(ranges, [2]int32{w.r0, w.r1})
		}
		if !split {
			break
		}
		st.AllNodes += sd.nodes
		sd = m.newStretchDecompRanges(ranges, sd.layers)
		setup()
		sd.lpShares(pi)
		// the new stretches' bound, to start the steps from (the run's
		// answer is the least of all bounds met, overall)
		overall = minBound(overall, best)
		best = bound{num: sd.solveAll(ctx), S: muBits}
		st.Stretches = len(sd.wins)
	}
	st.Start, st.Best = best.value(), best.value()
	if cfg.coarsen > 0 || cfg.addLayer {
		sd.stallStop = cmp.Or(cfg.roundStall, stretchRoundStall)
		sd.noteBest()
	}
	for {
		st.Stalled = false
		switch cfg.rule {
		case string(StretchBundle):
			st.Handoff = 0
			best = sd.bundle(ctx, best, incumbent, maxIter-st.Iterations, &st, cfg.trace)
			if st.Handoff > 0 {
				best = sd.deflected(ctx, best, incumbent, maxIter-st.Iterations, &st, cfg.trace)
			}
		default:
			best = sd.deflected(ctx, best, incumbent, maxIter-st.Iterations, &st, cfg.trace)
		}
		if !st.Stalled || ctx.Err() != nil || st.Iterations >= maxIter || best.floor(len(m.members)) <= incumbent {
			break
		}
		overall = minBound(overall, best)
		if cfg.addLayer && sd.layers == 1 {
			// the shares stalled: a second layer, at zero shares (the
			// same bound at the best shares: layer.go)
			sd = sd.addLayer()
			best = bound{num: sd.solveAll(ctx), S: muBits}
			sd.noteBest()
			st.Stretches, st.Layered = len(sd.wins), st.Iterations
			continue
		}
		// the shares stalled: neighbouring stretches merge where their
		// branch and bound closes, from the best shares (never a larger
		// bound: layer.go)
		next, merged := sd.coarsen(ctx, cfg.coarsen)
		if merged == 0 {
			break
		}
		st.Coarsened += merged
		sd = next
		best = bound{num: sd.total(), S: muBits}
		sd.noteBest()
		st.Stretches = len(sd.wins)
	}
	best = minBound(best, overall)
	for _, w := range sd.wins {
		st.MaxSpan = max(st.MaxSpan, int(w.r1-w.r0))
	}
	st.Best = best.value()
	for _, w := range sd.wins {
		if !w.exact {
			st.Inexact++
		}
		st.Nodes += w.nodes
	}
	st.AllNodes += sd.nodes
	return best, st
}

// deflected is the deflected subgradient on the shares from their
// current values, whose bound is best.
func (sd *stretchDecomp) deflected(ctx context.Context, best bound, incumbent, maxIter int, st *stretchStats, trace func(int, float64)) bound {
	m := sd.m
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
	// the step of the last gain of at least stretchRoundGain pairs
	lastGain, gainRef := 0, best.value()
	for it := 0; it < maxIter && ctx.Err() == nil && best.floor(len(m.members)) > incumbent; it++ {
		if sd.stallStop > 0 && it-lastGain >= sd.stallStop {
			st.Stalled = true
			break
		}
		st.Iterations++
		var norm float64
		for _, oc := range sd.occ {
			if len(oc) < 2 {
				continue
			}
			mean := sd.servedShare(oc)
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
			sd.noteBest()
			if v := best.value(); gainRef-v >= stretchRoundGain {
				lastGain, gainRef = it+1, v
			}
		} else if stall++; stall >= stretchStall {
			theta /= 2
			stall = 0
		}
		if trace != nil {
			trace(st.Iterations, best.value())
		}
	}
	if sd.bestBeta != nil {
		sd.setAllShares(sd.bestBeta)
	}
	return best
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

// StretchRule is how the stretches' shares are moved between solves.
type StretchRule string

// The rules for the shares.
const (
	// StretchBundle is a proximal bundle method: one cutting-plane model
	// per stretch from the points its solves returned, each trial point
	// the model's minimum near the best shares so far.
	StretchBundle StretchRule = "bundle"
	// StretchSubgradient is the deflected subgradient: each step along
	// the stretches' disagreement plus 0.7 of the last step.
	StretchSubgradient StretchRule = "subgradient"
)

// StretchOptions says how StretchBoundWith cuts each component into
// stretches and moves their shares. The zero value of a field means its
// default.
type StretchOptions struct {
	// Span is the rows per stretch (≥ 1; default 25).
	Span int
	// Iterations bounds the steps on the shares after the LP's split.
	Iterations int
	// Layers is 1, or 2 for a second layer of stretches offset by half a
	// span (every row in two stretches, coupling across boundaries).
	Layers int
	// MinSpan > 0 halves a stretch whose branch and bound does not finish
	// within its node budget at the LP's split, again and again down to
	// MinSpan rows, before the steps (default 6; negative: never).
	MinSpan int
	// Nodes is each stretch's node budget per solve (default 50,000).
	Nodes int
	// Rule moves the shares (default StretchBundle).
	Rule StretchRule
	// Coarsen > 0 merges neighbouring stretches, up to Coarsen rows,
	// whenever the shares stall (one layer only; a merge is kept where
	// its branch and bound finishes); 0: never.
	Coarsen int
	// AddLayer adds, when the shares first stall, a second layer of
	// stretches offset by half a stretch (one layer only; its shares
	// start at zero, so the bound goes on from where it stalled).
	AddLayer bool
	// StallSteps is the subgradient steps without a gain of 0.01 pairs
	// after which the stretches coarsen or gain their second layer
	// (default 15).
	StallSteps int
	// Flow solves each stretch by the flow LP's branch and bound
	// (stretchflow.go) from the LP's split, one layer, Span rows
	// (default DefaultLongStretchRows), then at most Iterations steps of
	// the bundle method; the other fields are ignored.
	Flow bool
}

// config is o with its defaults filled in.
func (o StretchOptions) config() stretchConfig {
	c := stretchConfig{span: o.Span, layers: max(o.Layers, 1), minSpan: o.MinSpan, nodes: o.Nodes, rule: string(o.Rule), coarsen: o.Coarsen, addLayer: o.AddLayer, roundStall: o.StallSteps}
	if c.minSpan == 0 {
		c.minSpan = stretchMinSpan
	}
	if c.span == 0 {
		c.span = stretchSpan
	}
	if c.rule == "" {
		c.rule = string(StretchBundle)
	}
	return c
}

// StretchBound returns a certified lower bound on the fewest turns of in
// whose uncached tokens exceed s (tokens): per component, the
// decomposition into stretches of span consecutive rows (span ≥ 1), each
// solved exactly (or bounded, beyond its node budget), from the LP's split
// and then at most iterations steps on the shares (the default rule; a
// component with a row of more than 65,536 blocks of capacity gets the
// LP's bound alone). Any shares give a valid bound, so it is never above
// the true fewest violations, whatever the iterations and the time ctx
// leaves.
func StretchBound(ctx context.Context, in *lp.Instance, s int64, span, iterations int) (int, error) {
	if span < 1 {
		return 0, fmt.Errorf("slo: stretch span %d rows: want ≥ 1", span)
	}
	return StretchBoundWith(ctx, in, s, StretchOptions{Span: span, Iterations: iterations, Layers: stretchLayers})
}

// StretchBoundWith is StretchBound with every setting of the
// decomposition in o; like it, its answer is a certified lower bound on
// the fewest violations whatever o says.
func StretchBoundWith(ctx context.Context, in *lp.Instance, s int64, o StretchOptions) (int, error) {
	if o.Span < 0 {
		return 0, fmt.Errorf("slo: stretch span %d rows: want ≥ 1", o.Span)
	}
	if o.Layers < 0 || o.Layers > 2 {
		return 0, fmt.Errorf("slo: stretch layers %d: want 1 or 2", o.Layers)
	}
	if o.Coarsen < 0 || o.StallSteps < 0 {
		return 0, fmt.Errorf("slo: stretch coarsening to %d rows, stall after %d steps: want ≥ 0", o.Coarsen, o.StallSteps)
	}
	if o.Rule != "" && o.Rule != StretchBundle && o.Rule != StretchSubgradient {
		return 0, fmt.Errorf("slo: stretch rule %q: want %q or %q", o.Rule, StretchBundle, StretchSubgradient)
	}
	cfg := o.config()
	pr := reduce(in, s)
	members := pr.members()
	served := 0
	if o.Flow {
		span := o.Span
		if span == 0 {
			span = DefaultLongStretchRows
		}
		for _, mem := range members {
			m := pr.newComponentRows(mem, false)
			b, _, ok := m.mipStretchBound(ctx, nil, span, 0, o.Iterations)
			if !ok {
				return 0, fmt.Errorf("slo: stretches: the LP did not finish: %w", context.Cause(ctx))
			}
			served += b.floor(len(mem))
		}
		return in.K() - pr.always - served, nil
	}
	for _, mem := range members {
		m := pr.newComponent(mem)
		P := wholeShares(len(mem))
		lpb, y, err := m.flowBound(ctx, P, new(big.Int), nil)
		if err != nil {
			return 0, err
		}
		if m.tooWide() {
			served += lpb.floor(len(mem)) // the LP's bound alone
			continue
		}
		b, _ := m.stretchRun(ctx, P, y, cfg, 0, o.Iterations)
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
	// stretchIter bounds the steps on the shares (on the 10^4-turn
	// instance the bundle method levels off after about 50).
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

// stretchAddLayer: whether the root adds the second layer when the
// shares of one layer stall (layer.go). Off: on the 10^4-turn instance of
// docs/tail-bounds.md (seed 1) one layer of 25 rows levels off at
// 3,071.92 pairs after about 50 steps and two layers from the start go on
// to 3,071.59 at twice the CPU per step, but the second layer added at
// zero shares on the stall did not move the bound in the 21 steps before
// the next stall (BenchmarkStretchReshape).
const stretchAddLayer = false

// stretchMinSpan is the fewest rows a stretch is halved to when its
// branch and bound does not finish (0: never halved).
const stretchMinSpan = 6

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
	P := wholeShares(len(m.members))
	_, y, err := m.flowBound(ctx, P, new(big.Int), nil)
	if err != nil {
		return bound{}, stretchStats{}, false
	}
	b, st := m.stretchBound(ctx, P, y, stretchSpan, incumbent, stretchIter)
	return b, st, true
}

// setSharesTable sets every member's shares to those of table (table[k][j]:
// the share, in whole pairs, of stretch k's j-th item) by setSharesRaw;
// f is scratch space, returned for reuse.
func (sd *stretchDecomp) setSharesTable(table [][]float64, f []float64) []float64 {
	for i, oc := range sd.occ {
		if len(oc) == 0 {
			continue
		}
		f = f[:0]
		for _, o := range oc {
			f = append(f, table[o[0]][o[1]])
		}
		sd.setSharesRaw(i, f)
	}
	return f
}

// setSharesRaw stores f (one value per stretch of member i, pairs) on the
// 2^−muBits grid with the sum exactly 2^muBits, keeping signs (the bound
// holds for shares of either sign; a stretch never serves an item of no
// positive share).
func (sd *stretchDecomp) setSharesRaw(i int, f []float64) {
	oc := sd.occ[i]
	var sum int64
	big := 0
	for k, o := range oc {
		w := sd.wins[o[0]]
		v := int64(math.Round(f[k] * (1 << muBits)))
		if w.beta[o[1]] != v {
			w.fresh = false
		}
		w.beta[o[1]] = v
		sum += v
		if f[k] > f[big] {
			big = k
		}
	}
	if sum != 1<<muBits {
		w := sd.wins[oc[big][0]]
		w.beta[oc[big][1]] += int64(1<<muBits) - sum
		w.fresh = false
	}
}

// bundle is a proximal bundle method on the shares (disaggregated: one
// cutting-plane model per stretch, from the points its solves returned).
// Each trial point minimises the model plus a proximity term,
//
//	min_β Σ_w max_{z∈B_w} β_w·z + ‖β − β̂‖²/(2t)  s.t. Σ_{w∈W_n} β_{w,n} = 1,
//
// whose solution is β = β̂ − t(x − x̄) for the convex combinations x_w of
// each bundle B_w that maximise the dual Σ_w β̂_w·x_w − (t/2)Σ_n Σ_w
// (x_{w,n} − x̄_n)² (x̄_n the mean of x_{·,n} over n's stretches), found
// here by block-coordinate Frank–Wolfe sweeps over the stretches. The
// trial point is then solved exactly; it becomes the centre β̂ when it
// lowers the bound by at least a tenth of what the model predicted. Only
// the exact solves enter the bound, so the quadratic program's accuracy
// affects the speed, never the validity.
func (sd *stretchDecomp) bundle(ctx context.Context, best bound, incumbent, maxIter int, st *stretchStats, trace func(int, float64)) bound {
	m := sd.m
	nw := len(sd.wins)
	centre := make([][]float64, nw)
	trial := make([][]float64, nw)
	x := make([][]float64, nw)
	pts := make([][][]bool, nw)
	lam := make([][]float64, nw)
	age := make([][]int, nw)
	for k, w := range sd.wins {
		centre[k] = make([]float64, len(w.beta))
		trial[k] = make([]float64, len(w.beta))
		x[k] = make([]float64, len(w.beta))
		for j, b := range w.beta {
			centre[k][j] = float64(b) / (1 << muBits)
		}
		pts[k] = [][]bool{slices.Clone(w.z)}
		lam[k] = []float64{1}
		age[k] = []int{0}
	}
	lc := best.value()
	// t: the first step as long as a Polyak step towards one pair less
	var norm float64
	for _, oc := range sd.occ {
		if len(oc) < 2 {
			continue
		}
		mean := sd.servedShare(oc)
		for _, o := range oc {
			g := -mean
			if sd.wins[o[0]].z[o[1]] {
				g++
			}
			norm += g * g
		}
	}
	if norm < 1e-12 {
		return best
	}
	t := 1 / norm
	tMin := t / 4
	sinceBest := 0
	nulls := 0
	f := make([]float64, 0, 8)
	// trialOf sets trial = centre − t(x − x̄)
	trialOf := func() {
		for _, oc := range sd.occ {
			if len(oc) == 0 {
				continue
			}
			var mean float64
			for _, o := range oc {
				mean += x[o[0]][o[1]]
			}
			mean /= float64(len(oc))
			for _, o := range oc {
				trial[o[0]][o[1]] = centre[o[0]][o[1]] - t*(x[o[0]][o[1]]-mean)
			}
		}
	}
	dot := func(z []bool, b []float64) float64 {
		var s float64
		for j, on := range z {
			if on {
				s += b[j]
			}
		}
		return s
	}
	for it := 0; it < maxIter && ctx.Err() == nil && best.floor(len(m.members)) > incumbent; it++ {
		st.Iterations++
		// x from the weights
		for k := range sd.wins {
			clear(x[k])
			for p, z := range pts[k] {
				if lam[k][p] == 0 {
					continue
				}
				for j, on := range z {
					if on {
						x[k][j] += lam[k][p]
					}
				}
			}
		}
		trialOf()
		// block-coordinate Frank–Wolfe on the weights
		for sweep := 0; sweep < stretchBundleSweeps; sweep++ {
			var gapSum float64
			for k, w := range sd.wins {
				bp, bv := 0, math.Inf(-1)
				for p, z := range pts[k] {
					if v := dot(z, trial[k]); v > bv {
						bp, bv = p, v
					}
				}
				// gain per unit of γ, and curvature
				lin := bv - dot2(x[k], trial[k])
				if lin <= 1e-12 {
					continue
				}
				gapSum += lin
				var quad float64
				for j := range w.items {
					dlt := -x[k][j]
					if pts[k][bp][j] {
						dlt++
					}
					kk := float64(len(sd.occ[w.items[j]]))
					quad += dlt * dlt * (1 - 1/kk)
				}
				gamma := 1.0
				if quad > 0 {
					gamma = min(1, lin/(t*quad))
				}
				for p := range lam[k] {
					lam[k][p] *= 1 - gamma
				}
				lam[k][bp] += gamma
				// x and the trial shares of the members of k
				for j, i := range w.items {
					dlt := -x[k][j]
					if pts[k][bp][j] {
						dlt++
					}
					dlt *= gamma
					if dlt == 0 {
						continue
					}
					x[k][j] += dlt
					oc := sd.occ[i]
					kk := float64(len(oc))
					for _, o := range oc {
						trial[o[0]][o[1]] += t * dlt / kk
					}
					trial[k][j] -= t * dlt
				}
			}
			if gapSum < 1e-4 {
				break
			}
		}
		// the model's value at the trial point
		f = sd.setSharesTable(trial, f)
		model := float64(sd.free)
		for k, w := range sd.wins {
			bv := 0.0
			for _, z := range pts[k] {
				var s int64
				for j, on := range z {
					if on && w.beta[j] > 0 {
						s += w.beta[j]
					}
				}
				bv = max(bv, float64(s)/(1<<muBits))
			}
			model += bv
		}
		pred := lc - model
		cur := bound{num: sd.solveAll(ctx), S: muBits}
		if cur.num.Cmp(best.num) < 0 {
			best = cur
			sd.noteBest()
			sinceBest = 0
		} else if sinceBest++; sinceBest >= stretchBundlePatience {
			// stalled (stretches left open by their node budget blur
			// the model): back to the centre, for the subgradient
			f = sd.setSharesTable(centre, f)
			best = minBound(best, bound{num: sd.solveAll(ctx), S: muBits})
			st.Handoff = st.Iterations
			return best
		}
		if cv := cur.value(); pred > 0 && lc-cv >= 0.1*pred {
			if lc-cv >= 0.5*pred {
				t *= 2
			}
			lc = cv
			for k, w := range sd.wins {
				for j, b := range w.beta {
					centre[k][j] = float64(b) / (1 << muBits)
				}
			}
			nulls = 0
		} else if nulls++; nulls >= stretchBundleNulls {
			t = max(t/2, tMin)
			nulls = 0
		}
		// the new points into the bundles; old unused ones out
		for k, w := range sd.wins {
			dup := false
			for p, z := range pts[k] {
				if slices.Equal(z, w.z) {
					dup = true
					age[k][p] = 0
				} else if lam[k][p] > 1e-9 {
					age[k][p] = 0
				} else {
					age[k][p]++
				}
			}
			if !dup {
				pts[k] = append(pts[k], slices.Clone(w.z))
				lam[k] = append(lam[k], 0)
				age[k] = append(age[k], 0)
			}
			for p := 0; p < len(pts[k]) && len(pts[k]) > 1; {
				if age[k][p] > stretchBundleAge {
					pts[k] = slices.Delete(pts[k], p, p+1)
					lam[k] = slices.Delete(lam[k], p, p+1)
					age[k] = slices.Delete(age[k], p, p+1)
					continue
				}
				p++
			}
			var s float64
			for _, l := range lam[k] {
				s += l
			}
			if s <= 0 {
				lam[k][len(lam[k])-1] = 1
			} else {
				for p := range lam[k] {
					lam[k][p] /= s
				}
			}
		}
		st.Predicted = pred
		if trace != nil {
			trace(st.Iterations, best.value())
		}
	}
	return best
}

// minBound is the lesser of two bounds in 2^−muBits units.
func minBound(a, b bound) bound {
	if b.num.Cmp(a.num) < 0 {
		return b
	}
	return a
}

// pointsValue is |N_0| plus the value of each stretch's last point at
// its shares (pairs): the bound when every stretch was solved exactly.
func (sd *stretchDecomp) pointsValue() float64 {
	v := int64(sd.free) << muBits
	for _, w := range sd.wins {
		for j, on := range w.z {
			if on && w.beta[j] > 0 {
				v += w.beta[j]
			}
		}
	}
	return float64(v) / (1 << muBits)
}

func dot2(a, b []float64) float64 {
	var s float64
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}

// The bundle method's settings: Frank–Wolfe sweeps per trial point,
// null steps before the proximity parameter halves, and steps a point of
// zero weight stays in its bundle.
const (
	stretchBundleSweeps = 20
	stretchBundleNulls  = 3
	stretchBundleAge    = 10
	// stretchBundlePatience is the steps without a lower bound after
	// which the bundle method hands over to the deflected subgradient
	// (on the 10^4-turn instances it levels off within 20 steps, the
	// subgradient going on lower: docs/tail-bounds.md)
	stretchBundlePatience = 6
)

// Coarsening (layer.go): a round of the shares ends after
// stretchRoundStall subgradient steps without a gain of stretchRoundGain
// pairs.
const (
	stretchRoundStall = 15
	stretchRoundGain  = 0.01
)
