package gap

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/schedule"
)

// turn validates the turn level's flags in the order the command line
// reads them and returns the sweep's Config and, for the embedded
// workload, its seeds (nil: the trace file c.Trace).
func (c Command) turn(ctx context.Context) (Config, []uint64, error) {
	if err := report.CheckFormat(c.Format); err != nil {
		return Config{}, nil, err
	}
	cfg, err := c.sweep()
	if err != nil {
		return Config{}, nil, err
	}
	if cfg.Policies, cfg.Schedules, err = c.measured(ctx); err != nil {
		return Config{}, nil, err
	}
	if cfg.QHat, err = policy.ParseQHat(c.QHat); err != nil {
		return Config{}, nil, err
	}
	if c.Workers < 1 {
		return Config{}, nil, option.Errorf("workers", "must be ≥ 1, got %d", c.Workers)
	}
	switch c.WarmStart {
	case "", "auto":
		cfg.WarmStart = c.Solver == solvers.Flow && lp.CurveWarmStarts(cfg.Capacities) && wholeTokens(cfg.Xis)
	case "on":
		if c.Solver != solvers.Flow {
			return Config{}, nil, option.Errorf("warm-start", "on needs --solver flow, not %s", c.Solver)
		}
		cfg.WarmStart = true
	case "off":
	default:
		return Config{}, nil, option.Errorf("warm-start", "must be auto, on or off, got %q", c.WarmStart)
	}
	limit, err := option.TimeLimit("time-limit", c.TimeLimit)
	if err != nil {
		return Config{}, nil, err
	}
	cfg.Model = latency.Default()
	cfg.Model.AlphaMs = c.AlphaMs
	if err := cfg.Model.Validate(); err != nil {
		return Config{}, nil, option.Wrap("alpha-ms", err)
	}
	cfg.Block, cfg.Forced, cfg.Solver, cfg.Workers, cfg.Progress = c.Block, c.Forced, c.Solver, c.Workers, c.Progress
	if cfg.Windows = c.Windows; cfg.Windows > 0 {
		cfg.WarmStart = false
	}
	cfg.TimeLimit = limit
	if !c.embedded() {
		return cfg, nil, nil
	}
	if c.Seeds == "" {
		return cfg, []uint64{c.Seed}, nil
	}
	list, err := seeds.Parse(c.Seeds, c.Seed)
	return cfg, list, err
}

// sweep reads the sweep's points: capacities (multiples of the block
// size), thresholds ξ and threshold-lru's T values.
func (c Command) sweep() (Config, error) {
	var cfg Config
	if c.embedded() { // the embedded workload's defaults, as simulate's
		if c.Capacities == "" {
			c.Capacities = strconv.FormatInt(sim.DefaultWorkloadCapacity, 10)
		}
		if c.Xis == "" {
			c.Xis = strconv.FormatFloat(latency.Default().XiTokens(latency.DefaultXiMs), 'g', -1, 64)
		}
	}
	if c.Capacities == "" || c.Xis == "" {
		return cfg, option.Both("capacities", "xis", "both required (comma-separated tokens)")
	}
	var err error
	if cfg.Capacities, err = option.Ints("capacities", c.Capacities); err != nil {
		return cfg, err
	}
	for _, v := range cfg.Capacities {
		if err := instance.CheckFlags("capacities", v, c.Block); err != nil {
			return cfg, err
		}
	}
	if cfg.Xis, err = option.Floats("xis", c.Xis); err != nil {
		return cfg, err
	}
	if c.Thresholds != "" {
		if cfg.Thresholds, err = option.Ints("thresholds", c.Thresholds); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// measured reads what is measured at each point: the policies (every
// registered one when neither policies nor schedules are given) and the
// external schedules.
func (c Command) measured(ctx context.Context) ([]policies.Entry, []*schedule.Schedule, error) {
	names := c.Policies
	if names == "" && len(c.Schedules) == 0 {
		names = strings.Join(policies.Names(), ",")
	}
	timeout, err := execpolicy.Timeout(c.ExecTimeout)
	if err != nil {
		return nil, nil, option.Wrap("exec-timeout", err)
	}
	var entries []policies.Entry
	if names != "" {
		if entries, err = policies.ParseWith(names, execpolicy.Options{Timeout: timeout, Context: ctx}); err != nil {
			return nil, nil, option.Wrap("policies", err)
		}
	}
	scheds, err := schedule.ReadFiles(c.Schedules)
	if err != nil {
		return nil, nil, option.Wrap("schedule", err)
	}
	if c.Thresholds != "" && !strings.Contains(","+names+",", ",threshold-lru,") {
		return nil, nil, option.Errorf("thresholds", "threshold-lru is not among --policies")
	}
	return entries, scheds, nil
}

// wholeTokens reports whether every ξ is a whole number of tokens. A
// fractional ξ scales the flow's costs by 2^30 per token, and there the
// warm start gains nothing: gap --turns 10000 --capacities
// 32768,41280,52000,65536 --xis 1900.7 took 3.1 s wall and 4.2 s of CPU
// warm against 1.9 s and 3.6 s separately (three runs each, quiet
// machine, 2026-11-29), one window of each capacity finishing warm and the
// other spending its relabel budget before it is solved from scratch. So
// --warm-start auto solves such grids point by point (on still insists).
func wholeTokens(xis []float64) bool {
	for _, x := range xis {
		if x != math.Trunc(x) {
			return false
		}
	}
	return true
}
