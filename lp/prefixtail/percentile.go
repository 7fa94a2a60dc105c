package prefixtail

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// PercentileSearch describes the τ search of Percentile.
type PercentileSearch struct {
	// Q is the percentile, percent; Rank its nearest rank among the
	// requests (objective.Rank) and MaxExceeding the requests allowed
	// above it.
	Q            float64 `json:"q_percent"`
	Rank         int     `json:"rank"`
	MaxExceeding int     `json:"max_exceeding"`
	// Probes counts the SLO problems bounded; Undecided those whose
	// interval straddled MaxExceeding; Schedules the replayed schedules
	// whose percentile was read.
	Probes    int `json:"probes"`
	Undecided int `json:"undecided"`
	Schedules int `json:"schedules"`
}

// Percentile bounds the lowest Q-th nearest-rank percentile (Q in
// (0, 100), percent) of the uncached tokens b_t = max(D_t − k_t·B, 0) over
// every eviction sequence of the cache (the rules of the package comment),
// by a search over τ on the SLO problem, as lp/slo.Percentile does at turn
// level: P_Q ≤ τ iff at most n − objective.Rank(n, Q) requests have b > τ.
//
// Exactness of each step:
//   - Candidates. Every schedule's P_Q is the b of some request at some
//     hit count, so the optimum is one of the values max(D_t − k·B, 0),
//     k = 0 … |chain_t|; the search runs over their sorted list.
//   - Upper end. Every replayed schedule (the hindsight rules, and the
//     Lagrangian-guided roundings of each probe) is read for its own P_Q
//     from the hits the cache reports; the upper end is the least, a value
//     that schedule attains. A probe at τ whose replay has at most
//     MaxExceeding violations thereby proves P_Q ≤ τ.
//   - Lower end. Every schedule's b_t is at least the b_t of the cache that
//     never evicts, so P_Q is at least that cache's P_Q (order statistics
//     are monotone). A probe at τ whose lower bound on the fewest
//     violations (the LP relaxation with opt.LP, else the Lagrangian bound)
//     exceeds MaxExceeding proves P_Q > τ, so P_Q is at least the next
//     candidate; the fewest violations are non-increasing in τ, so the
//     proof holds for every smaller τ too.
//
// Reuse between probes: the best schedule so far carries over (its P_Q is
// the upper end), a probe first replays and skips the lower bound when a
// replay decides it, and the bisection runs over candidates between the
// two ends only. A probe that decides neither way splits the search as at
// turn level (below it only proofs are sought, above it only schedules).
// With the Lagrangian and no Iterations given, each probe solves once, at
// the spread multipliers (for SLO they came within 0.13 % of CLP's LP
// value on both Mooncake traces, where μ = 0 gives the capacity-free
// bound). Heuristics lists the schedules that improved the upper end, in
// order, each with its P_Q in tokens.
//
// opt.TimeLimit bounds each probe's solve; ctx stops the search with the
// interval found so far, valid. opt.IP is not used (no integer program
// per probe). With opt.Local, a probe that neither replays nor proves its
// way past MaxExceeding runs the local search (Problem.Improve) from its
// best schedule, stopping once at most MaxExceeding requests violate τ;
// the schedule found is read for its P_Q like every other.
func Percentile(ctx context.Context, reqs []prefixcache.Req, block int64, capacity int, q float64, opt Options) (*Bounds, error) {
	n := len(reqs)
	if n == 0 {
		return nil, fmt.Errorf("percentile of an empty trace")
	}
	if !(q > 0 && q < 100) {
		return nil, fmt.Errorf("percentile %v is not in (0, 100)", q)
	}
	rank := objective.Rank(n, q)
	M := n - rank
	name := objective.Objective{Kind: objective.Percentile, Q: q}.String()
	search := &PercentileSearch{Q: q, Rank: rank, MaxExceeding: M}
	var cand []int64
	for _, r := range reqs {
		for k := 0; k <= len(r.Blocks); k++ {
			cand = append(cand, Uncached(r.Input, k, block))
		}
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	index := func(v int64) int {
		i, ok := slices.BinarySearch(cand, v)
		if !ok {
			panic(fmt.Sprintf("prefixtail: uncached count %d not among the candidates", v))
		}
		return i
	}
	quantile := func(hits []int) int64 {
		b := make([]int64, n)
		for t := range reqs {
			b[t] = Uncached(reqs[t].Input, hits[t], block)
		}
		slices.Sort(b)
		return b[rank-1]
	}
	// The cache that never evicts: a request hits the leading blocks of its
	// chain seen before.
	seen := map[prefixcache.BlockID]bool{}
	free := make([]int, n)
	for t, r := range reqs {
		for free[t] < len(r.Blocks) && seen[r.Blocks[free[t]]] {
			free[t]++
		}
		for _, id := range r.Blocks {
			seen[id] = true
		}
	}
	b := &Bounds{Objective: name, LowerFrom: "capacity-free", Requests: n, Percentile: search}
	lo := index(quantile(free)) - 1 // cand[lo+1] ≤ P_Q, proven
	hi := len(cand) - 1             // P_Q ≤ cand[hi], attained by the best schedule
	b.UpperRule = "none"
	consider := func(rule string, hits []int) {
		search.Schedules++
		v := quantile(hits)
		if i := index(v); i < hi || b.UpperRule == "none" {
			hi, b.UpperRule = min(i, hi), rule
			b.Heuristics = append(b.Heuristics, Heuristic{Rule: rule, Value: float64(v)})
		}
	}
	// probe bounds the SLO problem at τ: it replays, and when no replay
	// has at most M violations, bounds the fewest from below.
	probe := func(tau int64) (lower float64, achieved bool, err error) {
		search.Probes++
		p, err := New(reqs, block, capacity, Objective{Kind: SLO, SLOTokens: float64(tau)})
		if err != nil {
			return 0, false, err
		}
		if b.Columns == 0 {
			b.Columns, b.PrecedenceRows, b.RefBlocks = len(p.Cols), p.PrecedenceRows, p.RefBlocks
		}
		bestV := math.Inf(1)
		var bestHits []int
		keep := func(hits []int, v float64) {
			if v < bestV {
				bestV, bestHits = v, hits
			}
		}
		for _, r := range []Rule{Furthest, Saving, Density} {
			hits, v, err := p.Replay(r, nil)
			if err != nil {
				return 0, false, fmt.Errorf("%s: %w", r, err)
			}
			consider(string(r), hits)
			keep(hits, v)
		}
		if bestV <= float64(M) {
			return 0, true, nil
		}
		lower = p.CapacityFree()
		var guide []float64
		switch {
		case opt.LP != nil:
			s, x, err := p.solve(ctx, opt.LP, p.Program(), true, opt.TimeLimit)
			if err != nil {
				return 0, false, err
			}
			if s.Status == "optimal" && s.Value != nil {
				lower, guide = max(lower, *s.Value), x
			}
		case opt.Lagrange != nil:
			lo := *opt.Lagrange
			lo.Upper = bestV
			if lo.Iterations == 0 {
				lo.Iterations = 1 // the spread start: for SLO the better one
			}
			if lo.TimeLimit == 0 {
				lo.TimeLimit = opt.TimeLimit
			}
			lg, err := p.Lagrangian(ctx, lo)
			if err != nil {
				return 0, false, err
			}
			lower = max(lower, lg.Lower)
			if lg.Iterations > 0 {
				guide = lg.Guide
			}
		}
		if guide != nil {
			for _, g := range []struct {
				rule  Rule
				name  string
				guide []float64
			}{{Guided, "rounding", guide}, {GuidedDensity, "rounding-density", guide}, {Guided, "rounding-closed-down", p.closed(guide, false)}} {
				hits, v, err := p.Replay(g.rule, g.guide)
				if err != nil {
					return 0, false, fmt.Errorf("%s: %w", g.name, err)
				}
				consider(fmt.Sprintf("%s-at-slo-%d-tokens", g.name, tau), hits)
				keep(hits, v)
			}
		}
		if opt.Local != nil && bestV > float64(M) && math.Ceil(lower-tol) <= float64(M) {
			lo := *opt.Local
			lo.Target = float64(M)
			sc, err := p.Improve(ctx, bestHits, lo)
			if err != nil {
				return 0, false, err
			}
			consider(fmt.Sprintf("local-search-at-slo-%d-tokens", tau), sc.Hits)
			keep(sc.Hits, sc.Cost)
		}
		return lower, bestV <= float64(M), nil
	}
	// A first probe at the upper end's own candidate gives the schedules.
	if _, _, err := probe(cand[hi]); err != nil {
		return nil, err
	}
	// Bisect the candidates between the two ends (objective.TauSearch,
	// which splits at an undecided probe as at turn level).
	ts := objective.TauSearch[int]{Lo: lo, Hi: hi}
	err := ts.Run(ctx, nil, func(mid int, _ objective.ProbeMode) (objective.Verdict, error) {
		opt.Progress.Report(fmt.Sprintf("τ probes: P%g in [%d, %d] tokens, ≈%d more", q, cand[ts.Lo+1], cand[min(ts.Hi, hi)], bits.Len(uint(min(ts.Hi, hi)-ts.Lo))), int64(search.Probes), 0)
		lower, achieved, err := probe(cand[mid])
		if err != nil {
			return objective.Undecided, err
		}
		ts.Hi = min(ts.Hi, hi) // consider may have lowered the upper end
		switch {
		case achieved:
			return objective.Achieved, nil // consider moved hi to at most mid
		case hi > mid && math.Ceil(lower-tol) > float64(M):
			b.LowerFrom = "slo-probes"
			return objective.TooLow, nil
		}
		return objective.Undecided, nil
	})
	if err != nil {
		return nil, err
	}
	lo = ts.Lo
	search.Undecided += ts.Undecided
	b.Lower, b.Upper = float64(cand[lo+1]), float64(cand[hi])
	if b.Lower > b.Upper {
		return nil, fmt.Errorf("internal: percentile bounds %v > %v", b.Lower, b.Upper)
	}
	b.Proven = b.Lower == b.Upper
	if b.Proven {
		v := b.Upper
		b.Optimum = &v
	}
	return b, nil
}
