package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// defaultWorkloadCapacity is the capacity (tokens) used with the embedded
// workload when --capacity is not given: about a third of the tokens its
// live conversations hold at steady state, so that eviction matters.
const defaultWorkloadCapacity = 131072

// simOptions are the flags of simulate.
type simOptions struct {
	lat        latencyFlags
	tracePath  string
	format     string
	traceFmt   string
	level      string
	policies   string
	baseline   string
	capacity   int64
	block      int64
	qhat       string
	threshold  int64
	slo        float64
	forced     bool
	seed       uint64
	plot       string
	capacities string
	typeParams string
	maxChain   int64
	policyOpts []string
	schedules  []string
	emit       string
	execLimit  float64
	studies    blockStudyFlags
	seeds      string
	workload   workloadFlags
	wl         birthdeath.Params // the workload's parameters (embedded, or as the workload flags say)
	customWL   bool              // a workload flag was given
}

func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o simOptions
	fs := newFlags("simulate", "simulate [--trace FILE] [--policies lru,tlru,...] --capacity TOKENS [flags]", stdout)
	fs.StringVar(&o.tracePath, "trace", "", "canonical trace (JSON Lines; - for stdin); omitted: the embedded seeded birth–death workload")
	fs.StringVar(&o.policies, "policies", "", "comma-separated policies (default: all of "+fmt.Sprint(policies.Names())+")")
	fs.Int64Var(&o.capacity, "capacity", 0, fmt.Sprintf("cache capacity C, tokens, a multiple of --block-size (default %d with the embedded workload)", defaultWorkloadCapacity))
	fs.Int64Var(&o.block, "block-size", 16, "block size B, tokens")
	o.lat.add(fs)
	fs.StringVar(&o.qhat, "qhat", "auto", "T-LRU's next-prompt estimate Q̂: auto (running mean of prompts seen) or tokens")
	fs.Int64Var(&o.threshold, "threshold", policy.DefaultThreshold, "Threshold-LRU's T: cache only histories ≥ T tokens")
	fs.Float64Var(&o.slo, "slo-ms", 200, "SLO for violation counts, ms")
	fs.BoolVar(&o.forced, "forced", false, "forced caching: the served conversation's whole history must be cached")
	fs.StringVar(&o.baseline, "baseline", "lru", "baseline policy of the relative-improvement table (\"\" for none)")
	fs.StringArrayVar(&o.policyOpts, "policy-opt", nil, "policy-specific setting key=value (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the embedded workload")
	fs.StringVar(&o.seeds, "seeds", "", "embedded workload: run N seeds (--seed, --seed+1, …) or a range A-B in parallel and print each figure's mean ± 95% Student-t interval")
	fs.StringVar(&o.plot, "plot", "", "also draw the TTFT CDF of each policy to this .svg/.png file")
	fs.StringVar(&o.level, "level", "turn", "turn (conversation cache) or block (prefix cache over block-hash traces)")
	fs.StringVar(&o.traceFmt, "trace-format", "canonical", "trace format: canonical|mooncake|bailian|blocks|libcachesim-csv|oracle-general (all but canonical: block level)")
	fs.Int64Var(&o.maxChain, "max-chain-blocks", blocksim.DefaultMaxChainBlocks, "block level, canonical traces: refuse a request whose chain passes this many blocks (work and memory grow with it)")
	fs.StringVar(&o.typeParams, "trace-type-params", "", "libcachesim-csv: libCacheSim's csv options, e.g. \"time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false\"")
	fs.StringVar(&o.capacities, "capacities", "", "capacity sweep, comma-separated tokens (multiples of the block size); with --plot, each metric against capacity")
	fs.StringVar(&o.format, "format", "table", report.FormatHelp)
	fs.StringArrayVar(&o.schedules, "schedule", nil, "score this external schedule (JSON Lines, see README \"Schedules and external policies\"; repeatable); only the schedules run unless --policies is given")
	fs.StringVar(&o.emit, "emit-schedule", "", "write each policy's decisions as a schedule to FILE (several policies: FILE with .POLICY before its extension)")
	fs.Float64Var(&o.execLimit, "exec-timeout", 10, "exec:CMD policies: seconds to wait for one answer before killing the process")
	o.studies.add(fs)
	o.workload.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if o.wl, o.customWL, err = o.workload.params(fs, o.tracePath); err != nil {
		return err
	}
	if o.customWL && o.level != "turn" {
		return fmt.Errorf("flags %s: turn level only (the embedded workload)", strings.Join(o.workload.changed, " "))
	}
	if err := report.CheckFormat(o.format); err != nil {
		return err
	}
	if len(o.schedules) > 0 && o.policies == "" && !fs.Changed("baseline") {
		o.baseline = ""
	}
	o.baseline = resolveBaseline(o.baseline, o.policies, fs.Changed("baseline"))
	if !(o.execLimit > 0) {
		return fmt.Errorf("flag --exec-timeout: must be > 0 seconds, got %v", o.execLimit)
	}
	switch o.level {
	case "turn":
	case "block":
		return simulateBlock(&o, fs.Changed, stdout, stderr)
	default:
		return fmt.Errorf("flag --level: want turn or block, got %q", o.level)
	}
	if o.traceFmt != "canonical" {
		return fmt.Errorf("flag --trace-format: %s traces are replayed with --level block (or converted with 'tailbound import')", o.traceFmt)
	}
	if o.typeParams != "" {
		return fmt.Errorf("flag --trace-type-params: for --level block --trace-format libcachesim-csv only")
	}
	if fs.Changed("max-chain-blocks") {
		return fmt.Errorf("flag --max-chain-blocks: for --level block only")
	}
	model, xi, err := o.lat.resolve(fs.Changed)
	if err != nil {
		return err
	}
	var caps []int64
	if o.capacities != "" {
		if fs.Changed("capacity") {
			return fmt.Errorf("flags --capacity and --capacities: give one")
		}
		if caps, err = option.Ints("capacities", o.capacities); err != nil {
			return err
		}
		for _, c := range caps {
			if err := checkCapacity(c, o.block); err != nil {
				return fmt.Errorf("flag --capacities: %w", err)
			}
		}
		o.capacity = caps[0]
	}
	if o.capacity == 0 && o.tracePath == "" {
		o.capacity = defaultWorkloadCapacity
	}
	if !fs.Changed("capacity") && o.tracePath != "" && caps == nil {
		return fmt.Errorf("flag --capacity: required with --trace (tokens)")
	}
	if err := checkCapacity(o.capacity, o.block); err != nil {
		return err
	}
	qhat, err := parseQHat(o.qhat)
	if err != nil {
		return err
	}
	var entries []policies.Entry
	if o.policies == "" && len(o.schedules) == 0 {
		o.policies = joinNames(policies.Names())
	}
	if o.policies != "" {
		if entries, err = policies.ParseWith(o.policies, execpolicy.Options{Timeout: seconds(o.execLimit)}); err != nil {
			return fmt.Errorf("flag --policies: %w", err)
		}
	}
	popts, err := option.KV("policy-opt", o.policyOpts)
	if err != nil {
		return err
	}
	s := sim.Settings{
		Options: replay.Options{Params: instance.Params{Capacity: o.capacity, BlockSize: o.block, Xi: xi, Forced: o.forced}, Model: model,
			SLOMs: o.slo, Progress: progressTo(stderr)},
		QHat: qhat, Threshold: o.threshold, PolicyOptions: popts, EmitSchedule: o.emit,
	}
	if o.emit != "" && len(entries) == 0 {
		return fmt.Errorf("flag --emit-schedule: no --policies to emit")
	}
	if s.Schedules, err = schedule.ReadFiles(o.schedules); err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	if caps != nil {
		return simulateSweep(o, entries, s, caps, stdout)
	}
	if o.seeds != "" {
		return simulateSeeds(o, entries, s, stdout)
	}
	var results []replay.Result
	if o.customWL {
		tr, err := workloadTrace(o.wl, o.seed)
		if err != nil {
			return err
		}
		results, err = sim.Trace(tr, entries, s)
		if err != nil {
			return err
		}
	} else if results, err = sim.FileOrWorkload(o.tracePath, o.seed, entries, s); err != nil {
		return err
	}
	if o.plot != "" {
		if err := plotCDF(o.plot, results); err != nil {
			return err
		}
	}
	doc, tables, err := sim.Report(results, s, sim.Labels{Trace: traceLabel(o), QHat: o.qhat, Threshold: o.threshold, Baseline: o.baseline})
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.format, doc, tables...)
}

// seconds converts a flag in seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func joinNames(n []string) string { return strings.Join(n, ",") }

func traceLabel(o simOptions) string {
	if o.tracePath == "" {
		return fmt.Sprintf("%s (seed %d)", o.workload.label(), o.seed)
	}
	return o.tracePath
}

func plotCDF(path string, results []replay.Result) error {
	names := make([]string, len(results))
	accs := make([]*metrics.Accumulator, len(results))
	for i, r := range results {
		names[i], accs[i] = r.Name, r.Metrics
	}
	return sim.CDFFigure("turns", names, accs).Save(path)
}

// resolveBaseline drops the default baseline (lru) when --policies names
// other policies only, so that the relative view is shown when it can be
// and an explicit --baseline that is not run is still an error (reported
// after the replay would be too late; emit checks it).
func resolveBaseline(baseline, list string, explicit bool) string {
	if explicit || list == "" {
		return baseline
	}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == baseline {
			return baseline
		}
	}
	return ""
}

// simulateSeeds replays the embedded workload once per seed of --seeds (two
// at a time) and prints the summary of experiments/seeds.
func simulateSeeds(o simOptions, entries []policies.Entry, s sim.Settings, stdout io.Writer) error {
	list, err := seeds.Parse(o.seeds, o.seed)
	if err != nil {
		return err
	}
	switch {
	case o.tracePath != "":
		return fmt.Errorf("flag --seeds: for the embedded workload only (a --trace file has no seed)")
	case o.plot != "":
		return fmt.Errorf("flag --seeds: not with --plot (one CDF per seed; run the seed you want to draw)")
	case o.emit != "" || len(s.Schedules) > 0:
		return fmt.Errorf("flag --seeds: not with --emit-schedule or --schedule (schedules belong to one seed's trace)")
	}
	s.Progress = nil
	label := o.workload.label()
	per, err := seeds.Run(list, 2, func(seed uint64) (seeds.Output, error) {
		tr, err := workloadTrace(o.wl, seed)
		if err != nil {
			return seeds.Output{}, err
		}
		results, err := sim.Trace(tr, entries, s)
		if err != nil {
			return seeds.Output{}, err
		}
		l := sim.Labels{Trace: label, QHat: o.qhat, Threshold: o.threshold, Baseline: o.baseline}
		if len(list) == 1 {
			l.Trace = traceLabel(o)
		}
		doc, tables, err := sim.Report(results, s, l)
		return seeds.Output{Doc: doc, Tables: tables}, err
	})
	if err != nil {
		return err
	}
	out, err := seeds.Summarize(list, per, o.format)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.format, out.Doc, out.Tables...)
}

// simulateSweep replays the trace (or the embedded workload, per seed of
// --seeds) once per capacity of caps and prints sim.SweepReport; --plot
// draws each metric against capacity.
func simulateSweep(o simOptions, entries []policies.Entry, s sim.Settings, caps []int64, stdout io.Writer) error {
	if o.emit != "" || len(s.Schedules) > 0 {
		return fmt.Errorf("flag --capacities: not with --emit-schedule or --schedule (a schedule belongs to one capacity)")
	}
	s.Progress = nil
	list := []uint64{o.seed}
	if o.seeds != "" {
		var err error
		if list, err = seeds.Parse(o.seeds, o.seed); err != nil {
			return err
		}
		if o.tracePath != "" {
			return fmt.Errorf("flag --seeds: for the embedded workload only (a --trace file has no seed)")
		}
		if o.plot != "" && len(list) > 1 {
			return fmt.Errorf("flag --seeds: not with --plot (one figure per seed; run the seed you want to draw)")
		}
	}
	workers := 2
	if len(list) > 1 {
		workers = 1
	}
	label := traceLabel(o)
	if len(list) > 1 {
		label = o.workload.label()
	}
	var sweeps []sim.Sweep
	per, err := seeds.Run(list, 2, func(seed uint64) (seeds.Output, error) {
		var tr *trace.Trace
		var err error
		if o.tracePath != "" {
			tr, err = trace.ReadFile(o.tracePath)
		} else {
			tr, err = workloadTrace(o.wl, seed)
		}
		if err != nil {
			return seeds.Output{}, err
		}
		sw, err := sim.CapacitySweep(tr, entries, s, caps, workers)
		if err != nil {
			return seeds.Output{}, err
		}
		if len(list) == 1 {
			sweeps = append(sweeps, sw)
		}
		doc, tables, err := sim.SweepReport(sw, s, sim.Labels{Trace: label, QHat: o.qhat, Threshold: o.threshold, Baseline: o.baseline})
		return seeds.Output{Doc: doc, Tables: tables}, err
	})
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := sim.SaveSweepPlots(o.plot, sweeps[0], label); err != nil {
			return err
		}
	}
	out, err := seeds.Summarize(list, per, o.format)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.format, out.Doc, out.Tables...)
}
