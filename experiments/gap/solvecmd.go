package gap

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// SolveCommand is 'tailbound solve' as given on the command line: each
// field holds a flag's value in the flag's units. Run validates them,
// naming the flag, and solves.
type SolveCommand struct {
	// Trace is the canonical trace file (--trace; - for stdin; "": the
	// embedded birth–death workload of seed Seed).
	Trace string
	// Seed is the embedded workload's seed (--seed), when Trace is "".
	Seed uint64
	// Capacity is the cache capacity C, tokens, a multiple of Block
	// (--capacity); CapacityGiven says it was on the command line (it is
	// required with a trace file; the embedded workload's default is
	// sim.DefaultWorkloadCapacity).
	Capacity      int64
	CapacityGiven bool
	// Block is the block size B, tokens (--block-size).
	Block int64
	// Model is the latency model (--alpha-ms, --beta-ms) and Xi the TEL
	// threshold ξ, tokens (--xi-tokens or --xi-ms converted).
	Model latency.Model
	Xi    float64
	// Formulation is compact, paper or paper-as-written (--formulation).
	Formulation string
	// Solver is a solver of lp/solvers (--solver).
	Solver string
	// Relax solves only the LP relaxation (--relax); Forced is forced
	// caching (--forced); CrossCheck also solves with flow and reports any
	// difference (--cross-check).
	Relax, Forced, CrossCheck bool
	// TimeLimit bounds each solve, seconds (--time-limit; 0: none).
	TimeLimit float64
	// Schedule, when not "", is the file to write the optimum's cache
	// schedule to (CSV, tokens per turn) (--schedule).
	Schedule string
	// Objective is tel (default, ""), slo or pQ (--objective); SLO is the
	// SLO of the slo objective (--slo-ms, --slo-tokens), and Given
	// reports which flags (named without dashes) were given.
	Objective string
	SLO       objective.SLOSettings
	Given     func(flag string) bool
	// Progress, when not nil, is told what the command does and how far
	// it is.
	Progress progress.Func
}

// solveDoc is solve's JSON document: the report's fields plus settings.
type solveDoc struct {
	*Report
	Settings any `json:"settings"`
}

// Run validates c, reads the trace, solves and writes the schedule when
// asked: it returns the JSON document and the tables the command prints.
func (c SolveCommand) Run(ctx context.Context) (any, []report.Table, error) {
	obj := objective.Objective{}
	if c.Objective != "" {
		var err error
		if obj, err = objective.Parse(c.Objective); err != nil {
			return nil, nil, option.Wrap("objective", err)
		}
	}
	if obj.Kind != objective.TEL {
		return c.runTail(ctx, obj)
	}
	if c.given("slo-ms") || c.given("slo-tokens") {
		return nil, nil, option.Errorf(c.sloFlag(), "for --objective slo only")
	}
	spec, err := c.spec()
	if err != nil {
		return nil, nil, err
	}
	if err := atomicfile.RefuseInput(c.Schedule, c.Trace); err != nil {
		return nil, nil, option.Wrap("schedule", err)
	}
	tr, label, err := c.read()
	if err != nil {
		return nil, nil, err
	}
	c.Progress.Report("building the instance", 0, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: c.capacity(), BlockSize: c.Block, Xi: c.Xi, Forced: c.Forced})
	if err != nil {
		return nil, nil, err
	}
	spec.Progress = c.Progress
	rep, err := Solve(ctx, tr, in, spec)
	if err != nil {
		return nil, nil, err
	}
	if c.Schedule != "" {
		if rep.Schedule == nil {
			return nil, nil, option.Errorf("schedule", "no schedule to write (status %s)", rep.Status)
		}
		err := atomicfile.Write(ctx, c.Schedule, func(w io.Writer) error { return in.WriteSchedule(w, tr.Names, rep.Schedule) })
		if err != nil {
			return nil, nil, option.Wrap("schedule", err)
		}
	}
	settings := map[string]any{"trace": label, "turns": in.K(), "conversations": in.Conversations,
		"capacity_tokens": c.capacity(), "block_size_tokens": c.Block, "xi_tokens": c.Xi, "forced": c.Forced,
		"alpha_ms_per_token": c.Model.AlphaMs, "time_limit_seconds": c.TimeLimit}
	return solveDoc{Report: rep, Settings: settings}, rep.Tables(in), nil
}

// capacity is C, tokens: --capacity, or the embedded workload's default.
func (c SolveCommand) capacity() int64 {
	if c.Trace == "" && !c.CapacityGiven {
		return sim.DefaultWorkloadCapacity
	}
	return c.Capacity
}

// read returns the trace to solve and its label: the file c.Trace, or the
// embedded birth–death workload of seed c.Seed.
func (c SolveCommand) read() (*trace.Trace, string, error) {
	if c.Trace != "" {
		f, err := trace.Open(c.Trace)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		tr, err := trace.ReadAll(&progress.Reader{R: f, What: "reading the trace (bytes)", Total: progress.Size(f), F: c.Progress}, c.Trace)
		return tr, c.Trace, err
	}
	tr, err := birthdeath.Trace(birthdeath.Default(), c.Seed)
	return tr, fmt.Sprintf("embedded birth–death workload (seed %d)", c.Seed), err
}

// spec validates the flags that need no trace and returns what to solve.
func (c SolveCommand) spec() (Spec, error) {
	if c.Trace != "" && !c.CapacityGiven {
		return Spec{}, option.Errorf("capacity", "required with --trace (tokens)")
	}
	if err := instance.CheckFlags("capacity", c.capacity(), c.Block); err != nil {
		return Spec{}, err
	}
	f, err := lp.ParseFormulation(c.Formulation)
	if err != nil {
		return Spec{}, option.Wrap("formulation", err)
	}
	limit, err := option.TimeLimit("time-limit", c.TimeLimit)
	if err != nil {
		return Spec{}, err
	}
	if c.Schedule != "" && c.Relax {
		return Spec{}, option.Errorf("schedule", "needs the integer optimum; drop --relax")
	}
	return Spec{Formulation: f, Solver: c.Solver, Relax: c.Relax, TimeLimit: limit,
		CrossCheck: c.CrossCheck, Model: c.Model}, nil
}

// given reports whether flag was on the command line.
func (c SolveCommand) given(flag string) bool { return c.Given != nil && c.Given(flag) }

// sloFlag names the SLO flag given (slo-ms or slo-tokens).
func (c SolveCommand) sloFlag() string {
	if c.given("slo-ms") {
		return "slo-ms"
	}
	return "slo-tokens"
}

// tailDoc is solve's JSON document for a tail objective.
type tailDoc struct {
	*TailReport
	Settings any `json:"settings"`
}

// runTail is Run for --objective slo|pQ.
func (c SolveCommand) runTail(ctx context.Context, obj objective.Objective) (any, []report.Table, error) {
	spec, err := c.spec()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case c.Relax:
		return nil, nil, option.Errorf("relax", "for --objective tel only (the tail objectives report their LP bound with the interval)")
	case spec.Formulation != lp.Compact:
		return nil, nil, option.Errorf("formulation", "for --objective tel only (the tail bounds use the compact pairs)")
	}
	ts := TailSpec{Objective: obj, Solver: c.Solver, TimeLimit: spec.TimeLimit, Model: c.Model, Progress: c.Progress}
	if obj.Kind == objective.SLO {
		if ts.SLOTokens, err = c.SLO.Resolve(c.Model, c.given); err != nil {
			return nil, nil, err
		}
		if !c.given("slo-tokens") {
			ts.SLOMs = ptr(c.SLO.SLOMs)
		}
	} else if c.given("slo-ms") || c.given("slo-tokens") {
		return nil, nil, option.Errorf(c.sloFlag(), "for --objective slo only (a percentile needs no SLO)")
	}
	tr, label, err := c.read()
	if err != nil {
		return nil, nil, err
	}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: c.capacity(), BlockSize: c.Block, Xi: c.Xi, Forced: c.Forced})
	if err != nil {
		return nil, nil, err
	}
	rep, err := SolveTail(ctx, in, ts)
	if err != nil {
		return nil, nil, err
	}
	if c.Schedule != "" {
		err := atomicfile.Write(ctx, c.Schedule, func(w io.Writer) error { return in.WriteSchedule(w, tr.Names, rep.Schedule) })
		if err != nil {
			return nil, nil, option.Wrap("schedule", err)
		}
	}
	settings := map[string]any{"trace": label, "turns": in.K(), "conversations": in.Conversations,
		"capacity_tokens": c.capacity(), "block_size_tokens": c.Block, "forced": c.Forced,
		"alpha_ms_per_token": c.Model.AlphaMs, "beta_ms": c.Model.BetaMs, "time_limit_seconds": c.TimeLimit}
	return tailDoc{TailReport: rep, Settings: settings}, rep.Tables(in), nil
}
