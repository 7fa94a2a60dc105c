package gap

import (
	"context"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/blockgap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// Command is 'tailbound gap' as given on the command line: each field
// holds a flag's value in the flag's units. Run validates them, naming the
// flag (an *option.Error where one flag is at fault), and measures at the
// turn level (this package) or the block level (experiments/blockgap).
type Command struct {
	// Level is turn (conversation cache, TEL optimum) or block (prefix
	// cache, optimum of block hits) (--level).
	Level string
	// Trace is the trace file (--trace; - for stdin; "": the embedded
	// birth–death workload).
	Trace string
	// Format is the output format (--format), one of report.Formats.
	Format string
	// Policies are comma-separated policy names (--policies; "": every
	// registered one, unless Schedules are given).
	Policies string
	// Capacities (C, tokens), Xis (ξ, tokens) and Thresholds
	// (threshold-lru's T, tokens) are comma-separated lists (--capacities,
	// --xis, --thresholds; Thresholds "": T's default).
	Capacities, Xis, Thresholds string
	// Block is the block size B, tokens (--block-size).
	Block int64
	// Forced is forced caching: the served conversation keeps its whole
	// history (--forced).
	Forced bool
	// AlphaMs is α, the prefill time per uncached token, ms/token
	// (--alpha-ms).
	AlphaMs float64
	// QHat is T-LRU's Q̂: "auto" (running mean) or tokens (--qhat).
	QHat string
	// Solver computes the turn-level optimum (--solver): see Config.
	Solver string
	// TimeLimit bounds each optimum, seconds (--time-limit; 0: none).
	TimeLimit float64
	// WarmStart is --warm-start: auto (or empty: the optimum's capacity
	// curve warm-started, Config.WarmStart, whenever it can be and at
	// least one capacity would start from its neighbour,
	// lp.CurveWarmStarts), on (always; refused where it cannot be) or off
	// (every point solved separately).
	WarmStart string
	// Workers is the number of sweep points solved at once (--workers).
	Workers int
	// TraceFormat, LPSolver and IPSolver are the block level's
	// (--trace-format, --lp-solver, --ip-solver): see blockgap.Command.
	TraceFormat, LPSolver, IPSolver string
	// Schedules are external schedule files measured with the policies
	// (--schedule).
	Schedules []string
	// ExecTimeout is how long an exec:CMD policy may take to answer,
	// seconds (--exec-timeout).
	ExecTimeout float64
	// Seed and Seeds pick the embedded workload's seeds (--seed, --seeds:
	// N seeds from Seed, or a range A-B).
	Seed  uint64
	Seeds string
	// Workload is the embedded birth–death workload; WorkloadFlags are the
	// model flags given to change it, as "--name=value".
	Workload      birthdeath.Params
	WorkloadFlags []string
	// Given reports whether a flag (named without dashes) was on the
	// command line, as pflag.FlagSet.Changed; nil: none was.
	Given func(flag string) bool
	// Progress, when not nil, is told how far the command is.
	Progress progress.Func
	// Objective is tel (default, "": TEL gaps), slo or pQ (every policy
	// against the hindsight interval) (--objective); SLO is the slo
	// objective's SLO (--slo-ms, --slo-tokens).
	Objective string
	SLO       objective.SLOSettings
	// Windows, when > 0, bounds the optimum by the windowed interval in
	// that many windows instead of solving it (--windows; turn level, one
	// trace or seed; slo and pQ under optional caching only).
	Windows int
	// MaxProbes bounds the thresholds the windowed percentile's search
	// tries (--max-probes; --windows with --objective pQ only; 0: until
	// the interval closes).
	MaxProbes int
	// SLOUpper and SLOLNSWindows are how hard each window's upper end is
	// searched (--slo-upper, --slo-lns-windows; --windows with --objective
	// slo or pQ only): window.SLOOptions.Upper and the search's budget per
	// solve with full, neighbourhoods (0: lp/slo's default).
	SLOUpper      window.SLOUpper
	SLOLNSWindows int
	// SLOLowerOverlap is how far back each window's relaxation reaches
	// into the window before, steps (--lower-overlap; --windows with
	// --objective slo or pQ only; 0: not; TEL's is WindowSeamTurns).
	SLOLowerOverlap int
}

// given reports whether flag was on the command line.
func (c Command) given(flag string) bool { return c.Given != nil && c.Given(flag) }

// Run validates c and measures: it returns the JSON document and the
// tables the command prints.
func (c Command) Run(ctx context.Context) (any, []report.Table, error) {
	if err := c.checkLevel(); err != nil {
		return nil, nil, err
	}
	obj := objective.Objective{}
	if c.Objective != "" {
		var err error
		if obj, err = objective.Parse(c.Objective); err != nil {
			return nil, nil, option.Wrap("objective", err)
		}
	}
	if c.Windows != 0 {
		switch {
		case c.Windows < 0:
			return nil, nil, option.Errorf("windows", "must be ≥ 1, got %d", c.Windows)
		case c.Level == "block":
			return nil, nil, option.Errorf("windows", "turn level only (--level turn)")
		case obj.Kind != objective.TEL && c.Forced:
			return nil, nil, option.Errorf("forced", "windowed %s bounds are for optional caching only", obj)
		}
		if err := c.refuse([]string{"solver", "warm-start", "time-limit"}, "not with --windows (the windows are solved by flow)"); err != nil {
			return nil, nil, err
		}
	}
	if c.given("max-probes") && (c.Windows == 0 || obj.Kind != objective.Percentile) {
		return nil, nil, option.Errorf("max-probes", "with --windows and --objective pQ only")
	}
	for _, f := range []string{"slo-upper", "slo-lns-windows", "lower-overlap"} {
		if c.given(f) && (c.Windows == 0 || obj.Kind == objective.TEL) {
			return nil, nil, option.Errorf(f, "with --windows and --objective slo or pQ only")
		}
	}
	if c.SLOLowerOverlap < 0 {
		return nil, nil, option.Errorf("lower-overlap", "must be ≥ 0 steps, got %d", c.SLOLowerOverlap)
	}
	if c.SLOLNSWindows < 0 {
		return nil, nil, option.Errorf("slo-lns-windows", "must be ≥ 0, got %d", c.SLOLNSWindows)
	}
	if c.SLOLNSWindows > 0 && c.SLOUpper != window.UpperFull {
		return nil, nil, option.Errorf("slo-lns-windows", "with --slo-upper full only")
	}
	if c.MaxProbes < 0 {
		return nil, nil, option.Errorf("max-probes", "must be ≥ 0, got %d", c.MaxProbes)
	}
	if c.WarmStart == "on" && (obj.Kind != objective.TEL || c.Level == "block") {
		return nil, nil, option.Errorf("warm-start", "for the turn level's TEL optimum only (--objective tel, --level turn)")
	}
	if obj.Kind != objective.TEL {
		if c.Level == "block" {
			return nil, nil, option.Errorf("objective", "%s: turn level only here", obj)
		}
		return c.tail(ctx, obj)
	}
	if c.given("slo-ms") || c.given("slo-tokens") {
		return nil, nil, option.Errorf(c.sloFlag(), "for --objective slo only")
	}
	if c.Level == "block" {
		return c.block(ctx)
	}
	cfg, list, err := c.turn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out seeds.Output
	if list != nil {
		out, err = c.seeds(ctx, cfg, list)
	} else {
		out, err = c.file(ctx, cfg)
	}
	return out.Doc, out.Tables, err
}

// checkLevel refuses flags that do not belong to c.Level, and a level that
// is neither turn nor block.
func (c Command) checkLevel() error {
	if len(c.WorkloadFlags) > 0 && c.Level != "turn" {
		return fmt.Errorf("flags %s: turn level only (the embedded workload)", strings.Join(c.WorkloadFlags, " "))
	}
	if c.Level != "turn" && (c.given("seed") || c.given("seeds")) {
		return fmt.Errorf("flags --seed/--seeds: turn level only (the embedded birth–death workload)")
	}
	if c.Trace != "" && c.given("seeds") {
		return option.Errorf("seeds", "for the embedded workload only (omit --trace; a trace file has no seed)")
	}
	switch c.Level {
	case "turn":
		return c.refuse([]string{"trace-format", "lp-solver", "ip-solver"}, "block level only (--level block)")
	case "block":
		return nil
	}
	return option.Errorf("level", "want turn or block, got %q", c.Level)
}

// refuse returns an error naming the first of flags given, if any.
func (c Command) refuse(flags []string, reason string) error {
	for _, f := range flags {
		if c.given(f) {
			return option.Errorf(f, "%s", reason)
		}
	}
	return nil
}

// block runs the block level (experiments/blockgap).
func (c Command) block(ctx context.Context) (any, []report.Table, error) {
	var xis []float64
	if c.Xis != "" {
		var err error
		if xis, err = option.Floats("xis", c.Xis); err != nil {
			return nil, nil, err
		}
	}
	if err := c.refuse([]string{"forced", "thresholds", "solver", "workers", "schedule", "exec-timeout"}, "turn level only"); err != nil {
		return nil, nil, err
	}
	return blockgap.Command{Trace: c.Trace, TraceFormat: c.TraceFormat, Format: c.Format, Policies: c.Policies,
		Capacities: c.Capacities, Xis: xis, AlphaMs: c.AlphaMs, TimeLimit: c.TimeLimit, Block: c.Block,
		BlockGiven: c.given("block-size"), LPSolver: c.LPSolver, IPSolver: c.IPSolver, Progress: c.Progress}.Run(ctx)
}

// embedded reports whether the turn level replays the embedded workload.
func (c Command) embedded() bool {
	return c.Trace == ""
}

// workloadLabel names the embedded workload, with the flags that changed it.
func (c Command) workloadLabel() string {
	if len(c.WorkloadFlags) == 0 {
		return "embedded birth–death workload"
	}
	return "birth–death workload (" + strings.Join(c.WorkloadFlags, " ") + ")"
}

// settings is the "settings" object of the turn level's JSON document.
func (c Command) settings(label string) map[string]any {
	return map[string]any{"trace": label, "block_size_tokens": c.Block, "forced": c.Forced,
		"alpha_ms_per_token": c.AlphaMs, "solver": c.Solver, "qhat": c.QHat}
}

// file measures the sweep cfg on the trace file c.Trace.
func (c Command) file(ctx context.Context, cfg Config) (seeds.Output, error) {
	tr, err := trace.ReadFile(c.Trace)
	if err != nil {
		return seeds.Output{}, err
	}
	return output(ctx, tr, cfg, c.Trace, c.settings(c.Trace))
}

// seeds measures the sweep cfg on the embedded workload of each seed of
// list (c.Workers seeds at a time, one sweep point each at a time) and
// summarizes them as experiments/seeds does.
func (c Command) seeds(ctx context.Context, cfg Config, list []uint64) (seeds.Output, error) {
	if len(list) > 1 {
		cfg.Workers, cfg.Progress = 1, nil
	}
	per, err := seeds.Run(list, c.Workers, func(seed uint64) (seeds.Output, error) {
		tr, err := birthdeath.Trace(c.Workload, seed)
		if err != nil {
			return seeds.Output{}, err
		}
		label := c.workloadLabel()
		if len(list) == 1 {
			label = fmt.Sprintf("%s (seed %d)", label, seed)
		}
		return output(ctx, tr, cfg, label, c.settings(label))
	})
	if err != nil {
		return seeds.Output{}, err
	}
	return seeds.Summarize(list, per, c.Format)
}

// output measures the sweep cfg on tr, labelled label.
func output(ctx context.Context, tr *trace.Trace, cfg Config, label string, settings map[string]any) (seeds.Output, error) {
	if cfg.Windows > 0 {
		rows, err := RunWindowed(ctx, tr, cfg)
		if err != nil {
			return seeds.Output{}, err
		}
		settings["windows"], settings["seam_turns"], settings["lower_overlap_turns"] = cfg.Windows, WindowSeamTurns, WindowSeamTurns
		doc := map[string]any{
			"units":    "TEL in tokens; TEL_opt in [lower_bound, upper_bound] (lp/window's certified interval); the true rel_gap = (TEL − TEL_opt)/TEL_opt lies in [rel_gap_at_least, rel_gap_at_most] (null when the bound divided by is 0)",
			"settings": settings,
			"rows":     rows,
		}
		return seeds.Output{Doc: doc, Tables: []report.Table{WindowSweepTable(label, cfg.Block, cfg.Forced, rows)}}, nil
	}
	rows, err := Run(ctx, tr, cfg)
	if err != nil {
		return seeds.Output{}, err
	}
	doc := map[string]any{
		"units":    "TEL in tokens and ms; rel_gap = (TEL − TEL_opt)/TEL_opt, null when TEL_opt = 0 (opt_zero: \"both zero\" or \"infinite\")",
		"settings": settings,
		"rows":     rows,
	}
	return seeds.Output{Doc: doc, Tables: []report.Table{SweepTable(label, cfg.Block, cfg.Forced, rows)}}, nil
}

// sloFlag names the SLO flag given (slo-ms or slo-tokens).
func (c Command) sloFlag() string {
	if c.given("slo-ms") {
		return "slo-ms"
	}
	return "slo-tokens"
}

// tail measures every policy against the interval of a tail objective, on
// the trace file or one seed of the embedded workload.
func (c Command) tail(ctx context.Context, obj objective.Objective) (any, []report.Table, error) {
	cfg, list, err := c.turn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(list) > 1 {
		return nil, nil, option.Errorf("seeds", "with --objective tel only (give one --seed)")
	}
	spec := TailSpec{Objective: obj, Solver: c.Solver, Model: cfg.Model}
	if c.Solver == "" || !c.given("solver") {
		spec.Solver = "auto"
	}
	var slo map[string]any
	if obj.Kind == objective.SLO {
		if spec.SLOTokens, err = c.SLO.Resolve(cfg.Model, c.given); err != nil {
			return nil, nil, err
		}
		slo = map[string]any{"slo_tokens": spec.SLOTokens}
		if !c.given("slo-tokens") {
			spec.SLOMs = ptr(c.SLO.SLOMs)
			slo["slo_ms"] = c.SLO.SLOMs
		}
	} else if c.given("slo-ms") || c.given("slo-tokens") {
		return nil, nil, option.Errorf(c.sloFlag(), "for --objective slo only (a percentile needs no SLO)")
	}
	var tr *trace.Trace
	label := c.Trace
	if list == nil {
		if tr, err = trace.ReadFile(c.Trace); err != nil {
			return nil, nil, err
		}
	} else {
		if tr, err = birthdeath.Trace(c.Workload, list[0]); err != nil {
			return nil, nil, err
		}
		label = fmt.Sprintf("%s (seed %d)", c.workloadLabel(), list[0])
	}
	var rows []TailRow
	if cfg.Windows > 0 {
		rows, err = RunTailWindowed(ctx, tr, cfg, spec, TailWindowOptions{MaxProbes: c.MaxProbes, Upper: c.SLOUpper, LNSWindows: c.SLOLNSWindows, LowerOverlap: c.SLOLowerOverlap})
	} else {
		rows, err = RunTail(ctx, tr, cfg, spec)
	}
	if err != nil {
		return nil, nil, err
	}
	settings := c.settings(label)
	settings["objective"] = obj.String()
	if cfg.Windows > 0 {
		settings["windows"], settings["seam_turns"], settings["solver"] = cfg.Windows, WindowSeamTurns, WindowedSolver
		if obj.Kind == objective.Percentile {
			settings["max_probes"] = c.MaxProbes
		}
		if c.SLOUpper != window.UpperFull { // left out for the default, so its output is as before
			settings["slo_upper"] = c.SLOUpper.String()
		}
		if c.SLOLNSWindows > 0 {
			settings["slo_lns_windows"] = c.SLOLNSWindows
		}
		if c.SLOLowerOverlap > 0 { // left out at 0, so the output without it is as before
			settings["lower_overlap_turns"] = c.SLOLowerOverlap
		}
	}
	for k, v := range slo {
		settings[k] = v
	}
	doc := map[string]any{
		"units":    "value, lower_bound, upper_bound: SLO violations (turns) for slo, uncached tokens for pQ; above_lower = value − lower_bound, above_upper = value − upper_bound",
		"settings": settings,
		"rows":     rows,
	}
	return doc, []report.Table{TailTable(label, cfg.Block, cfg.Forced, obj, rows)}, nil
}
