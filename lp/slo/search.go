package slo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// Time shares of the pure-Go search on one open component.
const (
	// defaultSearchTime bounds a component's search when neither the
	// context nor Options.ComponentTimeLimit does.
	defaultSearchTime = 10 * time.Second
	// lagrangeShare is the part of a component's search time given to
	// the root's subgradient method (the rest goes to branching).
	lagrangeShare = 3
	// stretchShare: the stretches' bound (stretch.go) runs first, in all
	// but 1/stretchShare of the component's time; the cuts then have
	// what is left (their 1/lagrangeShare at most), the branching any
	// rest. On the 10^4-turn instance of docs/tail-bounds.md the
	// stretches lower the bound by 5 pairs, the cuts and a hundred nodes
	// by less than one.
	stretchShare = 3
)

// search runs the branch and bound with cuts on open component c of
// Violations (members: its candidates), tightening ubComp[c] and served,
// and reports whether it proved the component. With a Backend other than
// gonum (CBC) it takes a quarter of the component's time, leaving the
// rest to the backend, which starts from its cuts and schedule (ip.go):
// on the 10^4-turn instance of docs/tail-bounds.md CBC's root with those
// cuts lowers the bound by about 5 pairs, where a further 200 nodes of
// this search lower it by less than one.
func (pr *problem) search(ctx context.Context, members []int, served []bool, ubComp []int, c int, r *Result, opt Options) (bool, error) {
	budget := opt.ComponentTimeLimit
	if opt.SearchTimeLimit > 0 {
		budget = opt.SearchTimeLimit
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); budget == 0 || left < budget {
			budget = left
		}
	}
	if budget <= 0 {
		budget = defaultSearchTime
	}
	if opt.Backend.Name() != "gonum" {
		budget /= 4
	}
	if nz := pr.nonZeros(members); nz > DefaultMaxNonZeros {
		r.Detail = joinDetail(r.Detail, fmt.Sprintf("branch and bound skipped: %d pairs, %d non-zeros (more than %d)", len(members), nz, DefaultMaxNonZeros))
		return false, nil
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	before := 0
	for _, i := range members {
		if served[i] {
			before++
		}
	}
	ub, st, err := pr.branchAndBound(sctx, members, served, pr.componentImprover(opt), budget/lagrangeShare, budget-budget/stretchShare)
	if err != nil {
		return false, fmt.Errorf("slo: branch and bound: %w", err)
	}
	if st.Incumbent < before || ub < st.Incumbent {
		return false, fmt.Errorf("slo: internal error: branch and bound bound %d, schedule %d pairs (started from %d)", ub, st.Incumbent, before)
	}
	ubComp[c] = min(ubComp[c], ub)
	best := st.Lagrange.Best
	if st.Decomp.Windows > 0 {
		best = min(best, st.Decomp.Best) // the windows' (decomp.go), from the cuts'
	}
	pr.learn(c, st.Cuts, st.CutMu)
	if !math.IsNaN(r.LP) && st.Lagrange.Root > 0 {
		if math.IsNaN(r.CutBound) {
			r.CutBound = r.LP
		}
		r.CutBound += st.Lagrange.Root - best
	}
	if st.Proven {
		r.ProvenByIP++
		r.ProvenBySearch++
		return true, nil
	}
	stretch := ""
	if st.Stretch.Stretches > 0 {
		stretch = fmt.Sprintf(", stretch bound %.2f (%d stretches, %d steps)", st.Stretch.Best, st.Stretch.Stretches, st.Stretch.Iterations)
	}
	r.Detail = joinDetail(r.Detail, fmt.Sprintf("branch and bound stopped (%s) after %d nodes at [%d, %d] pairs served, cut bound %.2f from the LP's %.2f%s", st.Stopped, st.Nodes, st.Incumbent, ub, best, st.Lagrange.Root, stretch))
	return false, nil
}

// nonZeros is the number of (step segment, pair) incidences of the rows of
// members' program: its size, before it is built.
func (pr *problem) nonZeros(members []int) int {
	ends := make([]int, 0, 2*len(members))
	for _, i := range members {
		ends = append(ends, pr.cands[i].a, pr.cands[i].n)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	nz := 0
	for _, i := range members {
		lo, _ := slices.BinarySearch(ends, pr.cands[i].a)
		hi, _ := slices.BinarySearch(ends, pr.cands[i].n)
		nz += hi - lo
	}
	return nz
}

// componentImprover is the improver the branch and bound applies to its
// starting schedule: none, because that schedule has already been through
// the greedy, exchange and ejection passes and the large-neighbourhood
// search (lns.go), which Violations runs on every component before the
// branch and bound; a second search from the same schedule would repeat
// the first.
func (pr *problem) componentImprover(Options) Improver { return nil }
