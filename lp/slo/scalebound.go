package slo

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"time"
)

// The stretches' bound (stretch.go) on components too large for the
// branch and bound (issue 32 at scale).
//
// The branch and bound of search.go, whose root runs the stretches, skips
// a component of more than DefaultMaxNonZeros (step segment, pair)
// incidences: at 10^5 turns and beyond the candidates form one component
// of that size (4.6·10^6 incidences at 10^5 turns, 4.6·10^7 at 10^6), so
// the lower end stayed the LP's. The stretches need none of what makes
// such a component large for the branch and bound (no rows' member
// lists, no cut pool, no flow per node), only the rows and the LP's row
// prices, which lpBound has already computed for the whole line: so here
// they start from those prices (segmentPrices) instead of solving the
// component's flow again, on a component built without its rows' member
// lists, and each step solves the stretches on every core (solveAll).
//
// The bound is the stretches' own (|N_0| + Σ_w val_w at shares that were
// solved, whole units of 2^−muBits): the prices only choose the starting
// shares, so any prices — even ones of a flow cut short — give a valid
// bound.

// scaleStretchShare is the most of the time left after the LP that the
// stretches' split may take on the components the branch and bound skips
// (the search, lns.go, has the rest, and the steps on the shares what the
// search leaves). The split takes about 13 s of CPU at 10^5 turns (7 s
// of wall time on two quiet cores, of about 114 s left); the share
// only stops it on a loaded machine, where its stretches cut short still
// answer a valid bound.
const scaleStretchShare = 0.35

// bigComponents returns the components open after the LP (served counts
// below ub) that the branch and bound of search.go will skip for their
// size, each as its members (candidate indices, increasing).
// Components of at most limit incidences are left out (limit < 0: none).
func (pr *problem) bigComponents(served []bool, ub []int, limit int) [][]int {
	members, cnt := pr.membersServed(served)
	var out [][]int
	for c, m := range members {
		if len(m) > 0 && (ub[c] < 0 || cnt[c] < ub[c]) && (limit < 0 || pr.nonZeros(m) > limit) {
			out = append(out, m)
		}
	}
	return out
}

// segmentPrices returns one price per segment of m (2^−S0 per block, S0 =
// m.flowScale(), the unit lpShares expects) from node prices lpp of
// lpBound's network: segment j's is the sum over its steps t of dualBound's
// u_t = min(max(0, π_t − π_{t+1}), 2^S), rescaled, capped at one pair per
// block (no share is above one, so a higher price changes nothing).
func (pr *problem) segmentPrices(m *component, lpp *lpPrices) []int64 {
	S0 := int(m.flowScale())
	one := int64(1) << lpp.S
	capS0 := int64(1) << S0
	out := make([]int64, len(m.segCap))
	for j := range out {
		var sum int64
		for t := m.ends[j]; t < m.ends[j+1] && sum < one; t++ {
			if d := lpp.pi[t] - lpp.pi[t+1]; d > 0 {
				sum += min(d, one)
			}
		}
		sum = min(sum, one)
		if S0 >= lpp.S {
			out[j] = min(sum<<(S0-lpp.S), capS0)
		} else {
			out[j] = sum >> (lpp.S - S0)
		}
	}
	return out
}

// spanRanges cuts nr rows into ranges of span rows (the last shorter).
func spanRanges(nr, span int) [][2]int32 {
	var ranges [][2]int32
	for r0 := 0; r0 < nr; r0 += span {
		ranges = append(ranges, [2]int32{int32(r0), int32(min(r0+span, nr))})
	}
	return ranges
}

// scaleRun is the stretches' bound of one large component in progress:
// its decomposition at the shares last solved, the least bound met, and
// statistics.
type scaleRun struct {
	sd    *stretchDecomp
	best  bound
	st    stretchStats
	rule  string
	start time.Time
	split time.Duration // wall time of the split's solve
	cut   bool          // the split was cut short by its context
}

// stretchSplit solves the stretches of cfg.span rows (one layer, never
// halved: at 10^5 turns halving the unsolved stretches re-solves every
// stretch for a worse bound, docs/tail-bounds.md) at the LP's split for
// row prices pi (per segment, 2^−S0 per block as segmentPrices returns
// them) on every core (solveAllBy): first with a tenth of cfg.nodes nodes
// each, then those left open again with ten times as many, up to
// cfg.nodes, each keeping the lesser of its bounds. A stretch cut short by
// ctx answers the largest bound of its open nodes, one not begun its
// Lagrangian bound, so the bound holds whenever ctx ends.
func (m *component) stretchSplit(ctx context.Context, pi []int64, cfg stretchConfig) *scaleRun {
	sr := &scaleRun{rule: cfg.rule, start: time.Now()}
	sr.sd = m.newStretchDecompRanges(spanRanges(len(m.rowSeg), cfg.span), 1)
	if cfg.nodes > 0 {
		sr.sd.nodeLimit = cfg.nodes
	}
	sr.sd.depthFirst = cfg.depthFirst
	if cfg.flow {
		// no deepening: the flow branch and bound's open bound falls as
		// it goes, and each stretch has its share of the time
		sr.sd.useFlow()
		cfg.nodes = sr.sd.nodeLimit
	}
	sr.st.Stretches = len(sr.sd.wins)
	if len(sr.sd.wins) == 0 {
		sr.best = bound{num: big.NewInt(int64(len(m.members)) << muBits), S: muBits}
		return sr
	}
	sr.sd.lpShares(pi)
	full := sr.sd.nodeLimit
	first := max(1, full/10)
	if cfg.flow {
		first = full
	}
	sr.sd.nodeLimit = first
	sr.best = bound{num: sr.sd.solveAllBy(ctx), S: muBits}
	// deepen: the stretches left open, again with ten times the nodes,
	// each keeping the lesser of its two bounds (both hold)
	for limit := first * 10; limit <= full && ctx.Err() == nil && sr.count() > 0; limit *= 10 {
		sr.sd.nodeLimit = limit
		old := make(map[*stretch]int64)
		for _, w := range sr.sd.wins {
			if !w.exact {
				old[w], w.fresh = w.val, false
			}
		}
		sr.sd.solveAllBy(ctx)
		total := big.NewInt(int64(sr.sd.free) << muBits)
		for _, w := range sr.sd.wins {
			if v, ok := old[w]; ok && v < w.val {
				w.val, w.exact = v, false
			}
			total.Add(total, big.NewInt(w.val))
		}
		sr.best = minBound(sr.best, bound{num: total, S: muBits})
	}
	sr.sd.nodeLimit = full
	sr.count()
	sr.split = time.Since(sr.start)
	sr.cut = ctx.Err() != nil
	sr.st.Start, sr.st.Best = sr.best.value(), sr.best.value()
	return sr
}

// steps moves the shares from the last solved ones by the run's rule
// (stretchDecomp.bundle, then the deflected subgradient when it hands
// over) until ctx is done, maxIter steps or the bound reaches incumbent;
// the run keeps the least bound met.
//
// A step's solve runs every stretch it began to the end of its knapsack
// table, whatever ctx says, so under a deadline the steps stop early: no
// step begins with less time left than the longest one so far took (the
// split's solve, for the first), and none at all after a split cut short.
func (sr *scaleRun) steps(ctx context.Context, incumbent, maxIter int, trace func(int, float64)) {
	if len(sr.sd.wins) == 0 || maxIter <= 0 || ctx.Err() != nil {
		return
	}
	if dl, ok := ctx.Deadline(); ok {
		if sr.cut || time.Until(dl) < 2*sr.split {
			return
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		longest, last, inner := sr.split, time.Now(), trace
		trace = func(it int, v float64) {
			longest = max(longest, time.Since(last))
			last = time.Now()
			if time.Until(dl) < longest {
				cancel()
			}
			if inner != nil {
				inner(it, v)
			}
		}
	}
	var st stretchStats
	var b bound
	switch sr.rule {
	case string(StretchBundle):
		b = sr.sd.bundle(ctx, sr.best, incumbent, maxIter, &st, trace)
		if st.Handoff > 0 {
			b = sr.sd.deflected(ctx, b, incumbent, maxIter-st.Iterations, &st, trace)
		}
	default:
		b = sr.sd.deflected(ctx, sr.best, incumbent, maxIter, &st, trace)
	}
	sr.best = minBound(sr.best, b)
	sr.st.Iterations += st.Iterations
	sr.st.Best = sr.best.value()
	sr.count()
}

// count sets and returns the run's count of stretches whose last solve
// was cut short.
func (sr *scaleRun) count() int {
	sr.st.Inexact = 0
	for _, w := range sr.sd.wins {
		if !w.exact {
			sr.st.Inexact++
		}
	}
	return sr.st.Inexact
}

// The stretches at scale: span scaleSpan rows, never halved, each
// stretch's branch and bound up to scaleNodes nodes. At 10^5 turns
// (2026-11-29, load 25–36, the LP's split alone; the LP 37,998.86 pairs,
// 10.5 s of CPU): span 25 with halving down to 6 rows 37,965.43 (2,034
// stretches), span 12 37,979.81; without halving, 50,000 nodes, span 40
// 37,954.77 (1,265 stretches, 84 unsolved, 3.3 s of CPU), span 60
// 37,954.05 (254 of 843 unsolved), span 100 37,974.83 (457 of 506
// unsolved); with 200,000 nodes span 40 37,951.48 (38 unsolved, 4.8 s)
// and span 60 37,945.45 (139 unsolved, 13.1 s). The steps on the shares
// after the split gained 0.3 pairs in three steps of about 4 s of CPU,
// where the search gains a violation every few seconds of CPU at that
// stage: so the split takes its 13 s, the search goes next, and the
// steps have what it leaves.
//
// Under load the 13 s of CPU do not fit the split's share of the limit
// (at load 29, 22 s of CPU in a 120 s solve: span 60 left 636 stretches
// unsolved, 37,982.88, where span 40 with 50,000 nodes gave 37,963.85),
// so the split first solves every stretch with a tenth of scaleNodes
// nodes, then the ones left open again with scaleNodes (stretchSplit).
const (
	scaleSpan  = 60
	scaleNodes = 200_000
	// scaleFlowSpan is the span under a time limit, where the flow
	// branch and bound solves the stretches: with the flow carried from
	// node to node (lineflow.go), at 10^5 turns under a 120 s limit
	// (2026-11-30, load 1–2) span 167 gave 5,662 violations at least,
	// span 250 5,677 (6 of 203 stretches unsolved) and span 333 5,686
	// (22 of 152 unsolved), the stretches at the LP's split alone in
	// each (docs/tail-bounds.md, "The flow LP carried from node to
	// node").
	scaleFlowSpan = 333
)

// scaleComponent is one large component's stretches in progress.
type scaleComponent struct {
	c, size int
	run     *scaleRun
}

// scaleBound runs the stretches' split on the component of members
// (candidate indices) from the LP's prices pr.prices within ctx; nil when
// it could not run (no LP prices, no rows, a capacity above maxWindowCap
// blocks).
func (pr *problem) scaleBound(ctx context.Context, members []int, span int, flow bool) *scaleRun {
	if pr.prices == nil || ctx.Err() != nil {
		return nil
	}
	m := pr.newComponentRows(members, false)
	if len(m.rowSeg) == 0 || m.tooWide() {
		return nil
	}
	pi := pr.segmentPrices(m, pr.prices)
	cfg := StretchOptions{Span: span, MinSpan: -1, Nodes: scaleNodes}.config()
	cfg.flow = flow
	return m.stretchSplit(ctx, pi, cfg)
}

// scaleStage bounds each open component the branch and bound will skip
// for its size (bigComponents) by the stretches at the LP's split, when
// the solve has a backend and its search (the stages that bound open
// components), lowering ubComp; under a time limit within
// scaleStretchShare of the time left. It returns the stage's second half,
// to call after the large-neighbourhood search: steps on the shares in
// whatever time the search left (none without a time limit, so a solve
// without one stays deterministic and finite), and the report.
func (pr *problem) scaleStage(ctx context.Context, served []bool, ubComp []int, opt Options, r *Result) func() {
	span := scaleSpan
	if _, limited := ctx.Deadline(); limited {
		// under a time limit the flow LP's branch and bound solves the
		// stretches (scaleStageOn), and they are longer
		span = scaleFlowSpan
	}
	return pr.scaleStageOn(ctx, served, ubComp, opt, r, DefaultMaxNonZeros, span)
}

// scaleStageOn is scaleStage on the open components of more than limit
// incidences (limit < 0: every open component), with stretches of span
// rows, solved by the flow LP's branch and bound (stretchflow.go) when
// ctx has a deadline, else by the Lagrangian branch and bound, so that a
// solve without a time limit stays as it was.
func (pr *problem) scaleStageOn(ctx context.Context, served []bool, ubComp []int, opt Options, r *Result, limit, span int) func() {
	if opt.Backend == nil || opt.NoSearch || pr.prices == nil || ctx.Err() != nil {
		return func() {}
	}
	bigs := pr.bigComponents(served, ubComp, limit)
	if len(bigs) == 0 {
		return func() {}
	}
	total := 0
	for _, m := range bigs {
		total += len(m)
	}
	dl, limited := ctx.Deadline()
	share := time.Duration(float64(time.Until(dl)) * scaleStretchShare)
	var runs []scaleComponent
	for _, members := range bigs {
		sc := scaleComponent{c: pr.comp[members[0]], size: len(members)}
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if limited {
			sctx, cancel = context.WithTimeout(ctx, share*time.Duration(len(members))/time.Duration(total))
		}
		sc.run = pr.scaleBound(sctx, members, span, limited)
		cancel()
		if sc.run == nil {
			continue
		}
		pr.lowerUB(ubComp, sc.c, sc.run.best.floor(sc.size))
		runs = append(runs, sc)
	}
	return func() {
		for _, sc := range runs {
			if limited {
				inc := 0
				for i, c := range pr.comp {
					if c == sc.c && served[i] {
						inc++
					}
				}
				sc.run.steps(ctx, inc, stretchIter, nil)
				pr.lowerUB(ubComp, sc.c, sc.run.best.floor(sc.size))
			}
			st := sc.run.st
			r.Detail = joinDetail(r.Detail, fmt.Sprintf("stretch bound %.2f pairs served of %d (%.2f at the LP's split; %d stretches of %d rows, %d unsolved, split in %.1f s, %d steps)",
				st.Best, sc.size, st.Start, st.Stretches, span, st.Inexact, sc.run.split.Seconds(), st.Iterations))
		}
	}
}

// lowerUB sets ubComp[c] to ub when that is lower (or ubComp[c] unknown).
func (pr *problem) lowerUB(ubComp []int, c, ub int) {
	if ubComp[c] < 0 || ub < ubComp[c] {
		ubComp[c] = ub
	}
}

// solveAllBy is solveAll except that a stretch not yet begun when ctx ends
// is not solved but answers its Lagrangian bound at its row multipliers
// (lpShares's), L(λ) = Σ_r λ_r cap_r + Σ_n max(0, β⁺_n − d_n Λ_n), an
// upper bound on V_w for every λ ≥ 0 (for any point z of w,
// Σ β z ≤ Σ β⁺ z ≤ Σ_r λ_r cap_r + Σ_n (β⁺_n − d_n Λ_n) z_n, the rows
// weighted by λ), rounded up to whole 2^−muBits units: solveAll runs every
// stretch's knapsack table after ctx ends, which at 10^6 turns is tens
// of seconds of CPU. Such a stretch keeps its point (feasible) and is
// marked neither exact nor fresh, so the next solve solves it.
func (sd *stretchDecomp) solveAllBy(ctx context.Context) *big.Int {
	if sd.flow {
		return sd.solveAllFlow(ctx)
	}
	var skipped []*stretch
	todo := make(chan *stretch, len(sd.wins))
	for _, w := range sd.wins {
		if !w.fresh {
			todo <- w
		}
	}
	close(todo)
	workers := max(1, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s stretchSolver
			for w := range todo {
				if ctx.Err() != nil {
					mu.Lock()
					skipped = append(skipped, w)
					mu.Unlock()
					continue
				}
				s.solve(ctx, sd, w, sd.nodeLimit)
			}
		}()
	}
	wg.Wait()
	for _, w := range skipped {
		w.val, w.exact, w.fresh = sd.lagrangeValue(w), false, false
	}
	total := big.NewInt(int64(sd.free) << muBits)
	for _, w := range sd.wins {
		total.Add(total, big.NewInt(w.val))
	}
	return total
}

// lagrangeValue is solveAllBy's bound on V_w at w's row multipliers, in
// 2^−muBits units, rounded up.
func (sd *stretchDecomp) lagrangeValue(w *stretch) int64 {
	m := sd.m
	shift := sd.S - muBits
	pre := make([]int64, len(w.lam)+1)
	var L int64
	for q, l := range w.lam {
		pre[q+1] = pre[q] + l
		L += l * m.segCap[m.rowSeg[w.r0+int32(q)]]
	}
	for k, i := range w.items {
		if r := max(w.beta[k], 0)<<shift - m.d[i]*(pre[w.cHi[k]]-pre[w.cLo[k]]); r > 0 {
			L += r
		}
	}
	return (L + int64(1)<<shift - 1) >> shift
}
