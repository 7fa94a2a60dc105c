package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// runGap measures every policy's TEL against the hindsight optimum over a
// sweep of capacities and thresholds.
func runGap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gap", "gap --trace FILE --policies lru,tlru,... --capacities C1,C2 --xis X1,X2 [--thresholds T1,T2] [flags]", stdout)
	tracePath := fs.String("trace", "", "canonical trace (JSON Lines; - for stdin)")
	pols := fs.String("policies", "", "comma-separated policies (default: all of "+joinNames(policies.Names())+")")
	caps := fs.String("capacities", "", "capacities C, tokens, comma-separated (multiples of --block-size)")
	xis := fs.String("xis", "", "TEL thresholds ξ, tokens, comma-separated")
	thresholds := fs.String("thresholds", "", "threshold-lru's T values, tokens, comma-separated (default: its default T)")
	block := fs.Int64("block-size", 16, "block size B, tokens")
	forced := fs.Bool("forced", false, "forced caching: the served conversation keeps its whole history")
	alpha := fs.Float64("alpha-ms", latency.DefaultAlphaMs, "α: prefill time per uncached token, ms/token (converts TEL tokens to ms)")
	qhat := fs.String("qhat", "auto", "T-LRU's next-prompt estimate Q̂: auto (running mean of prompts seen) or tokens")
	solver := fs.String("solver", solvers.Flow, "solver of the optimum (compact formulation): "+solvers.Help(solvers.IP))
	limit := fs.Float64("time-limit", 0, "time limit per optimum, seconds (0: none)")
	workers := fs.Int("workers", 2, "sweep points solved at once (≥ 1)")
	format := fs.String("format", "table", report.FormatHelp)
	level := fs.String("level", "turn", "turn (conversation cache, TEL optimum) or block (prefix cache over block-hash traces, optimum of block hits)")
	traceFmt := fs.String("trace-format", "canonical", "block level: trace format, canonical|mooncake|bailian|blocks")
	lpSolver := fs.String("lp-solver", "auto", "block level: LP relaxation solver, auto|clp|gonum|none")
	ipSolver := fs.String("ip-solver", "none", "block level: integer program solver, auto|cbc|gonum|none")
	scheds := fs.StringArray("schedule", nil, "also measure this external schedule (JSON Lines; repeatable); only the schedules run unless --policies is given")
	execLimit := fs.Float64("exec-timeout", 10, "exec:CMD policies: seconds to wait for one answer before killing the process")
	seed := fs.Uint64("seed", 1, "with --trace omitted: seed of the embedded birth–death workload")
	seedList := fs.String("seeds", "", "with --trace omitted: N seeds (--seed, --seed+1, …) or a range A-B of the embedded workload, --workers at a time; each cell's mean ± 95% Student-t interval")
	var wf workloadFlags
	wf.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	wl, customWL, err := wf.params(fs, *tracePath)
	if err != nil {
		return err
	}
	if customWL && *level != "turn" {
		return fmt.Errorf("flags %s: turn level only (the embedded workload)", strings.Join(wf.changed, " "))
	}
	embedded := *tracePath == "" && (fs.Changed("seed") || fs.Changed("seeds") || customWL)
	if *level != "turn" && (fs.Changed("seed") || fs.Changed("seeds")) {
		return fmt.Errorf("flags --seed/--seeds: turn level only (the embedded birth–death workload)")
	}
	if *tracePath != "" && fs.Changed("seeds") {
		return fmt.Errorf("flag --seeds: for the embedded workload only (omit --trace; a trace file has no seed)")
	}
	switch *level {
	case "block":
		var xl []float64
		if *xis != "" {
			var err error
			if xl, err = option.Floats("xis", *xis); err != nil {
				return err
			}
		}
		return gapBlock(gapBlockArgs{trace: *tracePath, format: *format, traceFormat: *traceFmt, policies: *pols,
			capacities: *caps, lpSolver: *lpSolver, ipSolver: *ipSolver, xis: xl, alphaMs: *alpha, limit: *limit, block: *block,
			changed: fs.Changed}, stdout, stderr)
	case "turn":
		for _, name := range []string{"trace-format", "lp-solver", "ip-solver"} {
			if fs.Changed(name) {
				return fmt.Errorf("flag --%s: block level only (--level block)", name)
			}
		}
	default:
		return fmt.Errorf("flag --level: want turn or block, got %q", *level)
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if *tracePath == "" && !embedded {
		return fmt.Errorf("flag --trace: required (a canonical trace file, or - for stdin; or --seed/--seeds for the embedded birth–death workload)")
	}
	if *caps == "" || *xis == "" {
		return fmt.Errorf("flags --capacities and --xis: both required (comma-separated tokens)")
	}
	capacities, err := option.Ints("capacities", *caps)
	if err != nil {
		return err
	}
	if err := checkCapacity(0, *block); err != nil {
		return err
	}
	for _, c := range capacities {
		if c < 0 || c%*block != 0 {
			return fmt.Errorf("flag --capacities: %d tokens must be ≥ 0 and a multiple of --block-size %d", c, *block)
		}
	}
	xiList, err := option.Floats("xis", *xis)
	if err != nil {
		return err
	}
	var thr []int64
	if *thresholds != "" {
		if thr, err = option.Ints("thresholds", *thresholds); err != nil {
			return err
		}
	}
	if *pols == "" && len(*scheds) == 0 {
		*pols = joinNames(policies.Names())
	}
	if !(*execLimit > 0) {
		return fmt.Errorf("flag --exec-timeout: must be > 0 seconds, got %v", *execLimit)
	}
	var entries []policies.Entry
	if *pols != "" {
		if entries, err = policies.ParseWith(*pols, execpolicy.Options{Timeout: seconds(*execLimit)}); err != nil {
			return fmt.Errorf("flag --policies: %w", err)
		}
	}
	schedules, err := schedule.ReadFiles(*scheds)
	if err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	if len(thr) > 0 && !strings.Contains(","+*pols+",", ",threshold-lru,") {
		return fmt.Errorf("flag --thresholds: threshold-lru is not among --policies")
	}
	q, err := parseQHat(*qhat)
	if err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("flag --workers: must be ≥ 1, got %d", *workers)
	}
	if *limit < 0 {
		return fmt.Errorf("flag --time-limit: must be ≥ 0 seconds, got %v", *limit)
	}
	model := latency.Default()
	model.AlphaMs = *alpha
	if err := model.Validate(); err != nil {
		return fmt.Errorf("flag --alpha-ms: %w", err)
	}
	cfg := gap.Config{Block: *block, Forced: *forced, Capacities: capacities,
		Xis: xiList, Thresholds: thr, Policies: entries, Schedules: schedules, Solver: *solver, QHat: q, Model: model,
		TimeLimit: time.Duration(*limit * float64(time.Second)), Workers: *workers, Progress: progressTo(stderr)}
	settings := map[string]any{"trace": *tracePath, "block_size_tokens": *block, "forced": *forced,
		"alpha_ms_per_token": model.AlphaMs, "solver": *solver, "qhat": *qhat}
	if embedded {
		list := []uint64{*seed}
		if *seedList != "" {
			if list, err = seeds.Parse(*seedList, *seed); err != nil {
				return err
			}
		}
		return gapSeeds(ctx, cfg, settings, wl, wf.label(), list, *format, stdout)
	}
	tr, err := trace.ReadFile(*tracePath)
	if err != nil {
		return err
	}
	out, err := gapOutput(ctx, tr, cfg, *tracePath, settings)
	if err != nil {
		return err
	}
	return report.Emit(stdout, *format, out.Doc, out.Tables...)
}

// gapOutput measures the gap sweep of cfg on tr, labelled label.
func gapOutput(ctx context.Context, tr *trace.Trace, cfg gap.Config, label string, settings map[string]any) (seeds.Output, error) {
	rows, err := gap.Run(ctx, tr, cfg)
	if err != nil {
		return seeds.Output{}, err
	}
	t := gap.SweepTable(label, cfg.Block, cfg.Forced, rows)
	doc := map[string]any{
		"units":    "TEL in tokens and ms; rel_gap = (TEL − TEL_opt)/TEL_opt, null when TEL_opt = 0 (opt_zero: \"both zero\" or \"infinite\")",
		"settings": settings,
		"rows":     rows,
	}
	return seeds.Output{Doc: doc, Tables: []report.Table{t}}, nil
}

// gapSeeds measures the gap sweep on the embedded workload of each seed of
// list (cfg.Workers seeds at a time, one sweep point each at a time) and
// prints the summary of experiments/seeds.
func gapSeeds(ctx context.Context, cfg gap.Config, settings map[string]any, wl birthdeath.Params, wlLabel string, list []uint64, format string, stdout io.Writer) error {
	workers := cfg.Workers
	if len(list) > 1 {
		cfg.Workers, cfg.Progress = 1, nil
	}
	per, err := seeds.Run(list, workers, func(seed uint64) (seeds.Output, error) {
		tr, err := workloadTrace(wl, seed)
		if err != nil {
			return seeds.Output{}, err
		}
		label := wlLabel
		if len(list) == 1 {
			label = fmt.Sprintf("%s (seed %d)", wlLabel, seed)
		}
		st := map[string]any{}
		for k, v := range settings {
			st[k] = v
		}
		st["trace"] = label
		return gapOutput(ctx, tr, cfg, label, st)
	})
	if err != nil {
		return err
	}
	out, err := seeds.Summarize(list, per, format)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, out.Doc, out.Tables...)
}
