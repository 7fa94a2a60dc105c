package gap

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// WindowSeamTurns is the half-width of the seams and the lower overlap,
// steps, of gap --windows: solve --windows's defaults.
const WindowSeamTurns = 5000

// WindowRow is one policy at one sweep point against the certified
// interval [Lower, Upper] ∋ TEL_opt of lp/window (gap --windows), tokens.
// Since TEL/x − 1 falls as x grows, the policy's true relative gap (TEL −
// TEL_opt)/TEL_opt lies between RelGapAtLeast = (TEL − Upper)/Upper and
// RelGapAtMost = (TEL − Lower)/Lower, and its gap in tokens between
// GapAtLeastTokens = TEL − Upper and GapAtMostTokens = TEL − Lower.
type WindowRow struct {
	CapacityTokens  int64   `json:"capacity_tokens"`
	XiTokens        float64 `json:"xi_tokens"`
	Policy          string  `json:"policy"`
	ThresholdTokens *int64  `json:"threshold_tokens,omitempty"`
	TELTokens       float64 `json:"tel_tokens"`
	// Lower and Upper bound TEL_opt, tokens; ProvenOptimal, RelativeWidth
	// and Windows are the interval's, as solve --windows reports them.
	Lower            float64 `json:"lower_bound"`
	Upper            float64 `json:"upper_bound"`
	ProvenOptimal    bool    `json:"proven_optimal"`
	RelativeWidth    float64 `json:"relative_width"`
	Windows          int     `json:"windows"`
	GapAtLeastTokens float64 `json:"gap_at_least_tokens"`
	GapAtMostTokens  float64 `json:"gap_at_most_tokens"`
	// RelGapAtLeast and RelGapAtMost are fractions; null when the bound
	// they divide by is 0.
	RelGapAtLeast *float64 `json:"rel_gap_at_least"`
	RelGapAtMost  *float64 `json:"rel_gap_at_most"`
}

// RunWindowed is Run with the optimum bounded by lp/window's interval in
// cfg.Windows windows instead of solved: the policies are replayed as Run
// does, the points taken one after another.
func RunWindowed(ctx context.Context, tr *trace.Trace, cfg Config) ([]WindowRow, error) {
	if cfg.Windows < 1 {
		return nil, fmt.Errorf("gap: %d windows", cfg.Windows)
	}
	var out []WindowRow
	n := 0
	for _, c := range cfg.Capacities {
		for _, x := range cfg.Xis {
			p := point{c, x}
			b, err := window.Run(ctx, window.NewTurns(tr.Turns), window.Options{Params: instance.Params{Capacity: c, BlockSize: cfg.Block, Xi: x, Forced: cfg.Forced},
				WindowTurns: window.Size(len(tr.Turns), cfg.Windows), SeamTurns: WindowSeamTurns, LowerOverlap: WindowSeamTurns})
			if err != nil {
				return nil, fmt.Errorf("capacity %d tokens, ξ %g tokens: %w", c, x, err)
			}
			ms, err := measure(ctx, tr, cfg, p)
			if err != nil {
				return nil, fmt.Errorf("capacity %d tokens, ξ %g tokens: %w", c, x, err)
			}
			for _, m := range ms {
				r := WindowRow{CapacityTokens: c, XiTokens: x, Policy: m.name, ThresholdTokens: m.threshold, TELTokens: m.tel,
					Lower: b.Lower, Upper: b.Upper, ProvenOptimal: b.ProvenOptimal, RelativeWidth: b.RelativeWidth, Windows: b.Windows,
					GapAtLeastTokens: m.tel - b.Upper, GapAtMostTokens: m.tel - b.Lower}
				if b.Upper > 0 {
					g := (m.tel - b.Upper) / b.Upper
					r.RelGapAtLeast = &g
				}
				if b.Lower > 0 {
					g := (m.tel - b.Lower) / b.Lower
					r.RelGapAtMost = &g
				}
				out = append(out, r)
			}
			n++
			cfg.Progress.Report("gap: points", int64(n), int64(len(cfg.Capacities)*len(cfg.Xis)))
		}
	}
	return out, nil
}

// WindowedSolver is the opt_solver of the rows of gap --windows
// --objective slo|pQ: the interval is lp/window's.
const WindowedSolver = "lp/window"

// TailWindowOptions are how hard gap --windows --objective slo|pQ
// searches: the percentile's thresholds and each window's upper end.
type TailWindowOptions struct {
	// MaxProbes bounds the thresholds the percentile's search probes (0:
	// until the interval closes).
	MaxProbes int
	// Upper is how hard each window's upper end is searched
	// (window.SLOOptions.Upper: full, lp or greedy; the lower end is the
	// same in every mode).
	Upper window.SLOUpper
	// LNSWindows is the search's budget per upper-end solve with Upper
	// full, neighbourhoods (0: lp/slo's default).
	LNSWindows int
	// LowerOverlap is how far back each window's relaxation reaches into
	// the window before, steps (window.SLOOptions.LowerOverlap; 0: not).
	LowerOverlap int
}

// RunTailWindowed is RunTail with the interval of spec's objective bounded
// by lp/window in cfg.Windows windows instead of by lp/slo on the whole
// trace, through the library calls solve --windows --objective slo|pQ
// makes: window.RunSLOWith (SLO violations, turns) or window.RunPercentile
// (the lowest Q-th percentile of uncached tokens), searched as o says,
// seams ±WindowSeamTurns steps, optional caching only. Every policy replayed is an admissible
// schedule, so its value is at least the certified lower bound (checked,
// as RunTail does); the interval contains the optimum, so value − upper
// and value − lower bracket the policy's distance to it.
func RunTailWindowed(ctx context.Context, tr *trace.Trace, cfg Config, spec TailSpec, o TailWindowOptions) ([]TailRow, error) {
	if cfg.Windows < 1 {
		return nil, fmt.Errorf("gap: %d windows", cfg.Windows)
	}
	if cfg.Forced {
		return nil, fmt.Errorf("gap: windowed %s bounds are for optional caching only", spec.Objective)
	}
	size := window.Size(len(tr.Turns), cfg.Windows)
	return runTail(ctx, tr, cfg, spec, func(in *lp.Instance) (*TailReport, error) {
		so := window.SLOOptions{Params: instance.Params{Capacity: in.Capacity, BlockSize: cfg.Block}, WindowTurns: size, SeamTurns: WindowSeamTurns,
			LowerOverlap: o.LowerOverlap, Upper: o.Upper, Solver: slo.Options{LNSWindows: o.LNSWindows}}
		r := &TailReport{Objective: spec.Objective.String(), Solver: WindowedSolver, Turns: in.K(), overlap: max(0, min(o.LowerOverlap, size))}
		switch spec.Objective.Kind {
		case objective.SLO:
			so.SLOTokens = spec.SLOTokens
			b, err := window.RunSLOWith(ctx, window.NewTurns(tr.Turns), so)
			if err != nil {
				return nil, err
			}
			r.LowerBound, r.UpperBound, r.windows = int64(b.Lower), int64(b.Upper), b.Windows
		case objective.Percentile:
			open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
			b, err := window.RunPercentile(ctx, open, window.PercentileOptions{SLO: so, Objective: spec.Objective, MaxProbes: o.MaxProbes})
			if err != nil {
				return nil, err
			}
			r.LowerBound, r.UpperBound, r.windows = b.Lower, b.Upper, b.Windows
		default:
			return nil, fmt.Errorf("objective %s: not a tail objective", spec.Objective)
		}
		r.Proven = r.LowerBound == r.UpperBound
		return r, nil
	})
}

// WindowSweepTable returns the rows of a windowed sweep of trace as one
// table.
func WindowSweepTable(trace string, block int64, forced bool, rows []WindowRow) report.Table {
	t := report.Table{
		Title: fmt.Sprintf("%s: optimality gap against the windowed interval around the hindsight optimum, B=%d tokens, forced=%v; the true relative gap (TEL − TEL_opt)/TEL_opt lies between the two columns (— when a bound is 0)",
			trace, block, forced),
		Header: []string{"capacity (tokens)", "ξ (tokens)", "policy", "TEL_opt ≥ (tokens)", "TEL_opt ≤ (tokens)", "TEL (tokens)", "relative gap ≥", "relative gap ≤"},
	}
	frac := func(g *float64) report.Cell {
		if g == nil {
			return report.CellNone("—")
		}
		return report.CellFracAs(fmt.Sprintf("%.2f%%", 100**g), *g)
	}
	for _, r := range rows {
		name := r.Policy
		if r.ThresholdTokens != nil {
			name = fmt.Sprintf("%s(T=%d)", r.Policy, *r.ThresholdTokens)
		}
		t.Add(report.CellI(r.CapacityTokens), report.CellF(r.XiTokens, 2), report.CellText(name), report.CellF(r.Lower, 2), report.CellF(r.Upper, 2),
			report.CellF(r.TELTokens, 2), frac(r.RelGapAtLeast), frac(r.RelGapAtMost))
	}
	return t
}
