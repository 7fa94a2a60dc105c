package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
)

// blockLevel reports whether args ask for --level block (the block-level
// commands have their own flag sets).
func blockLevel(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--level=block" || a == "--level" && i+1 < len(args) && args[i+1] == "block" {
			return true
		}
	}
	return false
}

// hasFlag reports whether args give --name (as --name or --name=…).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}

// blockTailFlags binds the flags shared by 'solve --level block' and 'gap
// --level block --objective' to c.
func blockTailFlags(fs *pflag.FlagSet, c *blocktail.Command, lat *latency.Settings, slo *objective.SLOSettings) {
	fs.String("level", "block", "block: prefix cache over block-hash traces")
	fs.StringVar(&c.Trace, "trace", "", "block-level trace (- for stdin)")
	fs.StringVar(&c.TraceFormat, "trace-format", "canonical", "trace format, canonical|mooncake|bailian|blocks")
	fs.Int64Var(&c.Block, "block-size", 16, "block size B, tokens (canonical traces; other formats carry their own)")
	fs.StringVar(&c.Objective, "objective", "tel", "tail metric minimised: tel (Σ max(b − ξ, 0), tokens), slo (requests with b > SLO) or pQ (the Q-th nearest-rank percentile of b, tokens, e.g. p90)")
	addLatency(fs, lat)
	*slo = objective.DefaultSLOSettings()
	fs.Float64Var(&slo.SLOMs, "slo-ms", slo.SLOMs, "SLO on TTFT, ms ≥ 0 (objective slo; converted with α, β)")
	fs.Float64Var(&slo.SLOTokens, "slo-tokens", slo.SLOTokens, "SLO on uncached tokens, tokens ≥ 0 (instead of --slo-ms; not both)")
	fs.StringVar(&c.LPSolver, "lp-solver", "auto", "lower bound solver: clp or gonum (LP relaxation), lagrangian (min-cost flows, no LP solver), auto (clp with -tags coin, else lagrangian) or none")
	fs.StringVar(&c.IPSolver, "ip-solver", "none", "integer program (exact) solver, auto|cbc|gonum|none")
	fs.Float64Var(&c.TimeLimit, "time-limit", 0, "time limit per LP or IP solve, seconds (0: none; else 0.001 to 10^6)")
}

// resolveBlockTail reads the latency and SLO settings into c.
func resolveBlockTail(fs *pflag.FlagSet, c *blocktail.Command, lat latency.Settings, slo objective.SLOSettings) error {
	var err error
	c.BlockGiven = fs.Changed("block-size")
	if c.Model, c.XiTokens, err = lat.Resolve(fs.Changed); err != nil {
		return err
	}
	c.SLOTokens, err = slo.Resolve(c.Model, fs.Changed)
	return err
}

// runSolveBlock is 'solve --level block': the interval on the hindsight TEL
// or SLO optimum of a prefix cache (experiments/blocktail, lp/prefixtail).
func runSolveBlock(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("solve", "solve --level block --trace FILE --trace-format FMT --capacity TOKENS --objective tel|slo|pQ [flags]", stdout)
	var c blocktail.Command
	var lat latency.Settings
	var slo objective.SLOSettings
	blockTailFlags(fs, &c, &lat, &slo)
	fs.StringVar(&c.Capacities, "capacity", "", "cache capacity C, tokens, a multiple of the block size")
	fs.IntVar(&c.Windows, "windows", 0, "bound the optimum by an interval from N windows of consecutive requests, each bounded separately (tel or slo; 0: the whole trace); the trace, a file or - for standard input, is read once and held compactly (about 14 bytes per block reference (15 with seams) and 16 per request), not as requests")
	fs.IntVar(&c.SeamRequests, "seam-requests", 0, "with --windows: half-width, requests, of the seam re-solved at each boundary between windows for the upper bound's guide (0: none)")
	fs.IntVar(&c.LowerOverlapRequests, "lower-overlap-requests", 0, "with --windows: how far back, requests, each window's relaxation reaches into the window before for the lower bound, their costs shared between the two by weights (at most a window; 0: not)")
	overlapWeights := fs.String("lower-overlap-weights", "ramp", "with --lower-overlap-requests: how each request of the overlap is shared between the two windows: ramp (its weight in the later window rising towards it) or half (1/2 in each); both keep the bound certified, which is tighter depends on the trace (docs/windows.md)")
	fs.IntVar(&c.ReplayLookaheadRequests, "replay-lookahead-requests", 0, "with --windows in one process: the stitched replay that gives the upper bound knows next uses only up to this many requests past each window's end (a block with none known ranks as never used again), and a file is counted by its lines, then read once, request by request, holding the windows it needs, not the trace's references (still, for the histories, 8 bytes per distinct block and 12 per request, unless --relaxation-history carried); the upper bound stays certified but may be higher (docs/windows.md); standard input is held whole; 0: the whole trace's next uses, the trace held compactly")
	relaxHistory := fs.String("relaxation-history", "last-uses", "with --windows in one process: what each window's relaxation carries in from before it: last-uses (the last use before the window of every block it references, the requests whole) or carried (one request per leaf of the blocks it references that were used before it, built from the window's own chains); the relaxations' optima are the same and both lower bounds are certified, the Lagrangian's may differ (docs/windows.md); with --replay-lookahead-requests, carried holds nothing per block or request of the whole trace but the reader's interner")
	blockIDs := fs.String("block-ids", "interned", "with --replay-lookahead-requests and --relaxation-history carried, a file of the mooncake, bailian or blocks format: interned (an interner numbers each block by its parent and hash, a table of 8 bytes per distinct block) or trace (the trace's hash ids are the block ids, nothing held per block but a bit: assumes a hash id names one prefix, always after the same parent, checked while its last use is held; ids must increase along a chain)")
	fs.Float64Var(&c.TargetWidth, "target-width", 0, "with --windows in one process: the relative interval width wanted (fraction, e.g. 0.01); the window count is halved until it is met or one window (the whole trace's interval) is left, and the counts tried are listed (0: one count)")
	fs.IntVar(&c.JoinRequests, "join-requests", 0, "with --shard or --slurm: half-width, requests, of the join between two shards' runs, so that a run starts from a warm cache (at most half a window; 0: none, each run starts from an empty cache)")
	fs.StringVar(&c.Shard, "shard", "", "with --windows: bound only shard i/n (the i-th of n runs of consecutive windows, its stitched schedule replayed from an empty cache at its start, or joined to the run before with --join-requests) and write its result file for merge; a file is counted by its non-blank lines (one request each), then parsed once up to the run's end, the last shard checking the count; standard input is read whole")
	fs.StringVar(&c.Out, "out", "", "with --shard: the shard's result file (default standard output); with --slurm: where the merge job writes the merged output")
	fs.IntVar(&c.Slurm, "slurm", 0, "with --windows: print a Slurm array script bounding the windows in N shards, and a merge job that runs only if every shard succeeds")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if err := resolveBlockTail(fs, &c, lat, slo); err != nil {
		return err
	}
	if c.LowerOverlapWeights, err = prefixtail.ParseOverlapWeighting(*overlapWeights); err != nil {
		return option.Wrap("lower-overlap-weights", err)
	}
	switch *relaxHistory {
	case "last-uses":
	case "carried":
		c.CarriedHistory = true
	default:
		return option.Errorf("relaxation-history", "want last-uses or carried, got %q", *relaxHistory)
	}
	switch *blockIDs {
	case "interned":
	case "trace":
		c.TraceBlockIDs = true
	default:
		return option.Errorf("block-ids", "want interned or trace, got %q", *blockIDs)
	}
	c.Format, c.Policies, c.Progress = format, "none", progressFunc(stderr)
	if c.Shard != "" || c.Slurm != 0 {
		c.Given = givenFlags(fs)
		return windows.RunBlock(ctx, stdout, c)
	}
	doc, tables, err := c.Solve(ctx)
	if err != nil || doc == nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}

// runGapBlockTail is 'gap --level block --objective tel|slo|pQ': every block
// policy's TEL and violations beside the interval on the optimum, per
// capacity.
func runGapBlockTail(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gap", "gap --level block --objective tel|slo|pQ --trace FILE --trace-format FMT --capacities C1,C2 [flags]", stdout)
	var c blocktail.Command
	var lat latency.Settings
	var slo objective.SLOSettings
	blockTailFlags(fs, &c, &lat, &slo)
	fs.StringVar(&c.Capacities, "capacities", "", "capacities C, tokens, comma-separated (multiples of the block size)")
	fs.StringVar(&c.Policies, "policies", "", "comma-separated block policies (default: every registered one; none: bounds only)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if err := resolveBlockTail(fs, &c, lat, slo); err != nil {
		return err
	}
	c.Format, c.Progress = format, progressFunc(stderr)
	doc, tables, err := c.Gap(ctx)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}
