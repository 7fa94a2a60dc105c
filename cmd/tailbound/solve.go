package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/lp/window"
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
	level := fs.String("level", "turn", "turn (conversation cache, TEL or tail optimum) or block (prefix cache over block-hash traces; see solve --level block --help)")
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
	fs.Float64Var(&c.TimeLimit, "time-limit", 0, "time limit per solve, seconds (0: none; else 0.001 to 10^6)")
	fs.BoolVar(&c.CrossCheck, "cross-check", true, "also solve with flow and report any difference from the chosen solver")
	fs.StringVar(&c.Schedule, "schedule", "", "write the optimum's cache schedule (CSV, tokens per turn) to this file (with slo|pQ: the schedule attaining the upper bound)")
	fs.StringVar(&c.Objective, "objective", "tel", "what to minimise: tel (tail excess latency), slo (SLO violations, turns) or pQ (Q-th percentile of uncached tokens, Q in (0,100), e.g. p90, p99.9)")
	c.SLO = objective.DefaultSLOSettings()
	fs.Float64Var(&c.SLO.SLOMs, "slo-ms", c.SLO.SLOMs, "with --objective slo: the SLO on TTFT, ms ≥ 0 (converted to uncached tokens by the latency model)")
	fs.Float64Var(&c.SLO.SLOTokens, "slo-tokens", 0, "with --objective slo: the SLO on uncached tokens, tokens ≥ 0 (instead of --slo-ms; not both)")
	var w windows.Command
	var winList string
	fs.StringVar(&winList, "windows", "", "bound TEL_opt by an interval from N windows of steps solved separately, the trace streamed a window at a time; a list N1,N2,… gives the interval at each")
	fs.StringVar(&w.Plot, "plot", "", "with --windows N1,N2,…: draw the interval's width against the window size to this .svg/.png file")
	fs.IntVar(&w.WindowTurns, "window-turns", 0, "with windows: their size, steps (instead of --windows; needed with --trace -)")
	fs.Float64Var(&w.TargetWidth, "target-width", 0, "with --windows in one process (tel, slo, or pQ searched): the relative interval width wanted (fraction, e.g. 0.001); the window size is doubled until it is met or one window is left, each size a pass over the trace (a file, not standard input)")
	fs.IntVar(&w.SeamTurns, "seam-turns", 5000, "with --windows: half-width of the seam re-solved between two windows for the upper bound, steps (0: none)")
	fs.IntVar(&w.LowerOverlap, "lower-overlap", 5000, "with --windows: how far back each window's relaxation reaches into the window before for the lower bound, steps, each turn of the overlap shared between the two windows by weights (0: not; with --objective slo or pQ the default is 0)")
	fs.BoolVar(&w.PerWindow, "per-window", false, "with --windows: report each window's bounds (with --objective pQ: each threshold probed)")
	sloUpper := fs.String("slo-upper", "full", sloUpperHelp)
	fs.IntVar(&w.LNSWindows, "slo-lns-windows", 0, sloLNSWindowsHelp)
	fs.IntVar(&w.MaxProbes, "max-probes", 0, "with --windows and --objective pQ: at most this many thresholds probed, each a pass over the trace (0: until the interval closes); fewer leave a wider interval, still certified")
	var taus string
	fs.StringVar(&taus, "taus", "", "with --windows and --objective pQ: probe exactly these thresholds, tokens, comma-separated ascending, instead of searching; each a pass over the trace; needed with --shard and --slurm")
	fs.IntVar(&w.Rounds, "rounds", 0, "with --windows and --objective pQ: search τ in rounds of this many thresholds, each a pass over the trace; in one process, as shards with --round-dir, or as a chain of Slurm jobs with --slurm")
	fs.StringVar(&w.RoundDir, "round-dir", "", "with --rounds: folder of the search's state (state.json) and each round's shard files; without --shard start or advance the search (merge the round's shards, decide, plan the next), with --shard i/n solve the round's thresholds on shard i's windows")
	fs.StringVar(&w.Shard, "shard", "", "with --windows: solve only shard i/n of the windows (the i-th of n runs of consecutive windows, with --objective tel or slo) and write its result file for merge")
	fs.StringVar(&w.Out, "out", "", "with --shard: the shard's result file (default standard output); with --slurm: where the merge job writes the merged output")
	fs.IntVar(&w.Slurm, "slurm", 0, "with --windows: print a Slurm array script solving the windows in N shards, and a merge job that runs only if every shard succeeds")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if *level != "turn" { // "block" went to runSolveBlock
		return option.Errorf("level", "want turn or block, got %q", *level)
	}
	c.CapacityGiven = fs.Changed("capacity")
	c.Given, c.Progress = fs.Changed, progressFunc(stderr)
	if c.Model, c.Xi, err = lat.Resolve(fs.Changed); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(solveGCPercent))
	}
	if windowed(fs) {
		for _, f := range []string{"relax", "schedule", "solver", "formulation", "cross-check", "time-limit"} {
			if fs.Changed(f) {
				return fmt.Errorf("flag --%s: not with --windows (each window is solved by flow, or lp/slo for --objective slo)", f)
			}
		}
		switch c.Objective {
		case "tel":
			if fs.Changed("slo-ms") || fs.Changed("slo-tokens") {
				return fmt.Errorf("flag --slo-ms/--slo-tokens: for --objective slo only")
			}
			if fs.Changed("taus") {
				return fmt.Errorf("flag --taus: for --objective pQ only")
			}
		case "slo":
			if fs.Changed("taus") {
				return fmt.Errorf("flag --taus: for --objective pQ only")
			}
			sloOverlap(fs, &w)
			s, err := c.SLO.Resolve(c.Model, fs.Changed)
			if err != nil {
				return err
			}
			w.SLO = &s
		default:
			o, err := objective.Parse(c.Objective)
			if err != nil {
				return option.Wrap("objective", err)
			}
			if o.Kind != objective.Percentile {
				return fmt.Errorf("flag --objective: with --windows, tel, slo or pQ")
			}
			if fs.Changed("slo-ms") || fs.Changed("slo-tokens") {
				return fmt.Errorf("flag --slo-ms/--slo-tokens: not with --objective %s (its probes choose the thresholds)", c.Objective)
			}
			sloOverlap(fs, &w)
			w.Percentile = &o
			if fs.Changed("taus") {
				if w.Taus, err = option.Ints("taus", taus); err != nil {
					return err
				}
			}
		}
		if w.Upper, err = window.ParseSLOUpper(*sloUpper); err != nil {
			return option.Wrap("slo-upper", err)
		}
		if fs.Changed("windows") {
			ns, err := option.Ints("windows", winList)
			if err != nil {
				return err
			}
			for _, n := range ns {
				w.Curve = append(w.Curve, int(n))
			}
			if len(ns) == 1 {
				w.Windows, w.Curve = int(ns[0]), nil
			}
		}
		w.Trace, w.Seed, w.Capacity, w.CapacityGiven, w.Block = c.Trace, c.Seed, c.Capacity, c.CapacityGiven, c.Block
		w.Xi, w.Forced, w.Model, w.Given, w.Format, w.Progress = c.Xi, c.Forced, c.Model, givenFlags(fs), format, c.Progress
		doc, tables, err := w.Run(ctx, stdout)
		if err != nil || doc == nil {
			return err
		}
		return report.Emit(stdout, format, doc, tables...)
	}
	doc, tables, err := c.Run(ctx)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}

// sloOverlap sets the lower overlap of windowed SLO and pQ bounds: 0
// unless --lower-overlap is given (its default, 5,000 steps, is TEL's;
// SLO's weighted overlap is off by default, docs/windows.md).
func sloOverlap(fs *pflag.FlagSet, w *windows.Command) {
	if !fs.Changed("lower-overlap") {
		w.LowerOverlap = 0
	}
}

// windowed reports whether a flag of the windowed interval was given.
func windowed(fs *pflag.FlagSet) bool {
	for _, f := range []string{"windows", "window-turns", "target-width", "seam-turns", "lower-overlap", "per-window", "plot", "shard", "out", "slurm", "max-probes", "taus", "rounds", "round-dir", "slo-upper", "slo-lns-windows"} {
		if fs.Changed(f) {
			return true
		}
	}
	return false
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

// The help of the flags that choose how hard a windowed SLO or pQ bound
// searches each window's upper end, shared by solve and gap.
const (
	sloUpperHelp      = "with --windows and --objective slo or pQ: how hard each window's upper bound (its restriction and the seam after it) is searched: full (the LP's rounding, the greedy stages and the large-neighbourhood search), lp (the LP's rounding and the greedy stages, no search), greedy (the greedy stages from nothing, no LP); cheaper modes give a wider interval in less CPU time (docs/windows.md), the lower bound is the same in every mode"
	sloLNSWindowsHelp = "with --slo-upper full: the large-neighbourhood search's budget per upper-bound solve, neighbourhoods (of at most 24 pairs) solved (0: lp/slo's default, 4000)"
)
