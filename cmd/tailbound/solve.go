package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
)

// runSolve computes the hindsight TEL optimum of a trace (experiments/gap).
func runSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if blockLevel(args) {
		return runSolveBlock(ctx, args, stdout, stderr)
	}
	fs := newFlags("solve", "solve [--trace FILE] --capacity TOKENS --block-size B (--xi-tokens X | --xi-ms X) [flags]", stdout)
	var c gap.SolveCommand
	fs.StringVar(&c.Trace, "trace", "", "canonical trace (JSON Lines; - for stdin); omitted: the embedded seeded birth–death workload")
	fs.Uint64Var(&c.Seed, "seed", 1, "with --trace omitted: seed of the embedded birth–death workload")
	fs.Int64Var(&c.Capacity, "capacity", 0, fmt.Sprintf("cache capacity C, tokens, a multiple of --block-size (default %d with the embedded workload)", defaultWorkloadCapacity))
	fs.Int64Var(&c.Block, "block-size", 16, "block size B, tokens")
	var lat latency.Settings
	addLatency(fs, &lat)
	fs.StringVar(&c.Formulation, "formulation", string(lp.Compact), "compact|paper|paper-as-written")
	fs.StringVar(&c.Solver, "solver", solvers.Auto, "solver: "+solvers.Help(solvers.IP|solvers.LP))
	fs.BoolVar(&c.Relax, "relax", false, "solve only the LP relaxation")
	fs.BoolVar(&c.Forced, "forced", false, "forced caching: the served conversation keeps its whole history")
	fs.Float64Var(&c.TimeLimit, "time-limit", 0, "time limit per solve, seconds (0: none)")
	fs.BoolVar(&c.CrossCheck, "cross-check", true, "also solve with flow and report any difference from the chosen solver")
	fs.StringVar(&c.Schedule, "schedule", "", "write the optimum's cache schedule (CSV, tokens per turn) to this file (with slo|pQ: the schedule attaining the upper bound)")
	fs.StringVar(&c.Objective, "objective", "tel", "what to minimise: tel (tail excess latency), slo (SLO violations, turns) or pQ (Q-th percentile of uncached tokens, Q in (0,100), e.g. p90, p99.9)")
	c.SLO = objective.DefaultSLOSettings()
	fs.Float64Var(&c.SLO.SLOMs, "slo-ms", c.SLO.SLOMs, "with --objective slo: the SLO on TTFT, ms (converted to uncached tokens by the latency model)")
	fs.Float64Var(&c.SLO.SLOTokens, "slo-tokens", 0, "with --objective slo: the SLO on uncached tokens, tokens (instead of --slo-ms)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	c.CapacityGiven = fs.Changed("capacity")
	c.Given, c.Progress = fs.Changed, progressFunc(stderr)
	if c.Model, c.Xi, err = lat.Resolve(fs.Changed); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(solveGCPercent))
	}
	doc, tables, err := c.Run(ctx)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}

// solveGCPercent is the garbage collector's target (GOGC) while the solve command works,
// unless GOGC is set in the environment. Solve's memory is a few large
// arrays built one after another (trace and instance, the network, the
// windows' cost scaling, the residual graph of the primal–dual stage), and
// at the default GOGC = 100 the heap grows to twice what is live before a
// collection: at 10^6 turns (birth–death, B = 16, C = 131072 tokens, flow)
// the peak RSS was 774 MB at GOGC = 100 and 571 MB at 25, in 94 s against
// 111 s of wall time (57 s and 61 s of CPU) in one run on a loaded machine.
const solveGCPercent = 25
