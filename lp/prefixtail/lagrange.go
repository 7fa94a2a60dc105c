package prefixtail

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp/mcf"
)

// LagrangeOptions configure Problem.Lagrangian.
type LagrangeOptions struct {
	// Iterations bounds the subgradient steps (0:
	// DefaultLagrangeIterations).
	Iterations int
	// Upper is the cost of a known schedule (a replay's), in the
	// objective's units: the target of the steps and the point at which
	// the search stops (the bound can rise no further); +Inf when none.
	Upper float64
	// TimeLimit bounds the search (0: none); the bound found so far is
	// valid when it stops.
	TimeLimit time.Duration
	// Progress (nil: none) is told of every step: its bound so far.
	Progress progress.Func
}

// DefaultLagrangeIterations is the default number of inner solves: the
// two starts only. On the synthetic Mooncake trace at 1,024 blocks the
// better start gave the LP relaxation's value (CLP's, to its printed
// digits: μ = 0 for TEL, the spread for SLO), and ten subgradient steps
// from it found no better bound, at several seconds each
// (docs/block-tail-bounds.md has the other traces and capacities).
const DefaultLagrangeIterations = 2

// lagrangeStall is the number of steps without a better bound after which
// the step factor θ is halved; lagrangeTheta is θ's start. The search
// stops ("stalled") once θ is below lagrangeTheta/32.
const (
	lagrangeStall = 2
	lagrangeTheta = 0.25
)

// sameMultipliers reports whether a and b are equal.
func sameMultipliers(a, b []int64) bool { return slices.Equal(a, b) }

// lagrangeSlack is the relative amount by which the bound is lowered to
// cover float64 rounding in Base and the weights (see the comment above).
const lagrangeSlack = 1e-9

// Lagrange is the outcome of Problem.Lagrangian.
type Lagrange struct {
	// Lower is the certified lower bound on the optimum, objective units.
	Lower float64 `json:"lower_bound"`
	// Iterations counts inner (min-cost flow) solves.
	Iterations int `json:"iterations"`
	// Status says why the search ended: "met-upper" (the bound reached
	// LagrangeOptions.Upper), "converged" (a subgradient of 0: the inner
	// optimum keeps the prefix rule), "iteration-limit" or "time-limit".
	Status string `json:"status"`
	// Seconds is the search's wall time.
	Seconds float64 `json:"solve_seconds"`
	// Guide is the mean inner solution over the steps, one value in
	// [0, 1] per column (for Replay with Guided).
	Guide []float64 `json:"-"`
}

// Lagrangian computes the Lagrangian lower bound of the package comment
// (no LP solver: each step is a min-cost flow). Stopped by ctx or the time
// limit it returns the best bound so far with status "time-limit"; it
// errors only when a flow solve fails otherwise.
func (p *Problem) Lagrangian(ctx context.Context, opt LagrangeOptions) (*Lagrange, error) {
	start := time.Now()
	iters := opt.Iterations
	if iters <= 0 {
		iters = DefaultLagrangeIterations
	}
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	nc := len(p.Cols)
	res := &Lagrange{Lower: p.CapacityFree(), Status: "converged", Guide: make([]float64, nc)}
	slack := lagrangeSlack * max(1, math.Abs(p.Base))
	if nc == 0 {
		res.Lower = max(p.Base-slack, 0)
		if p.Base == 0 {
			res.Lower = 0
		}
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	maxW := 0.0
	for _, iv := range p.Cols {
		maxW = max(maxW, iv.Weight)
	}
	// Scale 2^s: the largest weight to about 2^26, so that multipliers of
	// many weights still leave every path sum of cost scaling (costs times
	// nodes+1) far below 2^62.
	s := 26 - int(math.Ceil(math.Log2(max(maxW, 1e-300))))
	s = min(max(s, 0), 52)
	scale := math.Ldexp(1, s)
	wS := make([]int64, nc)
	for j, iv := range p.Cols {
		wS[j] = int64(math.Ceil(iv.Weight * scale))
	}
	// Starts: 0, then the spread multipliers (for SLO the other way round:
	// there the spread one is the better and μ = 0 gave the capacity-free
	// bound on the Mooncake traces, so a one-solve search, as Percentile's
	// probes run, takes the spread); the search continues from the better.
	starts := [][]int64{make([]int64, len(p.prec)), p.spread(scale)}
	if p.Obj.Kind == SLO {
		starts[0], starts[1] = starts[1], starts[0]
	}
	m := starts[0]
	bestM := m
	c := make([]int64, nc)
	x := make([]float64, nc)
	g := make([]float64, len(p.prec))
	target := math.Inf(-1) // Base − Upper in savings units
	if !math.IsInf(opt.Upper, 0) && !math.IsNaN(opt.Upper) {
		target = p.Base - opt.Upper
	}
	theta, stall := lagrangeTheta, 0
	bestLambda := math.Inf(1)
	res.Status = "iteration-limit"
	for it := 0; it < iters; it++ {
		if ctx.Err() != nil {
			res.Status = "time-limit"
			break
		}
		copy(c, wS)
		for r, pr := range p.prec {
			c[pr[0]] -= m[r]
			c[pr[1]] += m[r]
		}
		sum, err := p.pack(ctx, c, x)
		if err != nil {
			if ctx.Err() != nil {
				res.Status = "time-limit"
				break
			}
			return nil, err
		}
		res.Iterations++
		lambda := math.Ldexp(float64(sum), -s)
		if lambda < bestLambda {
			bestLambda, stall, bestM = lambda, 0, m
			copy(res.Guide, x)
		} else if stall++; stall >= lagrangeStall {
			theta, stall = theta/2, 0
		}
		res.Lower = max(res.Lower, p.Base-bestLambda-slack)
		opt.Progress.Report(fmt.Sprintf("lagrangian step %d: bound %.8g (this step %.8g), θ %g",
			it, res.Lower, p.Base-lambda-slack, theta), 0, 0)
		if !math.IsInf(target, 0) && (res.Lower >= opt.Upper-tol*max(1, math.Abs(opt.Upper)) ||
			p.integral() && math.Ceil(res.Lower-tol) >= opt.Upper) {
			res.Status = "met-upper"
			break
		}
		if it+1 < len(starts) {
			m = starts[it+1]
			continue
		}
		if it+1 == len(starts) {
			m = slices.Clone(bestM)
			if sameMultipliers(bestM, starts[len(starts)-1]) {
				copy(x, res.Guide)
			} else {
				// x must be the inner optimum at m for the subgradient:
				// solve again at the better start.
				continue
			}
		}
		if theta < lagrangeTheta/32 {
			res.Status = "stalled"
			break
		}
		norm := 0.0
		for r, pr := range p.prec {
			g[r] = x[pr[0]] - x[pr[1]]
			if m[r] == 0 && g[r] < 0 {
				g[r] = 0
			}
			norm += g[r] * g[r]
		}
		if norm == 0 {
			res.Status = "converged"
			break
		}
		gap := lambda - target
		if math.IsInf(target, 0) || gap <= 0 {
			gap = 0.01 * max(lambda, 1)
		}
		step := theta * gap / norm * scale
		for r := range m {
			if g[r] == 0 {
				continue
			}
			v := float64(m[r]) + step*g[r]
			if v <= 0 {
				m[r] = 0
			} else {
				m[r] = int64(math.Min(math.Round(v), 1<<40))
			}
		}
	}
	res.Lower = max(res.Lower, 0)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// spread returns starting multipliers, in units of 1/scale: each
// interval's weight, with what its children passed to it, is shared with
// the parent intervals it needs, deepest first, so that a chain of d + 1
// intervals kept for one saving at depth d carries 1/(d + 1) of it on each
// (the inner problem then pays capacity for the ancestors it needs). Any
// multipliers ≥ 0 give a valid bound; these only start the search nearer
// the LP's.
func (p *Problem) spread(scale float64) []int64 {
	m := make([]int64, len(p.prec))
	w := make([]float64, len(p.Cols))
	rows := make([][]int32, len(p.Cols))
	for r, pr := range p.prec {
		rows[pr[0]] = append(rows[pr[0]], int32(r))
	}
	order := make([]int32, len(p.Cols))
	for j, iv := range p.Cols {
		w[j] = iv.Weight
		order[j] = int32(j)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return int(p.Cols[b].Depth) - int(p.Cols[a].Depth) })
	for _, j := range order {
		rs := rows[j]
		d := float64(p.Cols[j].Depth)
		if len(rs) == 0 || w[j] <= 0 {
			continue
		}
		share := w[j] * d / (d + 1) / float64(len(rs))
		u := int64(math.Floor(share * scale))
		if u <= 0 {
			continue
		}
		for _, r := range rs {
			m[r] = u
			w[p.prec[r][1]] += float64(u) / scale
		}
		w[j] -= float64(u) * float64(len(rs)) / scale
	}
	return m
}

// pack solves the inner problem of the Lagrangian: the most Σ c_I x_I
// (c integer, whole cost units) over 0/1 x keeping at most cap_t intervals
// across every request t, as a min-cost flow on the line. It writes x and
// returns the optimum Σ c·x.
func (p *Problem) pack(ctx context.Context, c []int64, x []float64) (int64, error) {
	n := len(p.Reqs)
	g := mcf.NewNetwork(n + 1)
	var prev int64
	for t := 0; t < n; t++ {
		ct := int64(p.CapacityBlocks - len(p.Reqs[t].Blocks))
		if t < p.free {
			ct = int64(len(p.Cols)) // history: no capacity row (bounds any load)
		}
		g.AddSupply(t, ct-prev)
		prev = ct
		g.AddArc(t, t+1, ct, 0)
	}
	g.AddSupply(n, -prev)
	arcs := make([]int32, 0, len(p.Cols))
	for j, iv := range p.Cols {
		x[j] = 0
		if c[j] <= 0 {
			continue
		}
		g.AddArc(int(iv.P)+1, int(iv.Q), 1, -c[j])
		arcs = append(arcs, int32(j))
	}
	if len(arcs) == 0 {
		return 0, nil
	}
	flow, _, err := g.SolveWindows(ctx, mcf.DefaultPlan())
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, err
		}
		return 0, fmt.Errorf("lagrangian inner packing: %w", err)
	}
	var sum int64
	for k, j := range arcs {
		f := flow[n+k]
		if f < 0 || f > 1 {
			return 0, fmt.Errorf("lagrangian inner packing: flow %d on an interval arc of capacity 1", f)
		}
		if f == 1 {
			x[j] = 1
			sum += c[j]
		}
	}
	return sum, nil
}
