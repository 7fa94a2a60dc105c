// Package gap computes the hindsight TEL optimum of a trace and the
// optimality gap of eviction policies against it: the computation behind
// 'tailbound solve' (one instance, every number the solvers give, with
// their disagreements reported) and 'tailbound gap' (a sweep over
// capacities and thresholds, every policy against the optimum).
package gap

import (
	"context"
	"github.com/tailbound/tailbound/internal/progress"

	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// Spec is what to solve.
type Spec struct {
	Formulation lp.Formulation
	// Solver is auto|clp|cbc|gonum|flow.
	Solver string
	// Relax solves only the LP relaxation.
	Relax bool
	// TimeLimit bounds each solve (0: none).
	TimeLimit time.Duration
	// CrossCheck also solves with flow when Solver is not flow, and
	// reports any difference.
	CrossCheck bool
	// Model converts TEL tokens to ms.
	Model latency.Model
	// Progress, when not nil, is told which solve runs and how far it is.
	Progress progress.Func
}

// Report is one instance's answer: the JSON document of 'tailbound solve'.
// TELs are in tokens unless the field says ms; times in seconds. A nil
// pointer is a number that was not computed (or could not be).
type Report struct {
	TELOptTokens    *float64 `json:"tel_opt_tokens"`
	TELOptMs        *float64 `json:"tel_opt_ms"`
	BestFoundTokens *float64 `json:"best_found_tokens,omitempty"`
	LPBoundTokens   *float64 `json:"lp_bound_tokens"`
	// Integral: whether the LP relaxation's solution has whole block
	// counts (within IntegralityTolBlocks).
	Integral        *bool    `json:"integral"`
	BeladyTELTokens float64  `json:"belady_tel_tokens"`
	FlowTELTokens   *float64 `json:"flow_tel_tokens"`
	Status          string   `json:"status"`
	LPStatus        string   `json:"lp_status"`
	Solver          string   `json:"solver"`
	LPSolver        string   `json:"lp_solver"`
	Formulation     string   `json:"formulation"`
	Relax           bool     `json:"relax"`
	// Sizes of the program solved (for flow: nodes and arcs of its
	// network); LP sizes when only the LP was solved.
	Rows     int `json:"rows"`
	Cols     int `json:"cols"`
	NonZeros int `json:"nonzeros"`
	// Times, seconds.
	BuildSeconds   float64 `json:"build_seconds"`
	SolveSeconds   float64 `json:"solve_seconds"`
	LPSolveSeconds float64 `json:"lp_solve_seconds"`
	// IntegralityTolBlocks is the tolerance on whole block counts.
	IntegralityTolBlocks float64 `json:"integrality_tolerance_blocks"`
	// Conditions are the formulation's added conditions (paper) or
	// readings (paper-as-written, compact, flow).
	Conditions []lp.Condition `json:"conditions"`
	// ScheduleCheck is "ok" or the first model rule the solution's
	// schedule breaks.
	ScheduleCheck string `json:"schedule_check"`
	// Disagreements lists every difference found between numbers that
	// should agree (formulations, solvers, schedule and objective).
	Disagreements []string `json:"disagreements"`
	// Notes are things not computed and why.
	Notes    []string `json:"notes"`
	Detail   string   `json:"detail"`
	LPDetail string   `json:"lp_detail"`

	// Schedule is the optimum's x_k, tokens (not in the JSON).
	Schedule []int64 `json:"-"`
}

// agreeTol is the relative tolerance of agreement checks: solvers are
// accurate to about 1e-9 relative; TELs are sums of up to 10^6 terms.
const agreeTol = 1e-6

func agree(a, b float64) bool {
	return math.Abs(a-b) <= agreeTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func ptr[T any](v T) *T { return &v }

// Solve computes the report of one instance of trace tr.
func Solve(ctx context.Context, tr *trace.Trace, in *lp.Instance, s Spec) (*Report, error) {
	r := &Report{Formulation: string(s.Formulation), Relax: s.Relax, IntegralityTolBlocks: lp.IntegralityTol,
		Disagreements: []string{}, Notes: []string{}, ScheduleCheck: "not computed"}
	opt := lp.Options{TimeLimit: s.TimeLimit, Progress: s.Progress.Within("optimum by " + s.Solver)}
	if s.Solver == solvers.Flow && s.Formulation != lp.Compact {
		return nil, fmt.Errorf("formulation %s: solver flow solves only the compact formulation (its min-cost flow is the compact integer program); for %s use --solver %s, or drop --formulation", s.Formulation, s.Formulation, ipSolvers())
	}
	if s.Relax {
		if e, ok := solvers.Find(s.Solver); ok && e.Solves&solvers.LP == 0 {
			return nil, fmt.Errorf("solver %s solves the integer program (its own LP is integral); for the plain LP relaxation use --solver %s", s.Solver, lpSolvers())
		}
	}
	if !s.Relax {
		ip, err := solvers.Solve(ctx, in, s.Formulation, s.Solver, false, opt)
		if err != nil {
			return nil, err
		}
		if err := r.takeIP(ip, s); err != nil {
			return nil, err
		}
	}
	opt.Progress = s.Progress.Within("LP bound")
	if err := r.takeLP(ctx, in, s, opt); err != nil {
		return nil, err
	}
	s.Progress.Report("to-belady", 0, 0)
	bel, err := BeladyTEL(tr, in)
	if err != nil {
		return nil, err
	}
	r.BeladyTELTokens = bel
	if r.TELOptTokens != nil {
		if bel < *r.TELOptTokens-agreeTol*math.Max(1, bel) {
			why := "a solver or policy bug"
			if r.Formulation == string(lp.PaperAsWritten) {
				why = "the printed program rounds each excess up to whole blocks and lets a first turn find cache"
			}
			r.Disagreements = append(r.Disagreements, fmt.Sprintf("to-belady TEL %g below the %s optimum %g tokens (%s)", bel, r.Formulation, *r.TELOptTokens, why))
		}
		if s.CrossCheck && r.Solver != solvers.Flow {
			opt.Progress = s.Progress.Within("cross-check by flow")
			fl, err := solvers.Solve(ctx, in, lp.Compact, solvers.Flow, false, opt)
			if err != nil {
				return nil, err
			}
			if fl.Status == lp.Optimal {
				r.FlowTELTokens = ptr(fl.TEL)
				if !agree(fl.TEL, *r.TELOptTokens) {
					r.Disagreements = append(r.Disagreements, fmt.Sprintf("%s optimum %g ≠ flow optimum %g tokens", r.Formulation, *r.TELOptTokens, fl.TEL))
				}
			} else {
				r.Notes = append(r.Notes, "flow cross-check: "+fl.Status.String())
			}
		}
	}
	return r, nil
}

// takeIP records the integer program's result; solver failures on this
// always feasible, bounded problem are errors.
func (r *Report) takeIP(ip *lp.Result, s Spec) error {
	r.Solver, r.Status, r.Detail = ip.Solver, ip.Status.String(), ip.Detail
	r.Formulation = string(ip.Formulation)
	r.Rows, r.Cols, r.NonZeros = ip.Rows, ip.Cols, ip.NonZeros
	r.BuildSeconds, r.SolveSeconds = ip.Build.Seconds(), ip.Solve.Seconds()
	r.Conditions = ip.Conditions
	switch ip.Status {
	case lp.Optimal:
		r.TELOptTokens = ptr(ip.TEL)
		r.TELOptMs = ptr(ip.TEL * s.Model.AlphaMs)
	case lp.TimeLimit, lp.IterationLimit:
		if ip.Points {
			r.BestFoundTokens = ptr(ip.TEL)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("the integer program stopped at its %s: no optimum (best integer point found: %v)", ip.Status, ip.Points))
	case lp.TooLarge:
		return fmt.Errorf("solver %s refused: %s", ip.Solver, ip.Detail)
	default:
		return fmt.Errorf("solver %s reported %s on an instance that is always feasible and bounded (a solver failure): %s", ip.Solver, ip.Status, ip.Detail)
	}
	if ip.Points {
		r.Schedule = ip.Schedule
		r.ScheduleCheck = "ok"
		if ip.ScheduleErr != nil {
			r.ScheduleCheck = ip.ScheduleErr.Error()
			r.Disagreements = append(r.Disagreements, "the solution's schedule is not admissible: "+ip.ScheduleErr.Error())
		}
		if !agree(ip.ScheduleTEL, ip.TEL) {
			r.Disagreements = append(r.Disagreements, fmt.Sprintf("objective %g ≠ TEL %g of the solution's schedule (tokens)", ip.TEL, ip.ScheduleTEL))
		}
	}
	return nil
}

// takeLP solves and records the LP relaxation: with the chosen solver, or
// the one its registry entry names for its relaxations (RelaxBy: auto's
// choice, clp or gonum when the problem fits, for cbc and flow).
func (r *Report) takeLP(ctx context.Context, in *lp.Instance, s Spec, opt lp.Options) error {
	name := s.Solver
	if e, ok := solvers.Find(name); ok && e.RelaxBy != "" {
		name = e.RelaxBy
	}
	if why := lpOutOfReach(in, name, s.Relax); why != "" {
		r.LPStatus = "not solved"
		r.Notes = append(r.Notes, "LP relaxation not solved: "+why)
		return nil
	}
	// The formulation the integer program was solved in (flow solves the
	// compact one whatever was asked).
	f := lp.Formulation(r.Formulation)
	task := lp.NewTask(in, f, true)
	if _, _, err := task.Model(); err != nil {
		return err
	}
	which, solver, err := solvers.Pick(name, task)
	if err != nil {
		if s.Relax {
			return err
		}
		r.LPStatus = "not solved"
		r.Notes = append(r.Notes, "LP relaxation not solved: "+err.Error())
		return nil
	}
	res, err := solver.Solve(ctx, task, opt)
	if err != nil {
		return err
	}
	r.LPSolver, r.LPStatus, r.LPDetail = which, res.Status.String(), res.Detail
	r.LPSolveSeconds = res.Solve.Seconds()
	if s.Relax {
		r.Solver, r.Status, r.Detail = which, res.Status.String(), res.Detail
		r.Rows, r.Cols, r.NonZeros = res.Rows, res.Cols, res.NonZeros
		r.SolveSeconds = res.Solve.Seconds()
		r.Conditions = res.Conditions
	}
	switch res.Status {
	case lp.Optimal:
		r.LPBoundTokens = ptr(res.TEL)
		r.Integral = ptr(res.Integral)
		if r.TELOptTokens != nil && res.TEL > *r.TELOptTokens+agreeTol*math.Max(1, res.TEL) {
			r.Disagreements = append(r.Disagreements, fmt.Sprintf("LP bound %g above the integer optimum %g tokens", res.TEL, *r.TELOptTokens))
		}
		if r.TELOptTokens != nil && res.Integral && !agree(res.TEL, *r.TELOptTokens) && f == lp.Formulation(r.Formulation) {
			r.Disagreements = append(r.Disagreements, fmt.Sprintf("integral LP solution %g ≠ integer optimum %g tokens", res.TEL, *r.TELOptTokens))
		}
	case lp.TooLarge, lp.TimeLimit, lp.IterationLimit:
		if s.Relax {
			return fmt.Errorf("LP solver %s: %s: %s", which, res.Status, res.Detail)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("LP relaxation not solved by %s: %s", which, res.Detail))
	default:
		return fmt.Errorf("LP solver %s reported %s on an always feasible, bounded LP (a solver failure): %s", which, res.Status, res.Detail)
	}
	return nil
}

// lpModelMaxTurns is the most turns for which takeLP builds the LP
// relaxation when no solver of this build could take it (see
// lpOutOfReach): the model of 10^6 turns holds about 240 MB and took 7 s
// to build (its peak, 740 MB, was solve's whole peak at 10^6 turns, and
// at 10^7 turns a minute and most of 6.6 GB), only to be refused.
const lpModelMaxTurns = 250_000

// lpOutOfReach says why the LP relaxation of in need not be built, when
// that is certain without building it: auto is to choose its solver (for
// an integer program solved by flow or cbc, whose relaxations go to auto),
// this build has no CLP, and in has over lpModelMaxTurns turns, so the
// compact model's standard form has at least 2 rows per turn (each
// capacity balance row is an equality), far beyond gonum's dense simplex.
// It returns "" otherwise; a relaxation asked for (--relax) is always
// attempted.
func lpOutOfReach(in *lp.Instance, name string, relax bool) string {
	if relax || name != solvers.Auto || in.K() <= lpModelMaxTurns {
		return ""
	}
	if e, ok := solvers.Find("clp"); ok && e.Available() {
		return ""
	}
	return fmt.Sprintf("auto: no solver in this build for compact LP relaxation: gonum's dense simplex handles standard forms up to %d rows; this one has at least %d, two per turn (not built: over %d turns; use clp built with -tags coin)",
		gonumlp.DefaultMaxRows, 2*in.K(), lpModelMaxTurns)
}

// lpSolvers lists the solvers of plain LP relaxations, "auto, clp or
// gonum".
func lpSolvers() string {
	var n []string
	for _, e := range solvers.Default().Entries() {
		if e.Solves&solvers.LP != 0 && e.RelaxBy == "" {
			n = append(n, e.Name)
		}
	}
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// ipSolvers lists the solvers of integer programs other than flow, "auto,
// cbc or gonum": those that solve every formulation.
func ipSolvers() string {
	var n []string
	for _, e := range solvers.Default().Entries() {
		if e.Solves&solvers.IP != 0 && e.Name != solvers.Flow {
			n = append(n, e.Name)
		}
	}
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// BeladyTEL replays Tail-Optimized Belady on the instance and returns its
// TEL, tokens.
func BeladyTEL(tr *trace.Trace, in *lp.Instance) (float64, error) {
	es, err := policies.Parse("to-belady")
	if err != nil {
		return 0, err
	}
	res, err := sim.Trace(tr, es, sim.Settings{Options: replay.Options{Params: in.Params, Model: latency.Default(), SLOMs: latency.DefaultSLOMs}})
	if err != nil {
		return 0, err
	}
	return res[0].Summary.TELTokens, nil
}
