package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
)

// runGap measures every policy's TEL against the hindsight optimum over a
// sweep of capacities and thresholds (experiments/gap, and
// experiments/blockgap at the block level).
func runGap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if blockLevel(args) && hasFlag(args, "objective") {
		return runGapBlockTail(ctx, args, stdout, stderr)
	}
	fs := newFlags("gap", "gap [--trace FILE] [--policies lru,tlru,...] --capacities C1,C2 --xis X1,X2 [--thresholds T1,T2] [flags]", stdout)
	var c gap.Command
	fs.StringVar(&c.Trace, "trace", "", "canonical trace (JSON Lines; - for stdin); omitted: the embedded seeded birth–death workload")
	fs.StringVar(&c.Policies, "policies", "", "comma-separated policies (default: all of "+joinNames(policies.Names())+")")
	fs.StringVar(&c.Capacities, "capacities", "", fmt.Sprintf("capacities C, tokens, comma-separated (multiples of --block-size; default %d with the embedded workload)", defaultWorkloadCapacity))
	fs.StringVar(&c.Xis, "xis", "", "TEL thresholds ξ, tokens, comma-separated (default 1900, simulate's, with the embedded workload)")
	fs.StringVar(&c.Thresholds, "thresholds", "", "threshold-lru's T values, tokens, comma-separated (default: its default T)")
	fs.Int64Var(&c.Block, "block-size", 16, "block size B, tokens")
	fs.BoolVar(&c.Forced, "forced", false, "forced caching: the served conversation keeps its whole history")
	fs.Float64Var(&c.AlphaMs, "alpha-ms", latency.DefaultAlphaMs, "α: prefill time per uncached token, ms/token (converts TEL tokens to ms)")
	fs.StringVar(&c.QHat, "qhat", "auto", "T-LRU's next-prompt estimate Q̂: auto (running mean of prompts seen) or tokens")
	fs.StringVar(&c.Solver, "solver", solvers.Flow, "solver of the optimum (compact formulation): "+solvers.Help(solvers.IP))
	fs.Float64Var(&c.TimeLimit, "time-limit", 0, "time limit per optimum, seconds (0: none; else 0.001 to 10^6)")
	fs.StringVar(&c.WarmStart, "warm-start", "auto", "optimum at every capacity of a ξ as one curve, each capacity within 1.5× of its smaller neighbour warm-started from it (solver flow, TEL, turn level; same optima): auto (when some capacity would be), on, off (each solved separately)")
	fs.IntVar(&c.Workers, "workers", 2, "sweep points solved at once (≥ 1)")
	fs.StringVar(&c.Format, "format", "table", report.FormatHelp)
	fs.StringVar(&c.Level, "level", "turn", "turn (conversation cache, TEL optimum) or block (prefix cache over block-hash traces, optimum of block hits)")
	fs.StringVar(&c.TraceFormat, "trace-format", "canonical", "block level: trace format, canonical|mooncake|bailian|blocks")
	fs.StringVar(&c.LPSolver, "lp-solver", "auto", "block level: lower bound solver, clp|gonum (LP relaxation), lagrangian (min-cost flows), auto (clp with -tags coin, else lagrangian) or none")
	fs.StringVar(&c.IPSolver, "ip-solver", "none", "block level: integer program solver, auto|cbc|gonum|none")
	fs.StringArrayVar(&c.Schedules, "schedule", nil, "also measure this external schedule (JSON Lines; repeatable); only the schedules run unless --policies is given")
	fs.Float64Var(&c.ExecTimeout, "exec-timeout", 10, "exec:CMD policies: seconds to wait for one answer before killing the process")
	fs.Uint64Var(&c.Seed, "seed", 1, "with --trace omitted: seed of the embedded birth–death workload")
	fs.StringVar(&c.Seeds, "seeds", "", "with --trace omitted: N seeds (--seed, --seed+1, …) or a range A-B of the embedded workload, --workers at a time; each cell's mean ± 95% Student-t interval")
	fs.StringVar(&c.Objective, "objective", "tel", "what the policies are measured on: tel (gap to the TEL optimum), slo (SLO violations, turns) or pQ (Q-th percentile of uncached tokens, e.g. p90), each against the hindsight interval")
	c.SLO = objective.DefaultSLOSettings()
	fs.Float64Var(&c.SLO.SLOMs, "slo-ms", c.SLO.SLOMs, "with --objective slo: the SLO on TTFT, ms ≥ 0 (converted to uncached tokens by the latency model)")
	fs.Float64Var(&c.SLO.SLOTokens, "slo-tokens", 0, "with --objective slo: the SLO on uncached tokens, tokens ≥ 0 (instead of --slo-ms; not both)")
	fs.IntVar(&c.Windows, "windows", 0, "bound the optimum by the certified interval of N windows of steps (as solve --windows, seams ±5000 steps, and for TEL a lower overlap of 5000 steps) instead of solving it; each policy's gap is then an interval (turn level; slo and pQ: optional caching)")
	fs.IntVar(&c.MaxProbes, "max-probes", 0, "with --windows and --objective pQ: at most this many thresholds probed, each a pass over the trace (0: until the interval closes); fewer leave a wider interval, still certified")
	sloUpper := fs.String("slo-upper", "full", sloUpperHelp)
	fs.IntVar(&c.SLOLNSWindows, "slo-lns-windows", 0, sloLNSWindowsHelp)
	fs.IntVar(&c.SLOLowerOverlap, "lower-overlap", 0, "with --windows and --objective slo or pQ: how far back each window's relaxation reaches into the window before for the lower bound, steps, each turn's violation shared between the two windows by weights (0: not; TEL's is 5000 steps, fixed)")
	var wf workloadFlags
	wf.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if c.Workload, _, err = wf.params(fs, c.Trace); err != nil {
		return err
	}
	if c.SLOUpper, err = window.ParseSLOUpper(*sloUpper); err != nil {
		return option.Wrap("slo-upper", err)
	}
	c.WorkloadFlags, c.Given, c.Progress = wf.changed, fs.Changed, progressFunc(stderr)
	doc, tables, err := c.Run(ctx)
	if err != nil {
		return err
	}
	return report.Emit(stdout, c.Format, doc, tables...)
}
