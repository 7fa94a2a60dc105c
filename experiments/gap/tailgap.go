package gap

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TailRow is one policy at one sweep point of 'gap --objective slo|pQ':
// its value (violations, turns; or the percentile, uncached tokens) beside
// the hindsight interval [lower, upper] and its distance to each end.
type TailRow struct {
	CapacityTokens int64   `json:"capacity_tokens"`
	XiTokens       float64 `json:"xi_tokens"`
	Policy         string  `json:"policy"`
	Objective      string  `json:"objective"`
	Value          int64   `json:"value"`
	// ValueTTFTMs is the value's TTFT (pQ only).
	ValueTTFTMs *float64 `json:"value_ttft_ms,omitempty"`
	LowerBound  int64    `json:"lower_bound"`
	UpperBound  int64    `json:"upper_bound"`
	Proven      bool     `json:"proven_optimal"`
	// AboveLower = value − lower ≥ 0: at most this much better is
	// possible; AboveUpper = value − upper: at least this much better is
	// possible when positive.
	AboveLower int64  `json:"above_lower"`
	AboveUpper int64  `json:"above_upper"`
	Solver     string `json:"opt_solver"`
	// Windows is the number of windows of the interval when it is
	// lp/window's (gap --windows; 0, left out: the whole trace's).
	Windows int `json:"windows,omitempty"`
	// LowerOverlap is the windowed interval's lower overlap, steps
	// (TailWindowOptions.LowerOverlap; 0, left out: none).
	LowerOverlap int `json:"lower_overlap_turns,omitempty"`
	// TimeLimitSeconds is the time limit the interval was solved within,
	// seconds (0, left out: none; the interval then depends on the
	// machine).
	TimeLimitSeconds float64 `json:"time_limit_seconds,omitempty"`
}

// RunTail is Run for a tail objective: at every (capacity, ξ) point the
// interval of spec's objective (ξ matters only to the policies) and every
// policy's value, from the same replay as Run's. Each interval's time
// limit is cfg.TimeLimit (per optimum, as Run's); a spec.TimeLimit other
// than 0 or that is refused rather than dropped.
func RunTail(ctx context.Context, tr *trace.Trace, cfg Config, spec TailSpec) ([]TailRow, error) {
	if spec.TimeLimit != 0 && spec.TimeLimit != cfg.TimeLimit {
		return nil, fmt.Errorf("gap: a tail spec's time limit %v differs from the run's %v: RunTail takes Config.TimeLimit", spec.TimeLimit, cfg.TimeLimit)
	}
	return runTail(ctx, tr, cfg, spec, func(in *lp.Instance) (*TailReport, error) {
		sp := spec
		sp.TimeLimit = cfg.TimeLimit
		return SolveTail(ctx, in, sp)
	})
}

// runTail measures every policy at every (capacity, ξ) point of cfg
// against the interval bound returns for the capacity's instance.
func runTail(ctx context.Context, tr *trace.Trace, cfg Config, spec TailSpec, bound func(in *lp.Instance) (*TailReport, error)) ([]TailRow, error) {
	var rows []TailRow
	for _, c := range cfg.Capacities {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: c, BlockSize: cfg.Block, Forced: cfg.Forced})
		if err != nil {
			return nil, err
		}
		rep, err := bound(in)
		if err != nil {
			return nil, fmt.Errorf("capacity %d tokens: %w", c, err)
		}
		for _, x := range cfg.Xis {
			settings := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: c, BlockSize: cfg.Block, Xi: x,
				Forced: cfg.Forced}, Model: cfg.Model, SLOMs: spec.Model.TTFTMs(float64(spec.SLOTokens))}, QHat: cfg.QHat,
				Threshold: policy.DefaultThreshold, Schedules: cfg.Schedules}
			var run []policies.Entry
			for _, e := range cfg.Policies {
				if e.Name != "threshold-lru" || len(cfg.Thresholds) == 0 {
					run = append(run, e)
				}
			}
			out, err := sim.Trace(tr, run, settings)
			if err != nil {
				return nil, err
			}
			thr := make([]*int64, len(out)) // threshold-lru's T of each result, if swept
			for _, T := range cfg.Thresholds {
				s := settings
				s.Threshold, s.Schedules = T, nil
				for _, e := range cfg.Policies {
					if e.Name == "threshold-lru" {
						o, err := sim.Trace(tr, []policies.Entry{e}, s)
						if err != nil {
							return nil, err
						}
						out = append(out, o...)
						thr = append(thr, &T)
					}
				}
			}
			for i, o := range out {
				name := o.Name
				if thr[i] != nil {
					name = fmt.Sprintf("%s(T=%d)", o.Name, *thr[i])
				}
				row := TailRow{CapacityTokens: c, XiTokens: x, Policy: name, Objective: rep.Objective,
					LowerBound: rep.LowerBound, UpperBound: rep.UpperBound, Proven: rep.Proven, Solver: rep.Solver, Windows: rep.windows, LowerOverlap: rep.overlap,
					TimeLimitSeconds: rep.TimeLimit.Seconds()}
				if spec.Objective.Kind == objective.SLO {
					row.Value = o.Metrics.Exceeding(spec.SLOTokens)
				} else {
					row.Value = o.Metrics.UncachedAtRank(int64(spec.Objective.Rank(in.K())))
					row.ValueTTFTMs = ptr(spec.Model.TTFTMs(float64(row.Value)))
				}
				if row.Value < rep.LowerBound {
					return nil, fmt.Errorf("capacity %d tokens: policy %s reaches %d, below the certified lower bound %d (a bug)", c, name, row.Value, rep.LowerBound)
				}
				row.AboveLower, row.AboveUpper = row.Value-rep.LowerBound, row.Value-rep.UpperBound
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// TailTable renders RunTail's rows.
func TailTable(trace string, block int64, forced bool, obj objective.Objective, rows []TailRow) report.Table {
	unit := "SLO violations (turns)"
	if obj.Kind == objective.Percentile {
		unit = obj.String() + " of uncached tokens"
	}
	against := "the hindsight interval"
	if len(rows) > 0 && rows[0].Windows > 0 {
		against = fmt.Sprintf("the windowed hindsight interval (%d windows, seams ±%d steps, at most half a window)", rows[0].Windows, WindowSeamTurns)
		if rows[0].LowerOverlap > 0 {
			against = fmt.Sprintf("the windowed hindsight interval (%d windows, seams ±%d steps, at most half a window, lower overlap %d steps)", rows[0].Windows, WindowSeamTurns, rows[0].LowerOverlap)
		}
	}
	t := report.Table{
		Title: fmt.Sprintf("%s: %s of every policy against %s [lower, upper], B=%d tokens, forced=%v",
			trace, unit, against, block, forced),
		Header: []string{"capacity (tokens)", "ξ (tokens)", "policy", "value", "lower", "upper", "proven", "value − lower", "value − upper"},
	}
	for _, r := range rows {
		t.Add(report.CellI(r.CapacityTokens), report.CellF(r.XiTokens, 2), report.CellText(r.Policy), report.CellI(r.Value),
			report.CellI(r.LowerBound), report.CellI(r.UpperBound), report.CellText(fmt.Sprint(r.Proven)),
			report.CellI(r.AboveLower), report.CellI(r.AboveUpper))
	}
	return t
}
