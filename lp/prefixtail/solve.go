package prefixtail

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp"
)

// Options say which solvers compute the bounds.
type Options struct {
	// IP solves the integer program exactly (cbc, gonum); nil skips it.
	IP lp.Backend
	// LP solves the LP relaxation, the lower bound that scales (clp,
	// gonum); nil skips it.
	LP lp.Backend
	// Lagrange, when not nil, computes the Lagrangian lower bound
	// (Problem.Lagrangian: min-cost flows, no LP solver) before any LP;
	// its Upper is set to the best replay's cost and its TimeLimit to
	// TimeLimit when zero.
	Lagrange *LagrangeOptions
	// Local, when not nil, improves the best schedule by the local search
	// of local.go (Problem.Improve) after every other replay; the result
	// is replayed and listed as "local-search".
	Local *LocalOptions
	// TimeLimit bounds each solve (0: none): the LP, the IP, and the
	// Lagrangian search as a whole.
	TimeLimit time.Duration
	// Progress (nil: none) is told each τ probe of Percentile.
	Progress progress.Func
}

// Solve is one LP or IP solve.
type Solve struct {
	// Solver names the backend; Status is its outcome.
	Solver string `json:"solver"`
	Status string `json:"status"`
	// Value is the cost the solve gives (the LP bound; the IP optimum, or
	// its best point when stopped), in the objective's units; nil when
	// the solve gave no value.
	Value *float64 `json:"value"`
	// Integral reports whether every x of the solution is 0 or 1.
	Integral bool `json:"integral"`
	// Seconds is the solve's wall time.
	Seconds float64 `json:"solve_seconds"`
}

// Heuristic is one feasible schedule of the upper bound.
type Heuristic struct {
	// Rule names the hindsight rule (a Rule, or "ip-schedule").
	Rule string `json:"rule"`
	// Value is its cost, replayed through the cache.
	Value float64 `json:"value"`
}

// Bounds is the interval on the optimum of one instance.
type Bounds struct {
	// Objective is "tel" (tokens), "slo" (violations) or "pQ" (the Q-th
	// percentile of uncached tokens, tokens; Percentile).
	Objective string `json:"objective"`
	// Lower and Upper bound the optimum: Lower is the IP's optimum when it
	// was proven, else the largest of the LP bound, the Lagrangian bound
	// and the capacity-free bound (Problem.CapacityFree) among those
	// computed; Upper is the best replayed schedule's cost.
	Lower float64 `json:"lower_bound"`
	Upper float64 `json:"upper_bound"`
	// LowerFrom names where Lower comes from: "ip", "lp", "lagrangian" or
	// "capacity-free".
	LowerFrom string `json:"lower_from"`
	// Proven reports Lower = Upper = the optimum (see the package comment).
	Proven bool `json:"proven_optimal"`
	// Optimum is the optimum when proven, else nil.
	Optimum *float64 `json:"optimum"`
	// UpperRule names the schedule attaining Upper.
	UpperRule string `json:"upper_rule"`
	// Heuristics are every schedule's cost.
	Heuristics []Heuristic `json:"heuristics"`
	// Percentile is the τ search of Percentile (nil for TEL and SLO);
	// Lower and Upper are then the percentile's bounds, tokens.
	Percentile *PercentileSearch `json:"percentile,omitempty"`
	// Lagrangian is the Lagrangian bound's search, nil when skipped.
	Lagrangian *Lagrange `json:"lagrangian"`
	// LP and IP are the solves, nil when skipped.
	LP *Solve `json:"lp"`
	IP *Solve `json:"ip"`
	// Columns and PrecedenceRows are the program's size after pruning;
	// Requests and RefBlocks the trace's.
	Columns        int   `json:"columns"`
	PrecedenceRows int   `json:"precedence_rows"`
	Requests       int   `json:"requests"`
	RefBlocks      int64 `json:"ref_blocks"`

	hits []int // the hits per request of the schedule attaining Upper
}

// tol is the tolerance, in the objective's units relative to max(1, |v|),
// within which two bound values are equal.
const tol = 1e-6

// CapacityFree is a lower bound on the optimum that needs no solver: the
// program's value with every interval kept, Base − Σ w_I. Dropping the
// capacity and prefix rows relaxes the program (with every weight ≥ 0 its
// best point keeps every interval), and since the pruned program has the
// optimum of the unpruned one (package comment) the value bounds that
// optimum too; it is the cost under a cache that never evicts, and the LP
// bound is never below it.
func (p *Problem) CapacityFree() float64 {
	v := p.Base
	for _, iv := range p.Cols {
		v -= iv.Weight
	}
	return max(v, 0)
}

// Bound computes the interval on p's optimum: every hindsight rule's
// replay (upper), the LP relaxation (lower) and the IP (exact) as opt
// asks. An IP optimum that its own schedule, replayed, does not attain is
// an error (it would be a wrong number).
func (p *Problem) Bound(ctx context.Context, opt Options) (*Bounds, error) {
	b := &Bounds{Objective: p.Obj.Kind.String(), Upper: math.Inf(1), Columns: len(p.Cols), PrecedenceRows: p.PrecedenceRows,
		Requests: len(p.Reqs), RefBlocks: p.RefBlocks, Lower: p.CapacityFree(), LowerFrom: "capacity-free"}
	add := func(rule string, hits []int, v float64) {
		b.Heuristics = append(b.Heuristics, Heuristic{Rule: rule, Value: v})
		if v < b.Upper-tol*max(1, math.Abs(v)) {
			b.Upper, b.UpperRule, b.hits = v, rule, hits
		}
	}
	for _, r := range []Rule{Furthest, Saving, Density} {
		h, v, err := p.Replay(r, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
		add(string(r), h, v)
	}
	// The Lagrangian is skipped when the replays already meet the
	// capacity-free bound (the interval is closed without it).
	if opt.Lagrange != nil && b.Upper-b.Lower > tol*max(1, math.Abs(b.Upper)) {
		lo := *opt.Lagrange
		lo.Upper = b.Upper
		if lo.TimeLimit == 0 {
			lo.TimeLimit = opt.TimeLimit
		}
		lg, err := p.Lagrangian(ctx, lo)
		if err != nil {
			return nil, err
		}
		b.Lagrangian = lg
		if lg.Lower > b.Lower {
			b.Lower, b.LowerFrom = lg.Lower, "lagrangian"
		}
		if lg.Iterations > 0 {
			for _, rn := range []struct {
				rule  Rule
				name  string
				guide []float64
			}{{Guided, "lagrangian-rounding", lg.Guide}, {GuidedDensity, "lagrangian-rounding-density", lg.Guide},
				{Guided, "lagrangian-rounding-closed-down", p.closed(lg.Guide, false)},
				{Guided, "lagrangian-rounding-closed-up", p.closed(lg.Guide, true)}} {
				r, name := rn.rule, rn.name
				h, v, err := p.Replay(r, rn.guide)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				add(name, h, v)
			}
		}
	}
	var prob *lp.Problem
	if opt.LP != nil || opt.IP != nil {
		prob = p.Program()
	}
	if opt.LP != nil {
		s, x, err := p.solve(ctx, opt.LP, prob, true, opt.TimeLimit)
		if err != nil {
			return nil, err
		}
		b.LP = s
		if s.Status == lp.Optimal.String() {
			if *s.Value > b.Lower || b.LowerFrom == "capacity-free" {
				b.Lower, b.LowerFrom = max(b.Lower, *s.Value), "lp"
			}
			for _, r := range []Rule{Guided, GuidedDensity} {
				h, v, err := p.Replay(r, x)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", r, err)
				}
				add(string(r), h, v)
			}
		}
	}
	if opt.IP != nil {
		s, x, err := p.solve(ctx, opt.IP, prob, false, opt.TimeLimit)
		if err != nil {
			return nil, err
		}
		b.IP = s
		if x != nil {
			h, v, err := p.Replay(Guided, x)
			if err != nil {
				return nil, fmt.Errorf("ip schedule: %w", err)
			}
			if s.Status == lp.Optimal.String() {
				// A relaxation's (history's capacity rows dropped) optimum
				// need not be a schedule of the real cache: only its
				// replay's cost, ≥ the optimum, is checked, below.
				if p.free == 0 && math.Abs(v-*s.Value) > tol*max(1, math.Abs(v)) {
					return nil, fmt.Errorf("the IP optimum %v is not what its schedule attains when replayed (%v)", *s.Value, v)
				}
				b.Lower, b.LowerFrom = max(b.Lower, *s.Value), "ip"
			}
			add("ip-schedule", h, v)
		}
	}
	if opt.Local != nil && b.hits != nil && !b.closed(p.integral()) {
		lo := *opt.Local
		lo.Target = b.Lower
		if p.integral() {
			lo.Target = math.Ceil(b.Lower - tol)
		}
		sc, err := p.Improve(ctx, b.hits, lo)
		if err != nil {
			return nil, err
		}
		add("local-search", sc.Hits, sc.Cost)
	}
	if b.Lower > b.Upper+tol*max(1, math.Abs(b.Upper)) {
		return nil, fmt.Errorf("lower bound %v above upper bound %v", b.Lower, b.Upper)
	}
	b.Proven = b.closed(p.integral())
	if b.Proven {
		v := b.Upper
		b.Optimum = &v
	}
	return b, nil
}

// closed reports whether the interval is closed: the ends meet (when the
// costs are integers — SLO, unweighted: Problem.integral — when the lower
// end rounded up meets the upper).
func (b *Bounds) closed(integral bool) bool {
	return b.Upper-b.Lower <= tol*max(1, math.Abs(b.Upper)) || integral && math.Ceil(b.Lower-tol) >= b.Upper
}

// closed returns guide made to keep the prefix rule, for rounding: down,
// each interval lowered to its parent intervals' least (parents first);
// up, each raised to its child intervals' greatest (children first). The
// inner optimum of the Lagrangian need not keep the rule, and a replay
// cannot keep a block whose parent it evicts.
func (p *Problem) closed(guide []float64, up bool) []float64 {
	x := slices.Clone(guide)
	rows := slices.Clone(p.prec)
	slices.SortStableFunc(rows, func(a, b [2]int32) int { return int(p.Cols[a[0]].Depth) - int(p.Cols[b[0]].Depth) })
	if up {
		slices.Reverse(rows)
		for _, r := range rows {
			x[r[1]] = max(x[r[1]], x[r[0]])
		}
		return x
	}
	for _, r := range rows {
		x[r[0]] = min(x[r[0]], x[r[1]])
	}
	return x
}

// solve runs be on prob (its relaxation when relax) and returns the
// record and the x part of the point, if any.
func (p *Problem) solve(ctx context.Context, be lp.Backend, prob *lp.Problem, relax bool, limit time.Duration) (*Solve, []float64, error) {
	start := time.Now()
	sol, err := be.Solve(ctx, prob, lp.Options{Relax: relax, TimeLimit: limit})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", be.Name(), err)
	}
	s := &Solve{Solver: be.Name(), Status: sol.Status.String(), Seconds: time.Since(start).Seconds()}
	if len(sol.X) != prob.NumCols || !(sol.Status == lp.Optimal || sol.Status == lp.TimeLimit || sol.Status == lp.IterationLimit) {
		return s, nil, nil
	}
	x := sol.X[:len(p.Cols)]
	v := p.Value(x)
	s.Value = &v
	s.Integral = true
	for _, xi := range x {
		if math.Abs(xi-math.Round(xi)) > lp.IntegralityTol {
			s.Integral = false
			break
		}
	}
	return s, x, nil
}
