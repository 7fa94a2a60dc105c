package slo

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// Long stretches solved exactly (issue 32, lower bound side), by a MIP
// backend or, as the solves under a time limit do, by the flow LP's
// branch and bound (stretchflow.go).
//
// The stretches' own branch and bound (stretchSolver) closes stretches of
// tens of rows; beyond that it answers its largest open bound, and the
// decomposition is no stronger than its short stretches (docs/
// tail-bounds.md: every span from 25 to 80 rows levels off near 3,071.5
// pairs on the 10^4-turn instance). The integrality gap left is not in
// far rows but in a few hundred consecutive ones, which a MIP solver with
// cuts closes: V_w of a stretch of a few hundred rows is a 0/1 program of
// a few hundred columns. stretchMIP states it for a backend (CBC under
// -tags coin), and takes as w's value the backend's bound, certified as
// solveIP's (certifiedServed) in whole 2^−muBits units:
//
//	maximize Σ_{n∈I_w, β_n>0} β_n z_n  subject to, for every row r of w,
//	Σ_{n spans r} d_n z_n ≤ cap_r,  z ∈ {0, 1},
//
// (items of no positive share are left out: they are 0 at some optimum).
// The shares are whole numbers, so V_w is one, and ⌊−Bound + tol⌋ is an
// upper bound on it when the backend's bound is within tol of a true
// bound (ipRelTol, ipDualTol, the latter per column and unit of share).

// stretchMIP solves stretch w of sd by be within limit (0: none) and sets
// w.val, w.z, w.exact, w.fresh as stretchSolver.solve does. ok is false
// when the backend gave no bound (failure or none reported): w is then
// left unchanged.
func (sd *stretchDecomp) stretchMIP(ctx context.Context, w *stretch, be lp.Backend, limit time.Duration) (ok bool) {
	m := sd.m
	nr := int(w.r1 - w.r0)
	var cols []int // positions in w.items with a positive share
	var maxBeta int64
	for k, b := range w.beta {
		if b > 0 {
			cols = append(cols, k)
			maxBeta = max(maxBeta, b)
		}
	}
	if len(cols) == 0 { // nothing to gain: V_w = 0
		clear(w.z)
		w.val, w.exact, w.fresh = 0, true, true
		return true
	}
	p := &lp.Problem{NumRows: nr, NumCols: len(cols)}
	p.RowLo, p.RowUp = make([]float64, nr), make([]float64, nr)
	for q := range nr {
		p.RowLo[q] = math.Inf(-1)
		p.RowUp[q] = float64(m.segCap[m.rowSeg[w.r0+int32(q)]])
	}
	p.Obj = make([]float64, len(cols))
	p.ColLo, p.ColUp = make([]float64, len(cols)), make([]float64, len(cols))
	p.Integer = make([]bool, len(cols))
	p.ColStart = make([]int, 1, len(cols)+1)
	start := make([]float64, len(cols))
	for j, k := range cols {
		p.Obj[j] = -float64(w.beta[k])
		p.ColUp[j], p.Integer[j] = 1, true
		d := float64(m.d[w.items[k]])
		for q := w.cLo[k]; q < w.cHi[k]; q++ {
			p.RowIndex = append(p.RowIndex, int(q))
			p.Value = append(p.Value, d)
		}
		p.ColStart = append(p.ColStart, len(p.Value))
		if w.z[k] {
			start[j] = 1
		}
	}
	sol, err := be.Solve(ctx, p, lp.Options{TimeLimit: limit, Start: start})
	if err != nil || !sol.HasBound || math.IsNaN(sol.Bound) || math.IsInf(sol.Bound, 0) {
		return false
	}
	tol := ipRelTol*(1+math.Abs(sol.Bound)) + ipDualTol*float64(len(cols))*float64(maxBeta)
	val := int64(math.Floor(-sol.Bound + tol))
	var sum int64
	for _, b := range w.beta {
		sum += max(b, 0)
	}
	w.val, w.exact, w.fresh = min(val, sum), sol.Status == lp.Optimal, true
	if len(sol.X) != len(cols) {
		return true
	}
	// The backend's point, checked in whole numbers. When the backend
	// proved it optimal its value is V_w: CBC, once its incumbent is
	// within its cutoff increment of every open node, reports the
	// optimum with a best possible value up to an increment weaker.
	z := make([]bool, len(w.z))
	var v int64
	for j, k := range cols {
		if sol.X[j] > 0.5 {
			z[k], v = true, v+w.beta[k]
		}
	}
	if !sd.stretchFits(w, z) {
		w.exact = false
		return true
	}
	copy(w.z, z)
	if w.exact {
		w.val = min(w.val, v)
	}
	return true
}

// stretchFits reports whether the items of w marked in z fit every row of
// w.
func (sd *stretchDecomp) stretchFits(w *stretch, z []bool) bool {
	m := sd.m
	load := make([]int64, w.r1-w.r0+1)
	for k, on := range z {
		if on {
			load[w.cLo[k]] += m.d[w.items[k]]
			load[w.cHi[k]] -= m.d[w.items[k]]
		}
	}
	var run int64
	for q := range w.r1 - w.r0 {
		run += load[q]
		if run > m.segCap[m.rowSeg[w.r0+q]] {
			return false
		}
	}
	return true
}

// DefaultLongStretchRows is Options.LongStretchRows's default: the span, in
// rows, of the long stretches solved beside the search
// (mipStretchBound). On the 10^4-turn instance of docs/tail-bounds.md
// (3,993 rows), at the LP's split, stretches of 167 rows solved exactly
// bound the served pairs by 3,070.39 and stretches of 333 rows by
// 3,068.07 (BenchmarkMIPStretches, CBC and the flow branch and bound
// alike), against 3,071.3–3,071.9 for every span the Lagrangian branch
// and bound closes; the flow branch and bound closes the 333-row ones in
// about 14 s on two cores.
const DefaultLongStretchRows = 333

// mipStretchStats is what mipStretchBound did.
type mipStretchStats struct {
	Stretches, Exact int     // stretches, and those the backend closed in the last solve
	Steps            int     // steps on their shares after the first solve
	Start, Best      float64 // the bound at the first solve and the best, pairs
}

// Settings of mipStretchBound.
const (
	// mipStretchParts: the shares start from stretches of a ninth of the
	// span, moved by the pure-Go stretches' steps (their bundle method)
	// for at most mipStretchWarm, then summed into the long stretches
	// (carry, layer.go). CBC closes the long stretches at those shares
	// several times faster than at the LP's split, for about the same
	// bound (BenchmarkMIPStretches, carried-333 against split-333).
	mipStretchParts = 9
	mipStretchWarm  = 30 * time.Second
	// mipStretchLimit bounds one stretch's solve: a stretch the backend
	// does not close in it answers the backend's bound.
	mipStretchLimit = time.Minute
	// mipStretchMin is the fewest stretches a component must span for
	// them: the stretches take the time to the limit, and a smaller
	// component goes to the integer program whole as before, which may
	// prove it (docs/tail-bounds.md: HiGHS proves the 4,000-turn
	// instances, about 1,000 rows, in minutes).
	mipStretchMin = 4
)

// mipStretchBound bounds the pairs m serves by its stretches of span rows
// (stretch.go), each solved by be (stretchMIP): their shares start as
// mipStretchParts describes, then the bundle method takes up to steps
// steps on them, stopping early when ctx ends or the bound's floor
// reaches incumbent; the answer is the least of their bounds and the
// short stretches'. A stretch the backend gives no bound for, or that
// ctx leaves unsolved, takes its Lagrangian value (lagrangeValue), which
// holds for any prices. ok is false when the LP did not finish.
//
// With be nil the flow LP's branch and bound (stretchflow.go) solves the
// stretches instead, from the LP's split: what the solves use. A backend
// (CBC) is the reference it is measured and checked against
// (BenchmarkMIPStretches, TestStretchFlowAgainstCBC).
func (m *component) mipStretchBound(ctx context.Context, be lp.Backend, span, incumbent, steps int) (b bound, st mipStretchStats, ok bool) {
	P := wholeShares(len(m.members))
	_, y, err := m.flowBound(ctx, P, new(big.Int), nil)
	if err != nil || ctx.Err() != nil {
		return bound{}, st, false
	}
	if be == nil {
		// The flow branch and bound closes the long stretches at the LP's
		// split about as fast as CBC (BenchmarkMIPStretches), and their
		// bound there is the better start: 3,068.07 pairs against about
		// 3,069 from the carried shares on the 10^4-turn instance.
		cd := m.newStretchDecomp(span, 1)
		cd.lpShares(m.rowDuals(P, y))
		cd.useFlow()
		b = bound{num: cd.solveAll(ctx), S: muBits}
		st.Stretches, st.Start = len(cd.wins), b.value()
		var bst stretchStats
		b = cd.bundle(ctx, b, incumbent, steps, &bst, nil)
		st.Steps, st.Best = bst.Iterations, b.value()
		for _, w := range cd.wins {
			if w.exact {
				st.Exact++
			}
		}
		return b, st, true
	}
	part := max(span/mipStretchParts, 1)
	sd := m.newStretchDecomp(part, 1)
	sd.lpShares(m.rowDuals(P, y))
	wctx, cancel := context.WithTimeout(ctx, mipStretchWarm)
	var sst stretchStats
	short := sd.bundle(wctx, bound{num: sd.solveAll(wctx), S: muBits}, incumbent, stretchIter, &sst, nil)
	cancel()
	var ranges [][2]int32
	var groups [][]int
	for k := 0; k < len(sd.wins); k += mipStretchParts {
		e := min(k+mipStretchParts, len(sd.wins))
		ranges = append(ranges, [2]int32{sd.wins[k].r0, sd.wins[e-1].r1})
		g := make([]int, 0, e-k)
		for j := k; j < e; j++ {
			g = append(g, j)
		}
		groups = append(groups, g)
	}
	cd := m.newStretchDecompRanges(ranges, 1)
	cd.carry(sd, groups)
	cd.mip, cd.mipLimit = be, mipStretchLimit
	b = bound{num: cd.solveAll(ctx), S: muBits}
	st.Stretches, st.Start = len(cd.wins), b.value()
	var bst stretchStats
	b = cd.bundle(ctx, b, incumbent, steps, &bst, nil)
	// the short stretches' bound holds too, and is the better one when
	// too little time is left for CBC to solve the long ones
	b = minBound(b, short)
	st.Steps, st.Best = bst.Iterations, b.value()
	for _, w := range cd.wins {
		if w.exact {
			st.Exact++
		}
	}
	return b, st, true
}

// solveAllMIP is solveAll with every stretch whose shares changed solved
// by sd.mip in turn, each within sd.mipLimit and an even share of the
// time ctx leaves.
func (sd *stretchDecomp) solveAllMIP(ctx context.Context) *big.Int {
	var todo []*stretch
	for _, w := range sd.wins {
		if !w.fresh {
			todo = append(todo, w)
		}
	}
	for k, w := range todo {
		limit := sd.mipLimit
		if dl, ok := ctx.Deadline(); ok {
			left := time.Until(dl) / time.Duration(len(todo)-k)
			if limit == 0 || left < limit {
				limit = left
			}
		}
		if ctx.Err() != nil || limit <= 0 || !sd.stretchMIP(ctx, w, sd.mip, limit) {
			w.val, w.exact, w.fresh = sd.lagrangeValue(w), false, false
		}
	}
	return sd.total()
}

// startMIPStretches starts, beside the search, mipStretchBound on every
// component that served leaves below its bound ubComp, that is small
// enough for the branch and bound (DefaultMaxNonZeros) and that spans at
// least mipStretchMin stretches of Options.LongStretchRows rows, when ctx
// has a deadline (the stretches stop by time, so their bound depends on
// the load; without a time limit the solve stays deterministic). The
// flow LP's branch and bound (stretchflow.go) solves them on every core.
// The returned function waits for it, lowers ubComp by its bounds and
// notes them in r.Detail; it must be called once, before ubComp is read
// again.
func (pr *problem) startMIPStretches(ctx context.Context, served []bool, ubComp []int, opt Options, r *Result) func() {
	span := opt.LongStretchRows
	if span == 0 {
		span = DefaultLongStretchRows
	}
	if opt.NoSearch || span < 0 {
		return func() {}
	}
	// The flow LP's branch and bound (stretchflow.go) solves the
	// stretches whatever the backend: it closes them at CBC's values 4.7
	// times faster than CBC on the 10^4-turn instance, on two cores
	// (docs/tail-bounds.md, "Long stretches solved in pure Go";
	// BenchmarkMIPStretches), so a COIN-OR build gets no weaker bound in
	// its time than the pure-Go one. mipStretchBound still takes a
	// backend, for that comparison.
	const name = "the flow branch and bound"
	if _, ok := ctx.Deadline(); !ok {
		return func() {}
	}
	members, cnt := pr.membersServed(served)
	type job struct {
		c, served int
		m         *component
	}
	var jobs []job
	for c, mem := range members {
		if len(mem) == 0 || (ubComp[c] >= 0 && cnt[c] >= ubComp[c]) || pr.nonZeros(mem) > DefaultMaxNonZeros {
			// closed, or too large for the branch and bound, where the
			// stretches at scale (scalebound.go) use the cores and
			// CBC's stretches would not all be solved in the time
			continue
		}
		if m := pr.newComponentRows(mem, false); len(m.rowSeg) >= mipStretchMin*span {
			jobs = append(jobs, job{c, cnt[c], m})
		}
	}
	if len(jobs) == 0 {
		return func() {}
	}
	type result struct {
		ub int
		st mipStretchStats
		ok bool
	}
	out := make([]result, len(jobs))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k, j := range jobs {
			b, st, ok := j.m.mipStretchBound(ctx, nil, span, j.served, math.MaxInt)
			if ok { // else b is no bound (the LP did not finish)
				out[k] = result{b.floor(len(j.m.members)), st, ok}
			}
		}
	}()
	return func() {
		<-done
		for k, j := range jobs {
			o := out[k]
			if !o.ok {
				continue
			}
			if ubComp[j.c] < 0 || o.ub < ubComp[j.c] {
				ubComp[j.c] = o.ub
			}
			r.Detail = joinDetail(r.Detail, fmt.Sprintf("%d stretches of %d rows by %s: %.2f pairs served at most, %.2f after %d steps (%d closed in the last)",
				o.st.Stretches, span, name, o.st.Start, o.st.Best, o.st.Steps, o.st.Exact))
		}
	}
}
