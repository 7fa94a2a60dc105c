package slo

import (
	"cmp"
	"context"
	"slices"

	"github.com/tailbound/tailbound/internal/segtree"
)

// Slabs: larger windows of the large-neighbourhood search (lns.go) solved
// exactly by the stretches' best-first branch and bound (stretchsolve.go).
//
// A window of the search frees a few tens of candidates and solves them by
// windowSolver, whose bound (a Lagrangian over segments, a knapsack per
// segment) stops closing windows beyond about 60 items. A slab frees every
// unpinned candidate whose span lies inside an interval of steps (up to a
// few hundred of them), fixes every other candidate as it is, and solves
// the freed candidates' 0/1 program — most pairs served under the residual
// capacity of every step — as one stretch with unit shares: the stretch
// solver's bound (row multipliers tuned per solve, a knapsack of the
// items spanning every row, best-first with dives) is the one that closes
// stretches of 40 rows of a whole component (docs/tail-bounds.md).
//
// The slab's program is built as a component (component.go) whose rows
// are its binding segments under the residual capacities; the current
// choice of the freed candidates is feasible for it and is the stretch
// solver's incumbent (it keeps the last point and replaces it only by a
// strictly better one), so a slab never serves fewer. Its point is checked
// against the residual capacities before it is taken.

// slabProgram builds the component of the freed candidates free under
// the residual capacities resid(lo, hi) (least over steps lo..hi, blocks),
// as newComponent does under the full capacities.
func (pr *problem) slabProgram(free []int, resid func(lo, hi int) int64) *component {
	a, n, d := make([]int, len(free)), make([]int, len(free)), make([]int64, len(free))
	for k, c := range free {
		p := pr.cands[c]
		a[k], n[k], d[k] = p.a, p.n, p.d
	}
	m := windowComponent(a, n, d, resid)
	m.members = free
	return m
}

// windowComponent builds the component of items k spanning steps
// a[k]..n[k]−1 with demands d[k] (blocks) under the capacities resid(lo,
// hi) (least over steps lo..hi, blocks; negative ones read as 0), with its
// rows and their items; members are the local indices 0..len(d)−1.
func windowComponent(a, n []int, d []int64, resid func(lo, hi int) int64) *component {
	m := &component{members: make([]int, len(d)), d: slices.Clone(d),
		lo: make([]int32, len(d)), hi: make([]int32, len(d))}
	for k := range d {
		m.members[k] = k
		m.ends = append(m.ends, a[k], n[k])
	}
	slices.Sort(m.ends)
	m.ends = slices.Compact(m.ends)
	m.segCap = make([]int64, max(len(m.ends)-1, 0))
	for j := range m.segCap {
		m.segCap[j] = max(resid(m.ends[j], m.ends[j+1]-1), 0)
	}
	dem := make([]int64, len(m.ends))
	for k := range d {
		l, _ := slices.BinarySearch(m.ends, a[k])
		h, _ := slices.BinarySearch(m.ends, n[k])
		m.lo[k], m.hi[k] = int32(l), int32(h)
		dem[l] += d[k]
		dem[h] -= d[k]
	}
	// A segment is a row when its members' demands exceed its capacity.
	var run int64
	for j := range m.segCap {
		run += dem[j]
		if run > m.segCap[j] {
			m.rowSeg = append(m.rowSeg, int32(j))
		}
	}
	m.rowItems = make([][]int32, len(m.rowSeg))
	for k := range d {
		r0, _ := slices.BinarySearch(m.rowSeg, m.lo[k])
		for r := r0; r < len(m.rowSeg) && m.rowSeg[r] < m.hi[k]; r++ {
			m.rowItems[r] = append(m.rowItems[r], int32(k))
		}
	}
	return m
}

// slabResult is what solveSlab did.
type slabResult struct {
	gain    int  // pairs gained (≥ 0)
	exact   bool // the branch and bound finished: the slab is optimal
	nodes   int
	refused bool // the solver's point did not fit (never expected; not taken)
}

// releaseWindow takes the served candidates of free out of st (the lns
// slack tree of load − capacity per step) and returns free's program on
// the residual capacities the others leave (slabProgram), the served set
// on it, and how many of free are served.
func (pr *problem) releaseWindow(st *segtree.Max, served []bool, free []int) (m *component, pick []bool, cur int) {
	for _, i := range free {
		if served[i] {
			c := pr.cands[i]
			st.Add(c.a, c.n-1, -c.d)
			cur++
		}
	}
	m = pr.slabProgram(free, func(lo, hi int) int64 { return -st.Max(lo, hi) })
	pick = make([]bool, len(free))
	for k, i := range free {
		pick[k] = served[i]
	}
	return m, pick, cur
}

// solveSlab solves the program of the freed candidates free (every other
// candidate fixed as served says; st is the lns slack tree of load −
// capacity per step) exactly within nodeLimit nodes and writes its point
// into served and st when it serves more.
func (pr *problem) solveSlab(ctx context.Context, ss *stretchSolver, st *segtree.Max, served []bool, free []int, nodeLimit int) slabResult {
	var res slabResult
	m, pick, cur := pr.releaseWindow(st, served, free)
	if len(m.rowSeg) == 0 {
		// nothing binds: every freed candidate fits beside the others
		for k := range pick {
			pick[k] = true
		}
		res.exact = true
	} else {
		sd := m.newStretchDecompRanges([][2]int32{{0, int32(len(m.rowSeg))}}, 1)
		w := sd.wins[0]
		inStretch := make([]bool, len(free))
		for k, i := range w.items {
			w.beta[k] = 1 << muBits
			w.z[k] = pick[i]
			inStretch[i] = true
		}
		ss.solve(ctx, sd, w, nodeLimit)
		res.exact, res.nodes = w.exact, w.nodes
		for k := range pick {
			if !inStretch[k] {
				pick[k] = true // spans no row: fits whatever the rest
			}
		}
		for k, i := range w.items {
			pick[i] = w.z[k]
		}
	}
	got := count(pick)
	if got > cur && !m.fits(pick) {
		res.refused = true
		got = cur
	}
	if got > cur {
		res.gain = got - cur
		for k, i := range free {
			served[i] = pick[k]
		}
	}
	for _, i := range free {
		if served[i] {
			c := pr.cands[i]
			st.Add(c.a, c.n-1, c.d)
		}
	}
	return res
}

// fits reports whether the members marked in pick fit every segment's
// capacity.
func (m *component) fits(pick []bool) bool {
	load := make([]int64, len(m.segCap)+1)
	for i, p := range pick {
		if p {
			load[m.lo[i]] += m.d[i]
			load[m.hi[i]] -= m.d[i]
		}
	}
	var run int64
	for j, c := range m.segCap {
		run += load[j]
		if run > c {
			return false
		}
	}
	return true
}

// slabAround returns, in out[:0], the unpinned candidates of the least
// interval of steps around t0 that holds up to size of them (each
// candidate's distance from t0 is how far its span reaches from it), by
// that distance. It looks within reach steps of t0 first and doubles reach
// until size of them are found or the whole line is.
func (pr *problem) slabAround(idx *spanIndex, t0, reach, size int, isFixed func(int) bool, key []float64, out, scratch []int) ([]int, []int) {
	K := pr.in.K()
	reach = max(reach, 1)
	for {
		scratch = idx.spanning(max(0, t0-reach), min(K-1, t0+reach), scratch)
		out = out[:0]
		for _, i := range scratch {
			if isFixed(i) {
				continue
			}
			c := pr.cands[i]
			if c.a < t0-reach || c.n-1 > t0+reach {
				continue
			}
			key[i] = float64(max(t0-c.a, c.n-1-t0))
			out = append(out, i)
		}
		if len(out) >= size || reach >= K {
			break
		}
		reach *= 2
	}
	slices.SortStableFunc(out, func(i, j int) int { return cmp.Compare(key[i], key[j]) })
	return out[:min(len(out), size)], scratch
}

// slabSweep is what a sweep of slabs did.
type slabSweep struct {
	// Slabs solved, Exact those the branch and bound finished (their
	// freed candidates' choice is then optimal given the rest), Gained
	// the pairs gained in all, Refused the points not taken because they
	// did not fit (never expected).
	Slabs, Exact, Gained, Refused int
}

// sweepSlabs improves served (feasible) in place by solving, for every
// stride-th step t0 of the line, the slab of up to size unpinned
// candidates nearest to t0 (slabAround) within nodes nodes each, until
// ctx is done. With every slab exact and nothing gained, no schedule
// differing from served only inside one slab serves more: served is
// locally optimal for slabs of that size.
func (pr *problem) sweepSlabs(ctx context.Context, served []bool, size, stride, nodes int) slabSweep {
	var sw slabSweep
	if len(pr.cands) == 0 {
		return sw
	}
	st := pr.slackOf(served)
	idx := pr.newSpanIndex()
	key := make([]float64, len(pr.cands))
	var ss stretchSolver
	var free, scratch []int
	noPin := func(int) bool { return false }
	for t0 := 0; t0 < pr.in.K() && ctx.Err() == nil; t0 += max(stride, 1) {
		free, scratch = pr.slabAround(idx, t0, stride, size, noPin, key, free, scratch)
		if len(free) == 0 {
			continue
		}
		r := pr.solveSlab(ctx, &ss, st, served, free, nodes)
		sw.Slabs++
		sw.Gained += r.gain
		if r.exact {
			sw.Exact++
		}
		if r.refused {
			sw.Refused++
		}
	}
	return sw
}
