package gap

import (
	"context"
	"fmt"
	"time"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
)

// TailSpec is a solve of a tail objective (SLO violations or a percentile
// of uncached tokens) on one instance.
type TailSpec struct {
	Objective objective.Objective
	// SLOTokens is the SLO s, tokens (a turn violates it iff b > s); for
	// the slo objective only.
	SLOTokens int64
	// SLOMs is the SLO in ms when it was given in ms (nil: in tokens).
	SLOMs *float64
	// Solver names the integer-program backend for the components the
	// bounds leave open: auto (cbc with -tags coin, else gonum), cbc,
	// gonum, or flow (the flow bound and the heuristic schedule only).
	Solver string
	// TimeLimit bounds the whole solve (0: none).
	TimeLimit time.Duration
	Model     latency.Model
	// Progress (nil: none) is told the percentile's τ probes.
	Progress progress.Func
}

// DefaultComponentTimeLimit bounds each component's integer program when
// a tail solve has no time limit of its own, so that a solve always ends
// (with a certified interval when a program is cut short).
const DefaultComponentTimeLimit = 10 * time.Second

// TailReport is the JSON document of 'tailbound solve --objective
// slo|pQ'. Violations are counts of turns; percentiles in uncached
// tokens, with their TTFT in ms by the latency model. A nil pointer is a
// number not computed.
type TailReport struct {
	Objective string `json:"objective"`
	// SLOTokens and SLOMs are the SLO (slo only).
	SLOTokens *int64   `json:"slo_tokens,omitempty"`
	SLOMs     *float64 `json:"slo_ms,omitempty"`
	// Q, Rank and MaxExceeding describe a percentile objective: the
	// rank among the turns (nearest rank) and how many may exceed it.
	Q            *float64 `json:"q,omitempty"`
	Rank         *int     `json:"rank,omitempty"`
	MaxExceeding *int     `json:"max_exceeding,omitempty"`
	// Optimum is the proven optimum (violations, or tokens for pQ); null
	// when not proven.
	Optimum       *int64   `json:"optimum"`
	OptimumTTFTMs *float64 `json:"optimum_ttft_ms,omitempty"`
	LowerBound    int64    `json:"lower_bound"`
	UpperBound    int64    `json:"upper_bound"`
	// LowerTTFTMs and UpperTTFTMs are the bounds' TTFT (pQ only).
	LowerTTFTMs *float64 `json:"lower_bound_ttft_ms,omitempty"`
	UpperTTFTMs *float64 `json:"upper_bound_ttft_ms,omitempty"`
	Proven      bool     `json:"proven_optimal"`
	// RelativeWidth is (upper − lower)/upper, 0 when both are 0.
	RelativeWidth float64 `json:"relative_width"`
	// LPBound is the LP relaxation's fractional lower bound on
	// violations (slo only; null when not solved).
	LPBound *float64 `json:"lp_bound,omitempty"`
	Solver  string   `json:"solver"`
	Status  string   `json:"status"`
	// Sizes (slo): turns, candidate pairs, those served in every optimum,
	// components and how each was proven; Probes (pQ): SLO problems
	// solved.
	Turns         int     `json:"turns"`
	Candidates    *int    `json:"candidates,omitempty"`
	Free          *int    `json:"free_pairs,omitempty"`
	Components    *int    `json:"components,omitempty"`
	ByBounds      *int    `json:"components_proven_by_bounds,omitempty"`
	ByIP          *int    `json:"components_proven_by_ip,omitempty"`
	Probes        *int    `json:"probes,omitempty"`
	ScheduleCheck string  `json:"schedule_check"`
	Detail        string  `json:"detail"`
	SolveSeconds  float64 `json:"solve_seconds"`

	// Schedule attains UpperBound (not in the JSON).
	Schedule []int64 `json:"-"`
	// TimeLimit is the limit the solve ran under (0: none); the JSON
	// document of solve carries it among its settings.
	TimeLimit time.Duration `json:"-"`
	// windows is the number of windows of a windowed interval
	// (RunTailWindowed; 0: the whole trace's), overlap its lower overlap,
	// steps.
	windows, overlap int
}

// tailBackend returns the backend solver names for the open components.
func tailBackend(name string) (lp.Backend, string, error) {
	switch name {
	case solvers.Auto:
		if solvers.Coin() {
			name = "cbc"
		} else {
			name = "gonum"
		}
	case solvers.Flow, "none":
		return nil, solvers.Flow, nil
	case "cbc", "gonum":
	default:
		return nil, "", fmt.Errorf("solver %s: for --objective slo|pQ use auto, cbc, gonum or flow (bounds and a schedule only)", name)
	}
	be, err := solvers.Backend(name)
	if err != nil {
		return nil, "", err
	}
	return be, "flow+" + name, nil
}

// SolveTail bounds spec's objective on in.
func SolveTail(ctx context.Context, in *lp.Instance, spec TailSpec) (*TailReport, error) {
	be, name, err := tailBackend(spec.Solver)
	if err != nil {
		return nil, option.Wrap("solver", err)
	}
	opt := slo.Options{Backend: be, Progress: spec.Progress}
	if spec.TimeLimit == 0 {
		opt.ComponentTimeLimit = DefaultComponentTimeLimit
	}
	if spec.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.TimeLimit)
		defer cancel()
	}
	r := &TailReport{Objective: spec.Objective.String(), Solver: name, Turns: in.K(), TimeLimit: spec.TimeLimit}
	start := time.Now()
	switch spec.Objective.Kind {
	case objective.SLO:
		res, err := slo.Violations(ctx, in, spec.SLOTokens, opt)
		if err != nil {
			return nil, err
		}
		r.SLOTokens, r.SLOMs = ptr(spec.SLOTokens), spec.SLOMs
		r.LowerBound, r.UpperBound, r.Proven = int64(res.Lower), int64(res.Upper), res.Proven
		if res.LP == res.LP {
			r.LPBound = ptr(res.LP)
		}
		r.Candidates, r.Free, r.Components = ptr(res.Candidates), ptr(res.Free), ptr(res.Components)
		r.ByBounds, r.ByIP = ptr(res.ProvenByBounds), ptr(res.ProvenByIP)
		r.Detail, r.Schedule = res.Detail, res.Schedule
	case objective.Percentile:
		res, err := slo.PercentileOf(ctx, in, spec.Objective, opt)
		if err != nil {
			return nil, err
		}
		r.Q, r.Rank, r.MaxExceeding = ptr(spec.Objective.Q), ptr(res.Rank), ptr(res.MaxExceeding)
		r.LowerBound, r.UpperBound, r.Proven = res.Lower, res.Upper, res.Proven
		r.LowerTTFTMs = ptr(spec.Model.TTFTMs(float64(res.Lower)))
		r.UpperTTFTMs = ptr(spec.Model.TTFTMs(float64(res.Upper)))
		r.Probes = ptr(res.Probes)
		r.Detail, r.Schedule = res.Detail, res.Schedule
	default:
		return nil, fmt.Errorf("objective %s: not a tail objective", spec.Objective)
	}
	r.SolveSeconds = time.Since(start).Seconds()
	if r.Proven {
		r.Optimum = ptr(r.LowerBound)
		if spec.Objective.Kind == objective.Percentile {
			r.OptimumTTFTMs = r.UpperTTFTMs
		}
		r.Status = "optimal"
	} else {
		r.Status = "interval"
	}
	if r.UpperBound > 0 {
		r.RelativeWidth = float64(r.UpperBound-r.LowerBound) / float64(r.UpperBound)
	}
	r.ScheduleCheck = "ok"
	if err := in.CheckSchedule(r.Schedule); err != nil {
		r.ScheduleCheck = err.Error()
	}
	return r, nil
}

// Tables returns the report as one quantity/value table.
func (r *TailReport) Tables(in *lp.Instance) []report.Table {
	t := report.Table{
		Title: fmt.Sprintf("hindsight %s bounds: %d turns, %d conversations, C=%d tokens, B=%d tokens, forced=%v",
			r.Objective, in.K(), in.Conversations, in.Capacity, in.BlockSize, in.Forced),
		Header: []string{"quantity", "value"},
	}
	add := func(name, v string) { t.Add(report.CellText(name), report.CellText(v)) }
	unit := "violations (turns)"
	if r.Q != nil {
		unit = "uncached tokens"
	}
	if r.SLOTokens != nil {
		add("SLO (tokens)", fmt.Sprint(*r.SLOTokens))
	}
	if r.Rank != nil {
		add("rank (nearest) / may exceed", fmt.Sprintf("%d / %d", *r.Rank, *r.MaxExceeding))
	}
	opt := "not proven"
	if r.Optimum != nil {
		opt = fmt.Sprint(*r.Optimum)
	}
	add("optimum, "+unit, opt)
	add("interval, "+unit, fmt.Sprintf("[%d, %d]", r.LowerBound, r.UpperBound))
	if r.LowerTTFTMs != nil {
		add("interval, TTFT ms", fmt.Sprintf("[%.3f, %.3f]", *r.LowerTTFTMs, *r.UpperTTFTMs))
	}
	add("relative width", fmt.Sprintf("%.4f%%", 100*r.RelativeWidth))
	if r.LPBound != nil {
		add("LP bound (violations)", fmt.Sprintf("%.3f", *r.LPBound))
	}
	add("status / solver", r.Status+" / "+r.Solver)
	if r.Components != nil {
		add("candidates / free / components (by bounds, by IP)", fmt.Sprintf("%d / %d / %d (%d, %d)", *r.Candidates, *r.Free, *r.Components, *r.ByBounds, *r.ByIP))
	}
	if r.Probes != nil {
		add("SLO probes", fmt.Sprint(*r.Probes))
	}
	add("schedule check", r.ScheduleCheck)
	if r.Detail != "" {
		add("detail", r.Detail)
	}
	add("solve (s)", fmt.Sprintf("%.3f", r.SolveSeconds))
	return []report.Table{t}
}
