package slo

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tailbound/tailbound/internal/segtree"
	"github.com/tailbound/tailbound/lp"
)

// Large-neighbourhood search over the served set (issue 32, deliverable
// 2). Each window frees a few tens of candidates, fixes every other
// candidate as it is, and solves the freed candidates' 0/1 program exactly
// by branch and bound (windowSolver, window.go): maximize the pairs
// served, then minimize a tie weight, under the residual capacity the
// fixed candidates leave on every step the freed ones span. The current
// choice of the freed candidates is feasible for that program, so its
// optimum never serves fewer: a window replaces the choice only by one
// serving more, or as many at a lower tie weight. A window whose branch
// and bound hits its node limit keeps the best point found (still
// feasible, still never worse) and shrinks the next windows; a window
// solved within a tenth of the limit grows them.
//
// Windows start from a left-out candidate u of an open component, the
// one nearest to fitting of two drawn at random (its overflow
// max_t(load_t − cap_t) + d_u over its span, less the blocks the LP
// relaxation gives it: windows go where the LP is fractional and where
// there is slack). Even windows free u, the served candidates overlapping
// u's span most (those holding the steps u needs; the LP's unserved
// first) and the left-out ones nearest to fitting; odd windows free the
// candidates contained in the least interval of steps around a random
// step of u's span that holds enough of them (a time slab). Ties go to the
// fewest block-steps Σ d·(n − a) (room for later windows), and in every
// third window to random weights: a step of a random walk over the
// choices serving as many, which leaves local optima the block-step
// tie-break would stay in (on the 10^4-turn birth–death instance at
// 131,072 tokens: 418 violations without the walk and slabs, 415 with).

// lnsOptions bound a large-neighbourhood search.
type lnsOptions struct {
	// maxFree is the number of candidates freed per window at the start
	// (adapted between minFree and maxFreeCap as windows close or not).
	maxFree int
	// stall stops the search after this many windows in a row without a
	// pair gained; windows (> 0) after this many windows in all.
	stall, windows int
	// nodes bounds each window's branch and bound.
	nodes int
	// seed makes the choice of windows reproducible.
	seed uint64
	// target stops the search once this many candidates are served (0:
	// no target); a percentile probe needs no more than its rank asks.
	target int
	// gained (nil: none) is the gains of the workers of a parallel
	// round, shared: a worker adds its gains to it and counts toward
	// target the candidates its copy served at the start plus every
	// worker's gains (the copies agree outside their regions).
	gained *atomic.Int64
}

// DefaultLNSWindows is Options.LNSWindows's default: the windows the
// search of Violations solves at most without a time limit (deterministic;
// about 10 s of CPU at 10^4 turns on this machine).
const DefaultLNSWindows = 4000

// defaultLNS returns the search's default options: a deterministic budget
// of windows, stopping early after a quarter of it without gain.
func defaultLNS() lnsOptions {
	return lnsOptions{maxFree: 24, stall: DefaultLNSWindows / 4, windows: DefaultLNSWindows, nodes: 20_000, seed: 1}
}

const (
	minFree    = 8
	maxFreeCap = 64
)

// lnsStats counts what a search did.
type lnsStats struct {
	// Windows solved, Exact those closed by the branch and bound within
	// its node limit, Moves the windows that changed the served set,
	// Gained the pairs gained in all.
	Windows, Exact, Moves, Gained int
	// Free is the window size (candidates freed) reached at the end.
	Free int
	// Restarts counts the searches started again after a stall
	// (improveLNS).
	Restarts int
}

// add accumulates o's counts into s (Free: the larger).
func (s *lnsStats) add(o lnsStats) {
	s.Windows += o.Windows
	s.Exact += o.Exact
	s.Moves += o.Moves
	s.Gained += o.Gained
	s.Restarts += o.Restarts
	s.Free = max(s.Free, o.Free)
}

// lns improves served (a feasible set of candidates: every step within
// capacity) in place by large-neighbourhood search and returns what it
// did. fixed (nil: none) pins candidates: fixed[i] > 0 keeps i served,
// fixed[i] < 0 keeps it out (a branch-and-bound node's fixings; served
// must already agree with them). ub (nil: none) is a bound on the pairs
// served per component: a component that reaches it is not searched
// further. The served count never decreases and served stays feasible;
// the search stops at opt.stall windows without gain, at opt.target, when
// every component reaches ub, or when ctx is done.
func (pr *problem) lns(ctx context.Context, served []bool, fixed []int8, ub []int, opt lnsOptions) lnsStats {
	var stats lnsStats
	K := pr.in.K()
	m := len(pr.cands)
	if K == 0 || m == 0 {
		return stats
	}
	if opt.maxFree <= 0 {
		opt = defaultLNS()
	}
	isFixed := func(i int) bool { return fixed != nil && fixed[i] != 0 }
	// Slack tree of load − capacity per step, and served counts per
	// component.
	diff := make([]int64, K+1)
	compCount := make([]int, pr.ncomp)
	total := 0
	for i, c := range pr.cands {
		if served[i] {
			diff[c.a] += c.d
			diff[c.n] -= c.d
			compCount[pr.comp[i]]++
			total++
		}
	}
	v := make([]int64, K)
	var load int64
	for t := 0; t < K; t++ {
		load += diff[t]
		v[t] = load - pr.cap[t]
	}
	st := segtree.NewMax(v)
	idx := pr.newSpanIndex()
	spanning := idx.spanning
	area := func(i int) int64 { c := pr.cands[i]; return c.d * int64(c.n-c.a) }
	closed := func(c int) bool { return ub != nil && compCount[c] >= ub[c] }
	rng := rand.New(rand.NewPCG(opt.seed, 0x5eed))
	ws := &windowSolver{nodeLimit: opt.nodes}
	maxFree := opt.maxFree
	var out, in, cand, free []int
	key := make([]float64, m)
	sinceGain := 0
	start := total
	reached := func() bool {
		if opt.gained != nil {
			return start+int(opt.gained.Load()) >= opt.target
		}
		return total >= opt.target
	}
	for sinceGain < opt.stall && (opt.windows <= 0 || stats.Windows < opt.windows) && ctx.Err() == nil && (opt.target <= 0 || !reached()) {
		// Pick u: the left-out, unpinned candidate of an open component
		// with the least overflow of two drawn at random.
		u := -1
		var uOver int64
		for try := 0; try < 8 && u < 0 || try < 2; try++ {
			i := rng.IntN(m)
			if served[i] || isFixed(i) || closed(pr.comp[i]) {
				continue
			}
			c := pr.cands[i]
			over := st.Max(c.a, c.n-1) + c.d
			if pr.lpY != nil {
				// the LP's wish to serve i counts as room
				over -= int64(pr.lpY[i] * float64(c.d))
			}
			if u < 0 || over < uOver {
				u, uOver = i, over
			}
		}
		if u < 0 {
			sinceGain++
			continue
		}
		cu := pr.cands[u]
		if stats.Windows%2 == 0 {
			// Out: served candidates overlapping u's span, most overlap
			// first (they hold the steps u needs); in: left-out ones
			// overlapping it, nearest to fitting first (the ones that might
			// come in beside u). Keys are jittered by a random factor in
			// [1/2, 3/2) so that repeated windows differ.
			out = out[:0]
			in = in[:0]
			cand = spanning(cu.a, cu.n-1, cand)
			for _, i := range cand {
				if i == u || isFixed(i) {
					continue
				}
				c := pr.cands[i]
				if served[i] {
					ov := float64(min(c.n, cu.n) - max(c.a, cu.a))
					if pr.lpY != nil {
						ov *= 1.5 - pr.lpY[i]
					}
					key[i] = -ov * (0.5 + rng.Float64())
					out = append(out, i)
				} else {
					over := st.Max(c.a, c.n-1) + c.d
					if pr.lpY != nil {
						over -= int64(pr.lpY[i] * float64(c.d))
					}
					key[i] = float64(over) * (0.5 + rng.Float64())
					in = append(in, i)
				}
			}
			byKey := func(i, j int) int { return cmp.Compare(key[i], key[j]) }
			slices.SortFunc(out, byKey)
			slices.SortFunc(in, byKey)
			nOut := min(len(out), (maxFree-1)*2/3)
			nIn := min(len(in), maxFree-1-nOut)
			nOut = min(len(out), maxFree-1-nIn)
			free = append(free[:0], u)
			free = append(free, out[:nOut]...)
			free = append(free, in[:nIn]...)
		} else {
			// A slab: the candidates contained in the least interval
			// [t0 − r, t0 + r] around a random step t0 of u's span that
			// holds maxFree of them (the time-window neighbourhood).
			t0 := cu.a + rng.IntN(cu.n-cu.a)
			w := 2 * (cu.n - cu.a)
			cand = spanning(max(0, t0-w), min(K-1, t0+w), cand)
			free = free[:0]
			for _, i := range cand {
				c := pr.cands[i]
				if isFixed(i) {
					continue
				}
				key[i] = float64(max(t0-c.a, c.n-1-t0)) + rng.Float64()
				free = append(free, i)
			}
			slices.SortFunc(free, func(i, j int) int { return cmp.Compare(key[i], key[j]) })
			free = free[:min(len(free), maxFree)]
		}
		for _, i := range free {
			if served[i] {
				compCount[pr.comp[i]]--
			}
		}
		// Ties go to the fewest block-steps (room for later windows), or
		// in every third window to random weights (a step of a random
		// walk over the choices serving as many, to leave a local
		// optimum).
		weight := area
		if stats.Windows%3 == 2 {
			weight = func(int) int64 { return rng.Int64N(1 << 20) }
		}
		gain, changed, exact := pr.solveWindow(ws, st, served, free, weight)
		for _, i := range free {
			if served[i] {
				compCount[pr.comp[i]]++
			}
		}
		stats.Windows++
		if exact {
			stats.Exact++
			if ws.nodes < opt.nodes/10 && maxFree < maxFreeCap {
				maxFree++
			}
		} else if maxFree > minFree {
			maxFree -= 2
		}
		if changed {
			stats.Moves++
		}
		if gain > 0 {
			stats.Gained += gain
			total += gain
			if opt.gained != nil {
				opt.gained.Add(int64(gain))
			}
			sinceGain = 0
		} else {
			sinceGain++
		}
	}
	stats.Free = maxFree
	return stats
}

// solveWindow solves the 0/1 program of the free candidates with every
// other candidate fixed as served says, and writes its optimum into
// served and st when it serves more, or as many over fewer block-steps.
// exact reports that the branch and bound finished within its node limit.
func (pr *problem) solveWindow(ws *windowSolver, st *segtree.Max, served []bool, free []int, weight func(i int) int64) (gain int, changed, exact bool) {
	// Take the free candidates out; the residual capacity of a step is
	// then −(load − cap).
	cur := 0
	var curArea int64
	ws.reset()
	for _, i := range free {
		c := pr.cands[i]
		it := wItem{a: c.a, n: c.n, d: c.d, served: served[i], w: weight(i)}
		ws.items = append(ws.items, it)
		if served[i] {
			st.Add(c.a, c.n-1, -c.d)
			cur++
			curArea += it.w
		}
	}
	ws.segments(func(lo, hi int) int64 { return -st.Max(lo, hi) })
	exact = ws.solve(cur, curArea)
	pick := ws.best
	if ws.bestCount > cur || ws.bestCount == cur && ws.bestArea < curArea {
		changed = true
		gain = ws.bestCount - cur
	} else {
		pick = nil
	}
	for k, i := range free {
		if pick != nil {
			served[i] = pick[k]
		}
		if served[i] {
			c := pr.cands[i]
			st.Add(c.a, c.n-1, c.d)
		}
	}
	return gain, changed, exact
}

// improveLNS runs the search of Violations on served after the greedy
// stages, with ubComp (−1: unknown) as the per-component bounds; Result
// records its work.
func (pr *problem) improveLNS(ctx context.Context, served []bool, ubComp []int, opt Options, r *Result) {
	if opt.NoImprove || opt.NoLNS || len(pr.cands) == 0 {
		return
	}
	ub := make([]int, len(ubComp))
	size := make([]int, pr.ncomp)
	for _, c := range pr.comp {
		size[c]++
	}
	most := 0 // most candidates any schedule serves, by the bounds
	for c, u := range ubComp {
		ub[c] = u
		if u < 0 {
			ub[c] = size[c]
		}
		most += ub[c]
	}
	if opt.StopAt > 0 && pr.in.K()-pr.always-most > opt.StopAt {
		// the bounds already prove more than StopAt violations: no
		// schedule can reach the target
		return
	}
	lo := defaultLNS()
	if opt.LNSWindows > 0 {
		lo.windows, lo.stall = opt.LNSWindows, max(opt.LNSWindows/4, 1)
	}
	restart, wide := false, false
	if dl, ok := ctx.Deadline(); ok {
		// Under a time limit, search until 3/4 of the time left is used
		// (the integer programs get the rest) or until 4 windows per
		// candidate in a row gain nothing, without a budget in all. When
		// no integer stage follows (integerStageFollows) the search has
		// all of the time and a stalled search starts again from its
		// schedule with another seed until the time is used: on `gen
		// birth-death --turns 1500 --seed 3` at 32,768 tokens it stalled
		// at 64 violations after 8 s of 60, where other seeds reach 63
		// (CBC's best; docs/tail-bounds.md, branch h46up). On problems of
		// wideMinCandidates or more, the wide stage (lns_wide.go) runs
		// first within the same share.
		share := time.Until(dl) * 3 / 4
		if !pr.integerStageFollows(served, ub, opt) {
			share = time.Until(dl) * 99 / 100
			restart = true
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, share)
		defer cancel()
		lo.stall, lo.windows = max(lo.stall, 4*len(pr.cands)), 0
		wide = opt.StopAt == 0 && len(pr.cands) >= wideMinCandidates
	}
	if opt.StopAt > 0 {
		// served pairs needed for at most StopAt violations
		lo.target = pr.in.K() - pr.always - opt.StopAt
	}
	var st lnsStats
	if wide {
		st.add(pr.wideStage(ctx, served, ub, lo))
	}
	for {
		s := pr.lnsRound(ctx, served, ub, lo)
		st.add(s)
		if !restart || ctx.Err() != nil || s.Windows == 0 || pr.searchDone(served, ub, lo.target) {
			break
		}
		// Stalled with time left and nothing after it to use the time:
		// search on from the same schedule with another stream of windows.
		lo.seed += 0x9e3779b97f4a7c15
		st.Restarts++
	}
	r.LNSWindows, r.LNSExact, r.LNSGained = st.Windows, st.Exact, st.Gained
}

// searchDone reports whether the search has nothing left to do on served:
// target (> 0) candidates served, or every component at its bound ub.
func (pr *problem) searchDone(served []bool, ub []int, target int) bool {
	cnt := make([]int, pr.ncomp)
	total := 0
	for i, c := range pr.comp {
		if served[i] {
			cnt[c]++
			total++
		}
	}
	if target > 0 && total >= target {
		return true
	}
	for c, n := range cnt {
		if n < ub[c] {
			return false
		}
	}
	return true
}

// integerStageFollows reports whether Violations's stage after the search
// can use time: a Backend is set and some component the bounds ub (pairs
// served, per component) leave open is small enough for the branch and
// bound (search.go: at most DefaultMaxNonZeros non-zeros) or for the
// integer program (Options.MaxNonZeros). When none is (a single component
// of 10^5 turns has about 4.6·10^6 non-zeros), the search may take the
// whole time left: on 10^5 turns under a 120 s limit the last quarter
// was otherwise spent idle.
func (pr *problem) integerStageFollows(served []bool, ub []int, opt Options) bool {
	if opt.Backend == nil {
		return false
	}
	limit := opt.MaxNonZeros // the integer program's
	if limit <= 0 {
		limit = DefaultMaxNonZeros
	}
	if !opt.NoSearch {
		limit = max(limit, DefaultMaxNonZeros) // the branch and bound's
	}
	members, cnt := pr.membersServed(served)
	for c, m := range members {
		if len(m) > 0 && cnt[c] < ub[c] && pr.nonZeros(m) <= limit {
			return true
		}
	}
	return false
}

// spanIndex finds the candidates spanning a range of steps, or contained
// in one. The candidates are split into classes by span length (class k:
// n − a in [2^k, 2^(k+1))), each sorted by start with its longest span,
// so that those of class k spanning [lo, hi] start in
// [lo − maxSpan_k + 1, hi]: a query scans about as many candidates as it
// returns, where one list with the longest span of all (3,531 steps
// against a mean of 204 at 10^5 turns) scanned every candidate starting
// within the longest span of lo.
type spanIndex struct {
	pr      *problem
	classes []spanClass
}

// spanClass is one span-length class of a spanIndex.
type spanClass struct {
	byStart []int // candidates, by start
	starts  []int // their starts
	maxSpan int
}

func (pr *problem) newSpanIndex() *spanIndex {
	x := &spanIndex{pr: pr}
	for i, c := range pr.cands {
		k := bits.Len(uint(c.n-c.a)) - 1 // spans are ≥ 1
		for len(x.classes) <= k {
			x.classes = append(x.classes, spanClass{})
		}
		x.classes[k].byStart = append(x.classes[k].byStart, i)
	}
	for k := range x.classes {
		cl := &x.classes[k]
		slices.SortStableFunc(cl.byStart, func(i, j int) int { return pr.cands[i].a - pr.cands[j].a })
		cl.starts = make([]int, len(cl.byStart))
		for q, i := range cl.byStart {
			cl.starts[q] = pr.cands[i].a
			cl.maxSpan = max(cl.maxSpan, pr.cands[i].n-pr.cands[i].a)
		}
	}
	return x
}

// spanning appends to out[:0] the candidates spanning a step of lo..hi,
// by start and then by index (the order of one list sorted by start, so
// that the search's windows, and with them a solve without a time limit,
// are what they were before the classes).
func (x *spanIndex) spanning(lo, hi int, out []int) []int {
	out = out[:0]
	for k := range x.classes {
		cl := &x.classes[k]
		q, _ := slices.BinarySearch(cl.starts, lo-cl.maxSpan+1)
		for ; q < len(cl.starts) && cl.starts[q] <= hi; q++ {
			if i := cl.byStart[q]; x.pr.cands[i].n > lo {
				out = append(out, i)
			}
		}
	}
	if len(x.classes) > 1 {
		slices.SortFunc(out, func(i, j int) int {
			if c := cmp.Compare(x.pr.cands[i].a, x.pr.cands[j].a); c != 0 {
				return c
			}
			return cmp.Compare(i, j)
		})
	}
	return out
}

// Improved is the outcome of Improve.
type Improved struct {
	// Schedule is x_k, tokens cached at each turn's arrival: admissible
	// (lp.Instance.CheckSchedule), with Violations violations.
	Schedule []int64
	// Start is the violations of the start: the turns that meet the SLO
	// whatever the schedule, the pairs served in every optimum, and the
	// competing pairs the given schedule serves (repaired to fit, see
	// fromSchedule); for a schedule Violations returned it is that
	// schedule's count. Violations ≤ Start.
	Start, Violations int
	// Windows is the number of windows solved, Exact those solved
	// exactly (within the node limit).
	Windows, Exact int
}

// Improve runs the large-neighbourhood search of Violations at SLO s
// (tokens) from the pairs schedule x (tokens cached per turn) serves, for
// at most windows windows (0: the default budget of Violations without a
// time limit) or until ctx is done, the windows drawn by seed. It never
// returns more violations than its start.
func Improve(ctx context.Context, in *lp.Instance, s int64, x []int64, windows int, seed uint64) (*Improved, error) {
	if len(x) != in.K() {
		return nil, fmt.Errorf("slo: schedule of %d turns for an instance of %d", len(x), in.K())
	}
	pr := reduce(in, s)
	served := pr.fromSchedule(x)
	base := in.K() - pr.always
	res := &Improved{Start: base - count(served)}
	opt := defaultLNS()
	opt.seed = seed
	if windows > 0 {
		opt.windows, opt.stall = windows, windows
	}
	st := pr.lns(ctx, served, nil, nil, opt)
	res.Windows, res.Exact = st.Windows, st.Exact
	res.Schedule = pr.schedule(served)
	res.Violations = Count(in, res.Schedule, s)
	if err := in.CheckSchedule(res.Schedule); err != nil {
		return nil, fmt.Errorf("slo: internal error: the improved schedule is not admissible: %w", err)
	}
	if want := base - count(served); res.Violations != want {
		return nil, fmt.Errorf("slo: internal error: the improved schedule has %d violations, the search counts %d", res.Violations, want)
	}
	return res, nil
}

// schedule is the schedule serving the candidates of served beside what
// reduce fixed (pairs served in every optimum, forced pairs).
func (pr *problem) schedule(served []bool) []int64 {
	x := slices.Clone(pr.x)
	for i, c := range pr.cands {
		if served[i] {
			x[c.n] = c.d * pr.in.BlockSize
		}
	}
	return x
}
