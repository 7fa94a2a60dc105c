package gap

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/models/instance"
	"sync"
	"time"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// Config is a gap sweep: every policy at every (capacity, ξ) point, against
// the hindsight optimum of the same instance.
type Config struct {
	Block      int64   // B, tokens
	Forced     bool    // forced caching
	Capacities []int64 // C, tokens, multiples of Block
	Xis        []float64
	// Thresholds are Threshold-LRU's T values, tokens: threshold-lru is
	// run once per value (nil: its default).
	Thresholds []int64
	Policies   []policies.Entry
	// Schedules are external schedules (models/schedule) measured after
	// the policies at every point, each as policy "schedule:" + its name.
	Schedules []*schedule.Schedule
	// Solver computes the optimum: flow (default), or auto|cbc|gonum on
	// the compact formulation.
	Solver    string
	TimeLimit time.Duration
	// WarmStart computes the optimum at every capacity of one ξ as one
	// curve (lp.SolveFlowCurve, solver flow only): each capacity within
	// 1.5× of its smaller neighbour warm-started from that neighbour's
	// optimum. The optima are the same; at capacity steps of 2^(1/3) the
	// curve took 0.62× the time of separate solves (docs/speed.md).
	WarmStart bool
	QHat      float64 // T-LRU's Q̂, tokens (0: running mean)
	Model     latency.Model
	// Workers is the number of sweep points solved at once (≥ 1).
	Workers int
	// Progress, when not nil, is told the points done of all.
	Progress progress.Func
	// Windows, when > 0, bounds the optimum by the windowed interval of
	// lp/window in that many windows (seams and lower overlap at their
	// defaults, WindowSeamTurns) instead of solving it: RunWindowed.
	Windows int
}

// Row is one policy at one sweep point. TELs in tokens and ms.
type Row struct {
	CapacityTokens int64   `json:"capacity_tokens"`
	XiTokens       float64 `json:"xi_tokens"`
	Policy         string  `json:"policy"`
	// ThresholdTokens is threshold-lru's T, when swept.
	ThresholdTokens *int64  `json:"threshold_tokens,omitempty"`
	TELOptTokens    float64 `json:"tel_opt_tokens"`
	TELTokens       float64 `json:"tel_tokens"`
	AbsGapTokens    float64 `json:"abs_gap_tokens"`
	TELOptMs        float64 `json:"tel_opt_ms"`
	TELMs           float64 `json:"tel_ms"`
	AbsGapMs        float64 `json:"abs_gap_ms"`
	// RelGap is (TEL − TEL_opt)/TEL_opt; null when TEL_opt = 0, where
	// OptZero tells the two cases apart.
	RelGap *float64 `json:"rel_gap"`
	// OptZero is set when TEL_opt = 0: "both zero" if the policy's TEL
	// is 0 too (no gap), "infinite" if it is positive.
	OptZero   string `json:"opt_zero,omitempty"`
	OptSolver string `json:"opt_solver"`
}

// RelGapText formats the relative gap: a percentage, or for TEL_opt = 0
// "0% (both 0)" or "∞ (opt 0)".
func (r Row) RelGapText() string {
	switch {
	case r.RelGap != nil:
		return fmt.Sprintf("%.2f%%", 100**r.RelGap)
	case r.OptZero == "both zero":
		return "0% (both 0)"
	}
	return "∞ (opt 0)"
}

type point struct {
	capacity int64
	xi       float64
}

// Run computes the sweep on tr. Points are independent and solved by
// cfg.Workers goroutines; rows come in the order capacity, ξ, policy.
func Run(ctx context.Context, tr *trace.Trace, cfg Config) ([]Row, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Solver == "" {
		cfg.Solver = solvers.Flow
	}
	var pts []point
	for _, c := range cfg.Capacities {
		for _, x := range cfg.Xis {
			pts = append(pts, point{c, x})
		}
	}
	opts, err := curves(ctx, tr, cfg)
	if err != nil {
		return nil, err
	}
	rows := make([][]Row, len(pts))
	errs := make([]error, len(pts))
	work := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rows[i], errs[i] = runPoint(ctx, tr, cfg, pts[i], opts[pts[i]])
				mu.Lock()
				done++
				cfg.Progress.Report("gap: points", int64(done), int64(len(pts)))
				mu.Unlock()
			}
		}()
	}
	for i := range pts {
		work <- i
	}
	close(work)
	wg.Wait()
	var out []Row
	for i := range pts {
		if errs[i] != nil {
			return nil, fmt.Errorf("capacity %d tokens, ξ %g tokens: %w", pts[i].capacity, pts[i].xi, errs[i])
		}
		out = append(out, rows[i]...)
	}
	return out, nil
}

// curves solves the optimum of every point as one capacity curve per ξ
// when cfg.WarmStart is set (else it returns nil): the curves run one
// after another, each using every core in its windows.
func curves(ctx context.Context, tr *trace.Trace, cfg Config) (map[point]*lp.Result, error) {
	if !cfg.WarmStart || len(cfg.Capacities) == 0 {
		return nil, nil
	}
	if cfg.Solver != solvers.Flow {
		return nil, fmt.Errorf("warm-started capacity curves need solver flow, not %s", cfg.Solver)
	}
	out := map[point]*lp.Result{}
	for _, x := range cfg.Xis {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: cfg.Capacities[0], BlockSize: cfg.Block, Xi: x, Forced: cfg.Forced})
		if err != nil {
			return nil, err
		}
		rs, err := lp.SolveFlowCurve(ctx, in, cfg.Capacities, lp.Options{TimeLimit: cfg.TimeLimit}, true)
		if err != nil {
			return nil, fmt.Errorf("ξ %g tokens: %w", x, err)
		}
		for i, c := range cfg.Capacities {
			if rs[i].ScheduleErr != nil {
				return nil, fmt.Errorf("capacity %d tokens, ξ %g tokens: the curve's schedule is not admissible: %w", c, x, rs[i].ScheduleErr)
			}
			out[point{c, x}] = rs[i]
		}
	}
	return out, nil
}

// runPoint measures every policy at p against the optimum res (solved
// here when nil).
func runPoint(ctx context.Context, tr *trace.Trace, cfg Config, p point, res *lp.Result) ([]Row, error) {
	if res == nil {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: p.capacity, BlockSize: cfg.Block, Xi: p.xi, Forced: cfg.Forced})
		if err != nil {
			return nil, err
		}
		if res, err = solvers.Solve(ctx, in, lp.Compact, cfg.Solver, false, lp.Options{TimeLimit: cfg.TimeLimit}); err != nil {
			return nil, err
		}
	}
	if res.Status != lp.Optimal {
		return nil, fmt.Errorf("hindsight optimum: solver %s: %s (%s)", res.Solver, res.Status, res.Detail)
	}
	opt := res.TEL
	var rows []Row
	ms, err := measure(ctx, tr, cfg, p)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		tel := m.tel
		r := Row{CapacityTokens: p.capacity, XiTokens: p.xi, Policy: m.name, ThresholdTokens: m.threshold,
			TELOptTokens: opt, TELTokens: tel, AbsGapTokens: tel - opt, OptSolver: res.Solver}
		r.TELOptMs, r.TELMs, r.AbsGapMs = opt*cfg.Model.AlphaMs, tel*cfg.Model.AlphaMs, (tel-opt)*cfg.Model.AlphaMs
		switch {
		case opt > 0:
			g := (tel - opt) / opt
			r.RelGap = &g
		case tel == 0:
			r.OptZero = "both zero"
		default:
			r.OptZero = "infinite"
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// measured is one policy's TEL at a sweep point, tokens.
type measured struct {
	name      string
	threshold *int64
	tel       float64
}

// measure replays every policy of cfg (and its schedules) at point p, in
// the order of the rows.
func measure(ctx context.Context, tr *trace.Trace, cfg Config, p point) ([]measured, error) {
	settings := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: p.capacity, BlockSize: cfg.Block, Xi: p.xi,
		Forced: cfg.Forced}, Model: cfg.Model, SLOMs: latency.DefaultSLOMs}, QHat: cfg.QHat, Context: ctx}
	var rows []measured
	add := func(name string, thr *int64, tel float64) { rows = append(rows, measured{name, thr, tel}) }
	// One replay for every policy at its default settings (policies run
	// on their own goroutines), then threshold-lru once per swept T.
	var plain []policies.Entry
	for _, e := range cfg.Policies {
		if e.Name != "threshold-lru" || len(cfg.Thresholds) == 0 {
			plain = append(plain, e)
		}
	}
	tels := map[string]float64{}
	if len(plain) > 0 || len(cfg.Schedules) > 0 {
		s := settings
		s.Threshold = policy.DefaultThreshold
		s.Schedules = cfg.Schedules
		out, err := sim.Trace(tr, plain, s)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			tels[o.Name] = o.Summary.TELTokens
		}
	}
	for _, e := range cfg.Policies {
		if e.Name != "threshold-lru" || len(cfg.Thresholds) == 0 {
			add(e.Name, nil, tels[e.Name])
			continue
		}
		for _, T := range cfg.Thresholds {
			s := settings
			s.Threshold = T
			out, err := sim.Trace(tr, []policies.Entry{e}, s)
			if err != nil {
				return nil, err
			}
			add(e.Name, &T, out[0].Summary.TELTokens)
		}
	}
	for _, sch := range cfg.Schedules {
		add("schedule:"+sch.Name, nil, tels["schedule:"+sch.Name])
	}
	return rows, nil
}
