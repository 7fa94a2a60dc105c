package montecarlo

import (
	"fmt"
	"io"
	"math"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// Command is 'tailbound mdp simulate' as given on the command line: each
// field holds a flag's value in the flag's units. Run validates them,
// naming the flag, and runs the study.
type Command struct {
	// Model is the birth–death workload read from the model flags; its
	// Duration is replaced by Duration, seconds of births per replication
	// (--duration).
	Model    birthdeath.Params
	Duration float64
	// Reps is the number of replications, ≥ 2 (--reps); Seed the random
	// seed (--seed).
	Reps int
	Seed uint64
	// Policies are the online policies, comma-separated (--policies; see
	// Policies); PolicyOpts their key=value settings (--policy-opt).
	Policies   string
	PolicyOpts []string
	// Capacity is C, a multiple of Block, and Block is B, tokens
	// (--capacity, --block-size).
	Capacity, Block int64
	// Latency is the latency model and Xi the TEL threshold ξ, tokens.
	Latency latency.Model
	Xi      float64
	// QHat is T-LRU's Q̂: "auto" (running mean) or tokens (--qhat).
	QHat string
	// SLOMs is the SLO for violation counts, ms (--slo-ms).
	SLOMs float64
	// Forced is forced caching (--forced).
	Forced bool
	// Progress, when not nil, is told what runs.
	Progress io.Writer
}

// workers is the number of replications run at once (2 on this machine).
const workers = 2

// Run validates c and runs the study: it returns the JSON document and the
// table the command prints.
func (c Command) Run() (any, []report.Table, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "running %d replications of %g s on %d workers…\n", c.Reps, cfg.Model.Duration, workers)
	}
	stats, err := Run(cfg)
	if err != nil {
		return nil, nil, err
	}
	doc, t := Report(cfg, stats)
	return doc, []report.Table{t}, nil
}

// config validates c and returns the study's Config.
func (c Command) config() (Config, error) {
	p := c.Model
	p.Duration = c.Duration
	if !(p.Duration > 0) || math.IsInf(p.Duration, 0) {
		return Config{}, option.Errorf("duration", "must be a finite number of seconds > 0")
	}
	if err := p.Validate(); err != nil {
		return Config{}, err
	}
	if c.Reps < 2 {
		return Config{}, option.Errorf("reps", "need at least 2 replications, got %d", c.Reps)
	}
	if err := instance.CheckFlags("capacity", c.Capacity, c.Block); err != nil {
		return Config{}, err
	}
	q, err := policy.ParseQHat(c.QHat)
	if err != nil {
		return Config{}, err
	}
	kv, err := option.KV("policy-opt", c.PolicyOpts)
	if err != nil {
		return Config{}, err
	}
	entries, err := Policies(c.Policies, p, kv)
	if err != nil {
		return Config{}, option.Wrap("policies", err)
	}
	params := instance.Params{Capacity: c.Capacity, BlockSize: c.Block, Xi: c.Xi, Forced: c.Forced}
	return Config{Model: p, Reps: c.Reps, Seed: c.Seed, Policies: entries, Workers: workers,
		Settings: sim.Settings{Options: replay.Options{Params: params, Model: c.Latency, SLOMs: c.SLOMs},
			QHat: q, Threshold: policy.DefaultThreshold, PolicyOptions: kv}}, nil
}
