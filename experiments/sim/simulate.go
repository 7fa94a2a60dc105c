package sim

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// Turns runs simulate at the turn level: the policies over the trace (or
// the embedded workload), once, per seed of --seeds, or per capacity of
// --capacities; it draws --plot and returns the report's document and
// tables. It runs Resolve first when it has not run, and settles c's
// defaults in place (Capacity, Policies, Baseline), so that c shows the
// settings that ran.
func (c *Command) Turns() (any, []report.Table, error) {
	if !c.resolved {
		if err := c.Resolve(); err != nil {
			return nil, nil, err
		}
	}
	if c.Level != "turn" {
		return nil, nil, option.Errorf("level", "%q: Turns runs the turn level (blocksim.Simulate runs both)", c.Level)
	}
	entries, s, caps, err := c.turnSettings()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case caps != nil:
		return c.sweep(entries, s, caps)
	case c.Seeds != "":
		return c.seeds(entries, s)
	}
	var results []replay.Result
	if c.customWL {
		tr, err := birthdeath.Trace(c.wl, c.Seed)
		if err != nil {
			return nil, nil, err
		}
		results, err = Trace(tr, entries, s)
		if err != nil {
			return nil, nil, err
		}
	} else if results, err = FileOrWorkload(c.Trace, c.Seed, entries, s); err != nil {
		return nil, nil, err
	}
	if c.Plot != "" {
		title := fmt.Sprintf("TTFT tail, %s, C = %d tokens, B = %d tokens, ξ = %g tokens", c.TraceLabel(), s.Capacity, s.BlockSize, s.Xi)
		if err := plotCDF(c.Plot, title, results); err != nil {
			return nil, nil, err
		}
	}
	return Report(results, s, c.labels(c.TraceLabel()))
}

// turnSettings checks the turn level's flags and returns the policies, the
// run's settings and the --capacities sweep (nil without it).
func (c *Command) turnSettings() ([]policies.Entry, Settings, []int64, error) {
	var s Settings
	if c.TraceFormat != "canonical" {
		return nil, s, nil, option.Errorf("trace-format", "%s traces are replayed with --level block (or converted with 'tailbound import')", c.TraceFormat)
	}
	if c.TypeParams != "" {
		return nil, s, nil, option.Errorf("trace-type-params", "for --level block --trace-format libcachesim-csv only")
	}
	if c.changed("max-chain-blocks") {
		return nil, s, nil, option.Errorf("max-chain-blocks", "for --level block only")
	}
	model, xi, err := c.LatencyModel()
	if err != nil {
		return nil, s, nil, err
	}
	caps, err := c.capacities()
	if err != nil {
		return nil, s, nil, err
	}
	qhat, err := policy.ParseQHat(c.QHat)
	if err != nil {
		return nil, s, nil, err
	}
	var entries []policies.Entry
	if c.Policies == "" && len(c.Schedules) == 0 {
		c.Policies = strings.Join(policies.Names(), ",")
	}
	if c.Policies != "" {
		if entries, err = policies.ParseWith(c.Policies, c.ExecOptions()); err != nil {
			return nil, s, nil, named("policies", err)
		}
	}
	popts, err := option.KV("policy-opt", c.PolicyOpts)
	if err != nil {
		return nil, s, nil, err
	}
	s = Settings{
		Options: replay.Options{Params: instance.Params{Capacity: c.Capacity, BlockSize: c.BlockSize, Xi: xi, Forced: c.Forced}, Model: model,
			SLOMs: c.SLOMs, Progress: c.Progress},
		QHat: qhat, Threshold: c.Threshold, PolicyOptions: popts, EmitSchedule: c.Emit,
		Inputs: append([]string{c.Trace}, c.Schedules...), Context: c.ctx(),
	}
	if c.Emit != "" && len(entries) == 0 {
		return nil, s, nil, option.Errorf("emit-schedule", "no --policies to emit")
	}
	if s.Schedules, err = schedule.ReadFiles(c.Schedules); err != nil {
		return nil, s, nil, named("schedule", err)
	}
	return entries, s, caps, nil
}

// capacities reads --capacities (nil without it) and settles --capacity:
// the sweep's first, the embedded workload's default, or required with
// --trace.
func (c *Command) capacities() ([]int64, error) {
	var caps []int64
	if c.Capacities != "" {
		if c.changed("capacity") {
			return nil, option.Both("capacity", "capacities", "give one")
		}
		var err error
		if caps, err = option.Ints("capacities", c.Capacities); err != nil {
			return nil, err
		}
		for _, cp := range caps {
			if err := instance.CheckFlags("capacity", cp, c.BlockSize); err != nil {
				return nil, named("capacities", err)
			}
		}
		c.Capacity = caps[0]
	}
	if c.Capacity == 0 && c.Trace == "" {
		c.Capacity = DefaultWorkloadCapacity
	}
	if !c.changed("capacity") && c.Trace != "" && caps == nil {
		return nil, option.Errorf("capacity", "required with --trace (tokens)")
	}
	return caps, instance.CheckFlags("capacity", c.Capacity, c.BlockSize)
}

// named names flag as the source of err, in front of any flag err names
// itself (as the command has always printed it).
func named(flag string, err error) error {
	return &option.Error{Flags: []string{flag}, Err: err}
}

// labels are the report's labels of a run named trace.
func (c *Command) labels(trace string) Labels {
	return Labels{Trace: trace, QHat: c.QHat, Threshold: c.Threshold, Baseline: c.Baseline}
}

// plotCDF draws each policy's TTFT distribution to path (CDFFigure),
// titled title.
func plotCDF(path, title string, results []replay.Result) error {
	names := make([]string, len(results))
	accs := make([]*metrics.Accumulator, len(results))
	for i, r := range results {
		names[i], accs[i] = r.Name, r.Metrics
	}
	return CDFFigure(title, "turns", names, accs).Save(path)
}

// workloadTrace reads the --trace file or generates the workload of seed.
func (c *Command) workloadTrace(seed uint64) (*trace.Trace, error) {
	if c.Trace != "" {
		return trace.ReadFile(c.Trace)
	}
	return birthdeath.Trace(c.wl, seed)
}
