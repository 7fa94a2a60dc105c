package blocktail

import (
	"context"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/internal/progress"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Command is 'tailbound solve --level block' (one capacity, no policies)
// and 'tailbound gap --level block --objective' (capacities and policies)
// as given on the command line; each field holds a flag's value in the
// flag's units. Run validates them, naming the flag in an *option.Error.
type Command struct {
	// Trace is the trace file (--trace; - for stdin) in TraceFormat
	// (--trace-format: canonical, mooncake, bailian, blocks).
	Trace, TraceFormat string
	// Block is the block size B, tokens (--block-size): a canonical trace is
	// chained in Block-token blocks; another format carries its own block
	// size, checked against Block only when BlockGiven.
	Block      int64
	BlockGiven bool
	// Capacities are the cache sizes, tokens, comma-separated
	// (--capacities, or --capacity for solve).
	Capacities string
	// Objective is tel or slo (--objective).
	Objective string
	// Model is the latency model and XiTokens ξ, tokens (--alpha-ms,
	// --beta-ms, --xi-ms, --xi-tokens, resolved); SLOTokens the SLO s,
	// uncached tokens (--slo-ms, --slo-tokens, resolved by
	// objective.SLOSettings).
	Model     latency.Model
	XiTokens  float64
	SLOTokens int64
	// Policies are the block policies, comma-separated (--policies; "":
	// every registered one; "none": bounds only).
	Policies string
	// LPSolver and IPSolver solve the LP relaxation and the integer program
	// (--lp-solver, --ip-solver): see Config.
	LPSolver, IPSolver string
	// TimeLimit bounds each solve, seconds (--time-limit; 0: none).
	TimeLimit float64
	// Format is the output format (--format).
	Format string
	// Progress, when not nil, is told which solve runs.
	Progress progress.Func
	// Windows, when > 0, bounds the optimum by that many windows of
	// consecutive requests (--windows; solve only, tel or slo).
	Windows int
	// SeamRequests is the half-width, requests, of the seams re-solved
	// between windows for the upper bound (--seam-requests), JoinRequests
	// that of the joins between shards' runs (--join-requests); 0: none
	// (prefixtail.WindowOptions).
	SeamRequests, JoinRequests int
	// LowerOverlapRequests is how far back, requests, each window's
	// relaxation reaches into the window before for the lower bound, the
	// costs there shared by weights (--lower-overlap-requests; 0: not;
	// prefixtail.WindowOptions).
	LowerOverlapRequests int
	// LowerOverlapWeights is how the overlap's requests are shared
	// between the two windows (--lower-overlap-weights ramp|half; with
	// LowerOverlapRequests > 0 only).
	LowerOverlapWeights prefixtail.OverlapWeighting
	// ReplayLookaheadRequests bounds the one-process windowed run's
	// stitched replay to the next uses before this many requests past each
	// window's end, and streams the trace (prefixtail.WindowedLookahead;
	// 0: the whole trace's lookahead, the trace held compactly).
	ReplayLookaheadRequests int
	// TargetWidth, when > 0, is the relative width (upper − lower)/upper
	// wanted of the one-process windowed interval (--target-width, a
	// fraction): the window count is halved until it is met or one window
	// is left (byCount).
	TargetWidth float64
	// CarriedHistory gives each window's relaxation its carried history
	// (--relaxation-history carried; prefixtail.WindowOptions) in place of
	// the last uses before it: the same relaxation optima, built from the
	// window's chains and which of their blocks were used before it, so
	// that with ReplayLookaheadRequests the process holds nothing per
	// block or request of the whole trace beside the reader's interner.
	CarriedHistory bool
	// TraceBlockIDs takes the trace's hash ids as block ids, no interner
	// numbering them (--block-ids trace; with CarriedHistory and
	// ReplayLookaheadRequests, a file of an importer's format): assumes a
	// hash id names one prefix, checked while its last use is held
	// (BoundWindowedLookahead).
	TraceBlockIDs bool
	// Shard is i/n (--shard, with Windows): bound only the i-th of n runs
	// of consecutive windows and write the shard's result file to Out
	// (--out; "": standard output). Slurm, when > 0, prints the Slurm
	// array job of that many shards and its merge instead (--slurm); Given
	// are the flags given, as "--name=value", to pass on. Both run through
	// experiments/windows.RunBlock (a shard file is experiments/suite's,
	// which imports this package).
	Shard, Out string
	Slurm      int
	Given      []string

	one bool // Solve: one capacity, flag --capacity
}

// WindowCheck validates c as 'solve --level block --windows N' (one
// capacity, tel or slo) without reading its trace; it returns the block
// size, tokens, to read the trace with (0: the trace's own; CountRequests,
// LoadSpan).
func (c Command) WindowCheck() (Config, int64, error) {
	c.one = true
	cfg, want, err := c.validate()
	if err != nil {
		return cfg, 0, err
	}
	switch {
	case len(cfg.Capacities) != 1:
		return cfg, 0, option.Errorf("capacity", "one capacity")
	case c.Windows < 1:
		return cfg, 0, option.Errorf("windows", "want ≥ 1, got %d", c.Windows)
	case c.SeamRequests < 0:
		return cfg, 0, option.Errorf("seam-requests", "want ≥ 0, got %d", c.SeamRequests)
	case c.JoinRequests < 0:
		return cfg, 0, option.Errorf("join-requests", "want ≥ 0, got %d", c.JoinRequests)
	case c.LowerOverlapRequests < 0:
		return cfg, 0, option.Errorf("lower-overlap-requests", "want ≥ 0, got %d", c.LowerOverlapRequests)
	case c.LowerOverlapWeights != prefixtail.RampWeights && c.LowerOverlapRequests == 0:
		return cfg, 0, option.Errorf("lower-overlap-weights", "only with --lower-overlap-requests L > 0")
	case cfg.PercentileQ > 0:
		return cfg, 0, option.Errorf("windows", "tel or slo only (a percentile does not add up over windows)")
	}
	return cfg, want, nil
}

// WindowOptions are the seams of c's windowed bounds.
func (c Command) WindowOptions() prefixtail.WindowOptions {
	return prefixtail.WindowOptions{SeamRequests: c.SeamRequests, JoinRequests: c.JoinRequests, LowerOverlapRequests: c.LowerOverlapRequests,
		LowerOverlapWeights: c.LowerOverlapWeights, CarriedHistory: c.CarriedHistory}
}

// WindowSettings are the settings a block-level windowed shard's file
// carries, as strings (merge refuses files whose settings differ, naming
// the first).
func (c Command) WindowSettings(tr *Trace, cfg Config) map[string]string {
	return c.WindowSettingsOf(tr.Block(), len(tr.Reqs), cfg)
}

// WindowSettingsOf is WindowSettings for a trace of requests requests in
// blocks of block tokens (a streamed one: LoadSpan).
func (c Command) WindowSettingsOf(block int64, requests int, cfg Config) map[string]string {
	ps := map[string]string{"trace": c.Trace, "trace_format": c.TraceFormat, "block_size_tokens": fmt.Sprint(block),
		"capacity_tokens": fmt.Sprint(cfg.Capacities[0]), "objective": cfg.Objective.Kind.String(),
		"xi_tokens": fmt.Sprint(c.XiTokens), "slo_tokens": fmt.Sprint(c.SLOTokens),
		"lp_solver": c.LPSolver, "ip_solver": c.IPSolver, "time_limit_s": fmt.Sprint(c.TimeLimit),
		"windows": fmt.Sprint(c.Windows), "requests": fmt.Sprint(requests), "seam_requests": fmt.Sprint(c.SeamRequests), "join_requests": fmt.Sprint(c.JoinRequests)}
	if c.LowerOverlapRequests > 0 { // left out at 0, so files without an overlap stay as before (merge names it when one has it)
		ps["lower_overlap_requests"] = fmt.Sprint(c.LowerOverlapRequests)
		if c.LowerOverlapWeights != prefixtail.RampWeights { // left out for the ramp, so its files stay as before
			ps["lower_overlap_weights"] = c.LowerOverlapWeights.String()
		}
	}
	if c.CarriedHistory { // left out for the last uses, so their files stay as before
		ps["relaxation_history"] = "carried"
	}
	return ps
}

// config validates c and reads its trace.
func (c Command) config() (*Trace, Config, error) {
	cfg, want, err := c.validate()
	if err != nil {
		return nil, cfg, err
	}
	tr, err := Load(c.Trace, c.TraceFormat, want)
	if err != nil {
		return nil, cfg, err
	}
	return tr, cfg, nil
}

// validate validates c and returns its Config and the block size, tokens,
// to read its trace with (0: the trace's own).
func (c Command) validate() (Config, int64, error) {
	var cfg Config
	if err := report.CheckFormat(c.Format); err != nil {
		return cfg, 0, err
	}
	if c.Trace == "" {
		return cfg, 0, option.Errorf("trace", "required")
	}
	capFlag := "capacities"
	if c.one {
		capFlag = "capacity"
	}
	if c.Capacities == "" {
		return cfg, 0, option.Errorf(capFlag, "required")
	}
	caps, err := option.Ints(capFlag, c.Capacities)
	if err != nil {
		return cfg, 0, err
	}
	o, err := objective.Parse(c.Objective)
	if err != nil {
		return cfg, 0, option.Wrap("objective", err)
	}
	cfg.Objective = prefixtail.Objective{XiTokens: c.XiTokens, SLOTokens: float64(c.SLOTokens)}
	switch o.Kind {
	case objective.TEL:
		cfg.Objective.Kind = prefixtail.TEL
	case objective.SLO:
		cfg.Objective.Kind = prefixtail.SLO
	case objective.Percentile:
		cfg.Objective.Kind = prefixtail.SLO
		cfg.PercentileQ = o.Q
	}
	limit, err := option.TimeLimit("time-limit", c.TimeLimit)
	if err != nil {
		return cfg, 0, err
	}
	if q := cfg.PercentileQ; q > 0 && c.Policies != "none" && q != 50 && q != 90 && q != 95 && q != 99 {
		return cfg, 0, option.Errorf("objective", "block level with policies: p50, p90, p95 or p99 (the percentiles simulate reports), got %q; --policies none bounds any pQ", c.Objective)
	}
	switch c.Policies {
	case "none":
	case "":
		c.Policies = strings.Join(prefixcache.Names(), ",")
		fallthrough
	default:
		if cfg.Policies, err = prefixcache.Parse(c.Policies); err != nil {
			return cfg, 0, option.Wrap("policies", err)
		}
	}
	if _, _, err := Backends(c.LPSolver, c.IPSolver); err != nil {
		return cfg, 0, &option.Error{Flags: []string{"lp-solver", "ip-solver"}, Err: err}
	}
	want := c.Block
	if c.TraceFormat != "canonical" && !c.BlockGiven {
		want = 0
	}
	cfg.Capacities, cfg.XiTokens, cfg.SLOTokens, cfg.Model = caps, c.XiTokens, c.SLOTokens, c.Model
	cfg.LPSolver, cfg.IPSolver, cfg.Progress = c.LPSolver, c.IPSolver, c.Progress
	cfg.TimeLimit = limit
	return cfg, want, nil
}

func (c Command) settings(tr *Trace) map[string]any { return c.settingsOf(tr.Block()) }

// settingsOf is settings for a trace in blocks of block tokens.
func (c Command) settingsOf(block int64) map[string]any {
	return map[string]any{"level": "block", "trace": c.Trace, "trace_format": c.TraceFormat, "block_size_tokens": block,
		"xi_tokens": c.XiTokens, "slo_tokens": c.SLOTokens, "alpha_ms_per_token": c.Model.AlphaMs, "beta_ms": c.Model.BetaMs,
		"lp_solver": c.LPSolver, "ip_solver": c.IPSolver}
}

// units explains the values of an objective.
func units(k prefixtail.Kind, q float64) string {
	if q > 0 {
		return fmt.Sprintf("p%v of uncached tokens (nearest rank over requests); bounds on its lowest value over all eviction sequences, tokens", q)
	}
	if k == prefixtail.SLO {
		return "SLO violations (requests with uncached tokens b > slo_tokens); bounds on their fewest number over all eviction sequences"
	}
	return "TEL in tokens (Σ max(b − ξ, 0)); bounds on its optimum over all eviction sequences"
}

// Solve runs 'solve --level block': the interval at the one capacity of
// c.Capacities. It returns the JSON document (the Point's fields at the
// top level, with settings) and its table.
func (c Command) Solve(ctx context.Context) (any, []report.Table, error) {
	c.one = true
	if c.Windows != 0 {
		return c.solveWindowed(ctx)
	}
	tr, cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.Capacities) != 1 {
		return nil, nil, option.Errorf("capacity", "one capacity")
	}
	if c.Shard != "" || c.Slurm != 0 || c.Out != "" {
		return nil, nil, option.Errorf("windows", "--shard, --slurm and --out are for --windows N")
	}
	if c.LowerOverlapRequests != 0 {
		return nil, nil, option.Errorf("lower-overlap-requests", "only with --windows N")
	}
	if c.ReplayLookaheadRequests != 0 {
		return nil, nil, option.Errorf("replay-lookahead-requests", "only with --windows N")
	}
	if c.CarriedHistory {
		return nil, nil, option.Errorf("relaxation-history", "only with --windows N")
	}
	if c.TraceBlockIDs {
		return nil, nil, option.Errorf("block-ids", "only with --windows N")
	}
	if c.LowerOverlapWeights != prefixtail.RampWeights {
		return nil, nil, option.Errorf("lower-overlap-weights", "only with --windows N and --lower-overlap-requests L > 0")
	}
	pt, err := BoundOne(ctx, tr, cfg.Capacities[0], cfg)
	if err != nil {
		return nil, nil, err
	}
	doc := struct {
		Units    string         `json:"units"`
		Settings map[string]any `json:"settings"`
		*Point
	}{units(cfg.Objective.Kind, cfg.PercentileQ), c.settings(tr), pt}
	return doc, []report.Table{BoundsTable(c.Trace, cfg.Objective.Kind, cfg.PercentileQ, []Point{*pt})}, nil
}

// solveWindowed is Solve with --windows N in one process: the flags
// checked, then the trace (a file or standard input) read once into a
// prefixtail.Flat (LoadFlat), whose windows are bounded one at a time and
// whose stitched schedule is replayed over it (BoundWindowedFlat).
func (c Command) solveWindowed(ctx context.Context) (any, []report.Table, error) {
	cfg, want, err := c.validate()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(cfg.Capacities) != 1:
		return nil, nil, option.Errorf("capacity", "one capacity")
	case c.Windows < 0:
		return nil, nil, option.Errorf("windows", "want ≥ 1, got %d", c.Windows)
	case c.SeamRequests < 0:
		return nil, nil, option.Errorf("seam-requests", "want ≥ 0, got %d", c.SeamRequests)
	case c.LowerOverlapRequests < 0:
		return nil, nil, option.Errorf("lower-overlap-requests", "want ≥ 0, got %d", c.LowerOverlapRequests)
	case c.LowerOverlapWeights != prefixtail.RampWeights && c.LowerOverlapRequests == 0:
		return nil, nil, option.Errorf("lower-overlap-weights", "only with --lower-overlap-requests L > 0")
	case c.ReplayLookaheadRequests < 0:
		return nil, nil, option.Errorf("replay-lookahead-requests", "want ≥ 0, got %d", c.ReplayLookaheadRequests)
	case c.TraceBlockIDs && (c.ReplayLookaheadRequests == 0 || !c.CarriedHistory || c.Trace == "-" || c.TraceFormat == "canonical"):
		return nil, nil, option.Errorf("block-ids", "trace: only with --replay-lookahead-requests H, --relaxation-history carried and a file (not standard input) of the mooncake, bailian or blocks format")
	case c.JoinRequests != 0:
		return nil, nil, option.Errorf("join-requests", "joins shards' runs: only with --shard or --slurm")
	case cfg.PercentileQ > 0:
		return nil, nil, option.Errorf("windows", "tel or slo only (a percentile does not add up over windows)")
	case c.Shard != "" || c.Slurm != 0:
		return nil, nil, option.Errorf("shard", "as shards, 'solve --level block --windows' runs through experiments/windows.RunBlock")
	case c.Out != "":
		return nil, nil, option.Errorf("out", "only with --shard (the shard's result file) or --slurm (the merged output)")
	case c.TargetWidth < 0 || c.TargetWidth >= 1:
		return nil, nil, option.Errorf("target-width", "must be a fraction in [0, 1), got %v", c.TargetWidth)
	case c.TargetWidth > 0 && c.ReplayLookaheadRequests > 0 && c.Trace == "-":
		return nil, nil, option.Errorf("target-width", "with --replay-lookahead-requests each window count reads the trace again, and standard input is read once: give a file")
	}
	var bound func(nw int) (*Windowed, error)
	var block int64
	if c.ReplayLookaheadRequests > 0 {
		bound = func(nw int) (*Windowed, error) {
			w, b, err := BoundWindowedLookahead(ctx, c.Trace, c.TraceFormat, want, cfg.Capacities[0], nw, c.ReplayLookaheadRequests, c.WindowOptions(), c.TraceBlockIDs, cfg)
			block = b
			return w, err
		}
	} else {
		var fl *prefixtail.Flat
		if fl, block, err = LoadFlat(c.Trace, c.TraceFormat, want); err != nil {
			return nil, nil, err
		}
		bound = func(nw int) (*Windowed, error) {
			return BoundWindowedFlat(ctx, fl, block, cfg.Capacities[0], nw, c.WindowOptions(), cfg)
		}
	}
	w, tg, err := byCount(c.Windows, c.TargetWidth, bound)
	if err != nil {
		return nil, nil, err
	}
	settings := c.settingsOf(block)
	settings["windows"], settings["seam_requests"] = w.Windows, c.SeamRequests
	if c.ReplayLookaheadRequests > 0 { // left out at 0, so that the output stays as before
		settings["replay_lookahead_requests"] = c.ReplayLookaheadRequests
	}
	if c.CarriedHistory { // left out for the last uses, so that the output stays as before
		settings["relaxation_history"] = "carried"
	}
	if c.TraceBlockIDs { // left out for interned ids, so that the output stays as before
		settings["block_ids"] = "trace"
	}
	if c.LowerOverlapRequests > 0 {
		settings["lower_overlap_requests"] = c.LowerOverlapRequests
		if c.LowerOverlapWeights != prefixtail.RampWeights {
			settings["lower_overlap_weights"] = c.LowerOverlapWeights.String()
		}
	}
	doc := struct {
		Units    string         `json:"units"`
		Settings map[string]any `json:"settings"`
		*Windowed
		Target
	}{units(cfg.Objective.Kind, 0), settings, w, tg}
	return doc, append(WindowTables(c.Trace, w), triedTable(tg)...), nil
}

// Gap runs 'gap --level block --objective': the interval at every
// capacity and every policy beside it.
func (c Command) Gap(ctx context.Context) (any, []report.Table, error) {
	tr, cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	points, rows, err := Run(ctx, tr, cfg)
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{"units": units(cfg.Objective.Kind, cfg.PercentileQ), "settings": c.settings(tr), "bounds": points, "rows": rows}
	tables := []report.Table{BoundsTable(c.Trace, cfg.Objective.Kind, cfg.PercentileQ, points)}
	if len(rows) > 0 {
		tables = append(tables, PolicyTable(cfg.Objective.Kind, cfg.PercentileQ, rows))
	}
	return doc, tables, nil
}

// BoundsTable is the table of the intervals.
func BoundsTable(trace string, k prefixtail.Kind, q float64, points []Point) report.Table {
	what := "TEL (tokens)"
	if k == prefixtail.SLO {
		what = "SLO violations"
	}
	fewest := "fewest"
	if q > 0 {
		what, fewest = fmt.Sprintf("p%v of uncached tokens (tokens)", q), "lowest"
	}
	t := report.Table{
		Title:  fmt.Sprintf("%s: bounds on the %s %s over all eviction sequences (lower: IP if solved, else LP or Lagrangian, else the cost under a cache that never evicts; upper: best replayed hindsight schedule)", trace, fewest, what),
		Header: []string{"capacity (tokens)", "capacity (blocks)", "lower", "upper", "width (relative)", "proven optimal", "lower from", "upper from", "order holds"},
	}
	for _, p := range points {
		t.Add(report.CellI(p.CapacityTokens), report.CellI(int64(p.CapacityBlocks)), report.CellF(p.Lower, 1), report.CellF(p.Upper, 1),
			report.CellPct(p.RelWidth), report.CellText(fmt.Sprint(p.Proven)), report.CellText(p.LowerFrom), report.CellText(p.UpperRule), report.CellText(fmt.Sprint(p.OrderHolds)))
	}
	return t
}

// PolicyTable is the table of each policy against the interval.
func PolicyTable(k prefixtail.Kind, q float64, rows []Row) report.Table {
	name := k.String()
	if q > 0 {
		name = fmt.Sprintf("p%v (uncached tokens)", q)
	}
	t := report.Table{
		Title: fmt.Sprintf("each policy against the interval of the %s optimum: above lower = value − lower bound, above upper = value − upper bound", name),
		Header: []string{"capacity (tokens)", "policy", "TEL (tokens)", "TEL (ms)", "SLO violations", "P90 (ms)", "block hit ratio",
			"above lower", "above upper"},
	}
	for _, r := range rows {
		t.Add(report.CellI(r.CapacityTokens), report.CellText(r.Policy), report.CellF(r.TELTokens, 0), report.CellF(r.TELMs, 1),
			report.CellI(r.Violations), report.CellF(r.P90Ms, 2), report.CellF(r.BlockHitRatio, 4), report.CellF(r.AboveLower, 1), report.CellF(r.Gap, 1))
	}
	return t
}
