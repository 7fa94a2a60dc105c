package slo

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"time"

	"github.com/tailbound/tailbound/internal/segtree"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
)

// lpBound solves the LP relaxation as a min-cost flow and returns the
// candidates it serves fully, a certified upper bound on the pairs served
// per component, and the LP's served total (the sum of those bounds before
// flooring, for reports).
//
// Network: nodes 0..K, the line arc t→t+1 of capacity cap_t (after the
// free pairs) and cost 0, supplies making every cut carry cap_t, and per
// candidate n an arc a_n→n of capacity d_n and cost −w_n, w_n = ⌊2^S/d_n⌋.
// A flow f_n on it is y_n = f_n/d_n of the pair: the LP relaxation of the
// interval rows with z_n = d_n·y_n, exactly as lp.SolveFlow's network is
// the compact TEL program. Since the true weight 1/d_n per block lies in
// [w_n, w_n + 1)·2^−S, for the LP optimum f* of a component c
// Σ f*_n/d_n ≤ (Σ w_n f*_n + Σ f*_n)·2^−S ≤ (W_c + Σ_c d_n)·2^−S, where
// W_c = Σ_c w_n f_n of the min-cost flow (optimal for the w-costs, and the
// components share no binding step so it is optimal on each): the bound,
// floored since a count is whole. S is the largest ≤ 40 the flow code
// accepts (about 34 from 8,000 turns on), lowered while 2^S stays ≥ 4·Σd
// (the rounding term then stays below 1/4 of a pair in all; lpScale).
//
// Each component's bound is then lowered to the weak-duality bound of the
// flow's final prices (dualBound), which holds for any prices and is at
// least as tight where few pairs are fractional. When ctx ends before the
// flow is solved, complete is false and ub is the dual bound of the prices
// the windows had reached (mcf.SolveWindowsPartial): certified all the
// same, nearer the LP the more of the line was solved, and never above
// the count of each component's pairs (the bound without capacities);
// served is then all false and total the sum of those bounds unfloored.
func (pr *problem) lpBound(ctx context.Context) (served []bool, ub []int, total float64, complete bool, err error) {
	return pr.lpBoundFrom(ctx, nil)
}

// lpPrices are the final prices of one LP relaxation (lpBound's network,
// costs ⌊2^S/d⌋), a warm start for the next one at another SLO.
type lpPrices struct {
	pi []int64
	S  int
}

// warmPairDivisor sets a warm start's first cost-scaling phase: ε is
// 1/warmPairDivisor of a pair per block (mcf.SolveWarmWindows's unit is
// 2^S/warmPairDivisor), three phases fewer than from scratch, whose first
// is at the largest cost, 2^S (one pair of one block). Measured
// (2026-11-29, load 30, the embedded workload's LP at SLO 1,950 tokens
// started from the optimal prices at 1,900, one run each): 3.1 s of CPU
// against 4.5 s from scratch; with 1/64 of a pair 5.5 s (the start's
// errors then cost more relabels than the phases saved).
const warmPairDivisor = 1024

// at returns w's prices rescaled to costs ⌊2^S/d⌋ over K+1 nodes (nil when
// w is nil or of another line). Any prices are a valid start: the flow's
// exactness does not depend on them (mcf.SolveWarmWindows), nor does the
// dual bound's validity (dualBound).
func (w *lpPrices) at(S, K int) []int64 {
	if w == nil || len(w.pi) != K+1 {
		return nil
	}
	pi := make([]int64, K+1)
	for v, p := range w.pi {
		switch {
		case S >= w.S:
			pi[v] = p << (S - w.S)
		default:
			pi[v] = p >> (w.S - S)
		}
	}
	return pi
}

// lpBoundFrom is lpBound whose flow starts from warm's prices (rescaled to
// this network's S) when warm is not nil; pr.prices keeps the solved
// flow's final prices for the next solve.
func (pr *problem) lpBoundFrom(ctx context.Context, warm *lpPrices) (served []bool, ub []int, total float64, complete bool, err error) {
	K := pr.in.K()
	plan := mcf.DefaultPlan()
	S := pr.lpScale(plan)
	g := mcf.NewNetwork(K + 1)
	var prev int64
	for t := 0; t < K; t++ {
		c := pr.cap[t]
		g.AddSupply(t, c-prev)
		prev = c
		g.AddArc(t, t+1, c, 0)
	}
	g.AddSupply(K, -prev)
	w := make([]int64, len(pr.cands))
	for i, c := range pr.cands {
		w[i] = pr.pairCost(i, S)
		g.AddArc(c.a, c.n, c.d, -w[i])
	}
	var flow, prices []int64
	if pi := warm.at(S, K); pi != nil {
		flow, prices, complete, _, err = g.SolveWarmWindowsPartial(ctx, pi, max(1, int64(1)<<S/warmPairDivisor), plan)
	} else {
		flow, prices, complete, _, err = g.SolveWindowsPartial(ctx, plan)
	}
	if err != nil {
		return nil, nil, 0, false, fmt.Errorf("slo: LP relaxation: %w", err)
	}
	if !complete {
		ub, frac := pr.dualBound(prices, S)
		for _, v := range frac {
			total += v
		}
		return make([]bool, len(pr.cands)), ub, total, false, nil
	}
	pr.prices = &lpPrices{prices, S}
	dual, _ := pr.dualBound(prices, S)
	served = make([]bool, len(pr.cands))
	pr.lpY = make([]float64, len(pr.cands)) // for the LNS's windows (lns.go)
	W := make([]*big.Int, pr.ncomp)
	sumD := make([]int64, pr.ncomp)
	size, step := pr.limits()
	for c := range W {
		W[c] = new(big.Int)
	}
	var tmp big.Int
	for i, c := range pr.cands {
		f := flow[K+i]
		served[i] = f == c.d
		pr.lpY[i] = float64(f) / float64(c.d)
		k := pr.comp[i]
		W[k].Add(W[k], tmp.Mul(big.NewInt(w[i]), big.NewInt(f)))
		if pr.wt == nil || pr.wt[c.n] > 0 { // a weight of 0 is exact: no rounding term
			sumD[k] += c.d
		}
	}
	ub = make([]int, pr.ncomp)
	den := new(big.Int).Lsh(big.NewInt(1), uint(S))
	for k := range ub {
		num := new(big.Int).Add(W[k], big.NewInt(sumD[k]))
		if pr.wt != nil { // in units of wt: den·(W + Σd)·2^−S
			num.Mul(num, big.NewInt(pr.den))
		}
		q := new(big.Int).Quo(num, den)
		if q.IsInt64() && q.Int64() < int64(size[k]) {
			ub[k] = int(q.Int64()) / step[k] * step[k]
		} else {
			ub[k] = size[k]
		}
		ub[k] = min(ub[k], dual[k])
		v, _ := new(big.Rat).SetFrac(num, den).Float64()
		total += math.Min(v, float64(size[k]))
	}
	return served, ub, total, true, nil
}

// pairCost is ⌊2^S/d⌋ for candidate i of demand d, lpBound's profit per
// block in units of 2^−S; weighted (pr.wt set), ⌊wt·2^S/(den·d)⌋ for
// its turn's wt (at most 2^S/d, as wt ≤ den), computed in 128 bits.
func (pr *problem) pairCost(i, S int) int64 {
	c := pr.cands[i]
	if pr.wt == nil {
		return (int64(1) << S) / c.d
	}
	num := uint64(pr.wt[c.n]) << S
	hi, lo := bits.Mul64(uint64(pr.den), uint64(c.d))
	if hi != 0 {
		return 0 // den·d ≥ 2^64 > wt·2^S
	}
	return int64(num / lo)
}

// lpScale is lpBound's S: costs ⌊2^S/d_n⌋ for the windows of plan.
func (pr *problem) lpScale(plan mcf.Plan) int {
	K := pr.in.K()
	// Cost scaling (on each window of mcf.Windows) needs max|cost| ≤
	// 2^63/8/(n+1)^2 for its n nodes; the primal–dual stage path sums
	// (K+1)·max|cost| < 2^61.
	nw := int64(min(K+1, plan.Size+2*plan.Overlap+1))
	S := 40
	for S > 1 && (int64(1)<<S > math.MaxInt64/8/(nw+1)/(nw+1) || float64(K+1)*math.Ldexp(1, S) >= math.Ldexp(1, 61)) {
		S--
	}
	// No more precision than the bound can use: its rounding term is at
	// most Σd/2^S pairs, so 2^S ≥ 4·Σd keeps it below 1/4 of a pair, and
	// smaller costs mean fewer cost-scaling phases (a factor 16 each).
	// The dual bound taken beside it loses far less than the worst case:
	// only the pairs the LP serves count, and the prices adapt to the
	// rounded costs (at 10^5 turns, 2^S = Σd/11 left it 0.24 pair above
	// the bound of 2^S = 64·Σd, 2026-11-29); it used to be 64·Σd, one
	// phase more.
	var sumAll int64
	for _, c := range pr.cands {
		sumAll += c.d
	}
	for S > 12 && math.Ldexp(1, S-1) >= 4*float64(sumAll) {
		S--
	}
	return S
}

// slackOf returns the tree of load − capacity at every step (blocks) of
// the served candidates.
func (pr *problem) slackOf(served []bool) *segtree.Max {
	K := pr.in.K()
	diff := make([]int64, K+1)
	for i, c := range pr.cands {
		if served[i] {
			diff[c.a] += c.d
			diff[c.n] -= c.d
		}
	}
	v := make([]int64, K)
	var load int64
	for t := 0; t < K; t++ {
		load += diff[t]
		v[t] = load - pr.cap[t]
	}
	return segtree.NewMax(v)
}

// improve adds to served every candidate that still fits, smallest demand
// (then shortest span) first, then tries, for each candidate left out,
// to swap one served candidate for it and one more.
func (pr *problem) improve(ctx context.Context, served []bool) {
	K := pr.in.K()
	if K == 0 || len(pr.cands) == 0 {
		return
	}
	st := pr.slackOf(served)
	order := make([]int, len(pr.cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		ci, cj := pr.cands[i], pr.cands[j]
		ui, uj := ci.d*int64(ci.n-ci.a), cj.d*int64(cj.n-cj.a)
		if ui != uj {
			return int(ui - uj)
		}
		return int(ci.d - cj.d)
	})
	fill := func() {
		for _, i := range order {
			c := pr.cands[i]
			if !served[i] && st.Max(c.a, c.n-1)+c.d <= 0 {
				served[i] = true
				st.Add(c.a, c.n-1, c.d)
			}
		}
	}
	fill()
	// One out, two in: for a served candidate i, take it out, and if two
	// left-out candidates of its component now fit, keep the swap.
	byComp := make([][]int, pr.ncomp)
	for _, i := range order {
		byComp[pr.comp[i]] = append(byComp[pr.comp[i]], i)
	}
	for _, members := range byComp {
		if len(members) > 200 {
			members = members[:200]
		}
		for _, i := range members {
			if ctx.Err() != nil {
				return
			}
			if !served[i] {
				continue
			}
			ci := pr.cands[i]
			st.Add(ci.a, ci.n-1, -ci.d)
			var added []int
			for _, j := range members {
				cj := pr.cands[j]
				if j == i || served[j] || cj.n <= ci.a || cj.a >= ci.n {
					continue
				}
				if st.Max(cj.a, cj.n-1)+cj.d <= 0 {
					st.Add(cj.a, cj.n-1, cj.d)
					added = append(added, j)
					if len(added) == 2 {
						break
					}
				}
			}
			if len(added) == 2 {
				served[i] = false
				for _, j := range added {
					served[j] = true
				}
				continue
			}
			for _, j := range added {
				cj := pr.cands[j]
				st.Add(cj.a, cj.n-1, -cj.d)
			}
			st.Add(ci.a, ci.n-1, ci.d)
		}
	}
	fill()
	rank := make([]int, len(order))
	for r, i := range order {
		rank[i] = r
	}
	idx := pr.newSpanIndex()
	for _, members := range byComp {
		pr.eject(ctx, st, served, members, idx, rank)
	}
}

// ejectAttempts bounds the ejection attempts per component.
const ejectAttempts = 3000

// eject tries, for each left-out candidate u of a component, to serve it
// by taking out served candidates: while a step of u's span is over
// capacity, the served candidate spanning that step with the largest
// demand leaves (the first in members on a tie); then every left-out
// candidate that fits comes in, in the order of members. The move is kept
// when more candidates are served, else undone. members are in increasing
// rank; idx finds the candidates a step concerns (only those spanning a
// step some leaver spans can come in: every other left-out one did not fit
// before and still does not), so an attempt costs what it touches, not
// the component's size (at 10^6 turns, 4.4·10^5 candidates in one
// component, scanning them all made each attempt cost milliseconds).
func (pr *problem) eject(ctx context.Context, st *segtree.Max, served []bool, members []int, idx *spanIndex, rank []int) {
	var near []int
	type move struct {
		i  int
		in bool
	}
	for n, u := range members {
		if n >= ejectAttempts || ctx.Err() != nil {
			return
		}
		if served[u] {
			continue
		}
		var log []move
		set := func(i int, in bool) {
			c := pr.cands[i]
			w := c.d
			if !in {
				w = -w
			}
			st.Add(c.a, c.n-1, w)
			served[i] = in
			log = append(log, move{i, in})
		}
		cu := pr.cands[u]
		set(u, true)
		gain := 1
		ok := true
		comp := pr.comp[u]
		lo, hi := cu.a, cu.n-1 // steps the leavers span
		for st.Max(cu.a, cu.n-1) > 0 {
			t := st.Argmax(cu.a, cu.n-1)
			out := -1
			near = idx.spanning(t, t, near)
			for _, j := range near {
				cj := pr.cands[j]
				if j != u && served[j] && pr.comp[j] == comp && (out < 0 || cj.d > pr.cands[out].d || cj.d == pr.cands[out].d && rank[j] < rank[out]) {
					out = j
				}
			}
			if out < 0 {
				ok = false
				break
			}
			set(out, false)
			lo, hi = min(lo, pr.cands[out].a), max(hi, pr.cands[out].n-1)
			gain--
		}
		if ok {
			near = idx.spanning(lo, hi, near)
			slices.SortFunc(near, func(i, j int) int { return rank[i] - rank[j] })
			for _, j := range near {
				cj := pr.cands[j]
				if !served[j] && pr.comp[j] == comp && st.Max(cj.a, cj.n-1)+cj.d <= 0 {
					set(j, true)
					gain++
				}
			}
		}
		if ok && gain > 0 {
			continue
		}
		for k := len(log) - 1; k >= 0; k-- {
			m := log[k]
			c := pr.cands[m.i]
			w := c.d
			if m.in {
				w = -w
			}
			st.Add(c.a, c.n-1, w)
			served[m.i] = !m.in
		}
	}
}

// solveIP solves component c of members (candidate indices) as a 0/1
// program with opt.Backend, with the cuts and the MIP start of ip.go. ok
// reports a proven optimum (then served holds it and best is its count):
// the backend's, or its certified bound meeting the schedule; a better
// integer point found before a limit replaces the served set all the
// same, and a certified bound below ubComp[c] replaces it.
func (pr *problem) solveIP(ctx context.Context, c int, members []int, served []bool, ubComp []int, opt Options) (best int, ok bool, err error) {
	type event struct {
		t     int
		i     int
		start bool
	}
	ev := make([]event, 0, 2*len(members))
	for _, i := range members {
		c := pr.cands[i]
		ev = append(ev, event{c.a, i, true}, event{c.n, i, false})
	}
	slices.SortFunc(ev, func(x, y event) int { return x.t - y.t })
	// Size first: the non-zeros of the rows are at most Σ over segments
	// of the pairs active there.
	limit := opt.MaxNonZeros
	if limit <= 0 {
		limit = DefaultMaxNonZeros
	}
	nz, act := 0, 0
	for e := 0; e < len(ev); {
		t := ev[e].t
		for ; e < len(ev) && ev[e].t == t; e++ {
			if ev[e].start {
				act++
			} else {
				act--
			}
		}
		if nz += act; nz > limit {
			return 0, false, nil
		}
	}
	if pr.capTree == nil {
		pr.capTree = newMinTree(pr.cap)
	}
	mt := pr.capTree
	active := map[int]bool{}
	var rows [][]int
	var caps []int64
	for e := 0; e < len(ev); {
		t := ev[e].t
		for ; e < len(ev) && ev[e].t == t; e++ {
			if ev[e].start {
				active[ev[e].i] = true
			} else {
				delete(active, ev[e].i)
			}
		}
		if e == len(ev) || len(active) < 2 {
			continue
		}
		c := mt.min(t, ev[e].t-1)
		var sum int64
		row := make([]int, 0, len(active))
		for i := range active {
			row = append(row, i)
			sum += pr.cands[i].d
		}
		if sum <= c {
			continue // every subset fits
		}
		slices.Sort(row)
		rows = append(rows, row)
		caps = append(caps, c)
	}
	if opt.MaxRows > 0 && len(rows) > opt.MaxRows {
		return 0, false, nil
	}
	col := map[int]int{}
	for j, i := range members {
		col[i] = j
	}
	byCol := make([][]int, len(members))
	for r, row := range rows {
		for _, i := range row {
			byCol[col[i]] = append(byCol[col[i]], r)
		}
	}
	cuts := pr.cutsFor(ctx, c, members)
	cutCol := make([][]int, len(members))
	for k, ct := range cuts {
		for _, j := range ct.items {
			cutCol[j] = append(cutCol[j], len(rows)+k)
		}
	}
	p := &lp.Problem{NumRows: len(rows) + len(cuts), NumCols: len(members), ColStart: []int{0}}
	for r := range rows {
		p.RowLo = append(p.RowLo, math.Inf(-1))
		p.RowUp = append(p.RowUp, float64(caps[r]))
	}
	for _, ct := range cuts {
		p.RowLo = append(p.RowLo, math.Inf(-1))
		p.RowUp = append(p.RowUp, float64(ct.rhs))
	}
	for j, i := range members {
		p.Obj = append(p.Obj, -1)
		p.ColLo = append(p.ColLo, 0)
		p.ColUp = append(p.ColUp, 1)
		p.Integer = append(p.Integer, true)
		for _, r := range byCol[j] {
			p.RowIndex = append(p.RowIndex, r)
			p.Value = append(p.Value, float64(pr.cands[i].d))
		}
		for _, r := range cutCol[j] {
			p.RowIndex = append(p.RowIndex, r)
			p.Value = append(p.Value, 1)
		}
		p.ColStart = append(p.ColStart, len(p.Value))
	}
	lopt := lp.Options{TimeLimit: opt.ComponentTimeLimit, Start: startOf(members, served)}
	if dl, has := ctx.Deadline(); has {
		left := max(time.Until(dl), time.Millisecond)
		if lopt.TimeLimit == 0 || left < lopt.TimeLimit {
			lopt.TimeLimit = left
		}
	}
	sol, err := opt.Backend.Solve(ctx, p, lopt)
	if err != nil {
		return 0, false, fmt.Errorf("slo: %s: %w", opt.Backend.Name(), err)
	}
	now := 0
	for _, i := range members {
		if served[i] {
			now++
		}
	}
	defer func() {
		if !ok && err == nil {
			pr.noteIP(opt.Backend.Name(), len(members), len(rows), len(cuts), now, ubComp[c], sol)
		}
	}()
	if ub, has := certifiedServed(sol, len(members)); has {
		if ub < now {
			return 0, false, fmt.Errorf("slo: %s's bound says at most %d pairs (objective ≥ %g), a feasible schedule serves %d", opt.Backend.Name(), ub, sol.Bound, now)
		}
		ubComp[c] = min(ubComp[c], ub)
	}
	if sol.X == nil || len(sol.X) != len(members) || !(sol.Status == lp.Optimal || sol.Status == lp.TimeLimit || sol.Status == lp.IterationLimit) {
		if ubComp[c] <= now {
			return now, true, nil // the bound meets the schedule
		}
		return 0, false, nil
	}
	// Read the point, check every row, and keep it if it serves more.
	pick := make([]bool, len(members))
	cnt := 0
	for j, x := range sol.X {
		if math.Abs(x-math.Round(x)) > lp.IntegralityTol {
			return 0, false, nil
		}
		pick[j] = math.Round(x) == 1
		if pick[j] {
			cnt++
		}
	}
	for r, row := range rows {
		var sum int64
		for _, i := range row {
			if pick[col[i]] {
				sum += pr.cands[i].d
			}
		}
		if sum > caps[r] {
			return 0, false, fmt.Errorf("slo: %s returned a point over the capacity of a step (%d > %d blocks)", opt.Backend.Name(), sum, caps[r])
		}
	}
	if cnt > now {
		for j, i := range members {
			served[i] = pick[j]
		}
	}
	if ubComp[c] < cnt {
		return 0, false, fmt.Errorf("slo: %s's bound says at most %d pairs, its point serves %d", opt.Backend.Name(), ubComp[c], cnt)
	}
	if sol.Status != lp.Optimal {
		if have := max(cnt, now); ubComp[c] <= have {
			return have, true, nil // the bound meets the schedule
		}
		return 0, false, nil
	}
	if cnt < now {
		return 0, false, fmt.Errorf("slo: %s's optimum serves %d pairs, a feasible schedule %d", opt.Backend.Name(), cnt, now)
	}
	return cnt, true, nil
}
