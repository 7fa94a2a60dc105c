package blockgap

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Command is 'tailbound gap --level block' as given on the command line:
// each field holds a flag's value in the flag's units. Run validates them,
// naming the flag in an *option.Error, and measures.
type Command struct {
	// Trace is the trace file (--trace; - for stdin), in TraceFormat:
	// canonical, mooncake, bailian or blocks (--trace-format).
	Trace, TraceFormat string
	// Format is the output format (--format), one of report.Formats.
	Format string
	// Policies are the block policies, comma-separated (--policies; "":
	// every registered one).
	Policies string
	// Capacities are the cache sizes, tokens, comma-separated
	// (--capacities).
	Capacities string
	// Xis is the tail-aware policies' ξ, tokens (--xis, parsed): at most
	// one value; none is latency.DefaultXiMs converted with AlphaMs.
	Xis []float64
	// AlphaMs is α, the prefill time per uncached token, ms/token
	// (--alpha-ms).
	AlphaMs float64
	// TimeLimit bounds each LP or IP solve, seconds (--time-limit; 0: none).
	TimeLimit float64
	// Block is the block size B, tokens (--block-size). A canonical trace is
	// chained in Block-token blocks; another format carries its own block
	// size, checked against Block only when BlockGiven (--block-size on the
	// command line).
	Block      int64
	BlockGiven bool
	// LPSolver and IPSolver solve the LP relaxation and the integer program
	// (--lp-solver, --ip-solver): see Config.
	LPSolver, IPSolver string
	// Progress, when not nil, is told which solve runs.
	Progress progress.Func
}

// Run validates c, reads the trace and measures: it returns the JSON
// document and the tables the command prints (bounds, then policies).
func (c Command) Run(ctx context.Context) (any, []report.Table, error) {
	if err := report.CheckFormat(c.Format); err != nil {
		return nil, nil, err
	}
	if c.Trace == "" || c.Capacities == "" {
		return nil, nil, option.Both("trace", "capacities", "both required at block level")
	}
	capacities, err := option.Ints("capacities", c.Capacities)
	if err != nil {
		return nil, nil, err
	}
	model := latency.Default()
	model.AlphaMs = c.AlphaMs
	if err := model.Validate(); err != nil {
		return nil, nil, option.Wrap("alpha-ms", err)
	}
	xi, err := c.xi(model)
	if err != nil {
		return nil, nil, err
	}
	if c.Policies == "" {
		c.Policies = strings.Join(prefixcache.Names(), ",")
	}
	entries, err := prefixcache.Parse(c.Policies)
	if err != nil {
		return nil, nil, option.Wrap("policies", err)
	}
	limit, err := option.TimeLimit("time-limit", c.TimeLimit)
	if err != nil {
		return nil, nil, err
	}
	want := c.Block // canonical traces are chained in --block-size blocks; others carry their own
	if c.TraceFormat != "canonical" && !c.BlockGiven {
		want = 0
	}
	src, block, f, err := blocksim.Open(c.Trace, c.TraceFormat, want)
	if err != nil {
		return nil, nil, err
	}
	s, err := blocksim.ReadAll(src, block)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	rows, bounds, err := Run(ctx, s, Config{Capacities: capacities, Policies: entries,
		LPSolver: c.LPSolver, IPSolver: c.IPSolver, TimeLimit: limit,
		Replay: blocksim.Options{Params: instance.Params{Xi: xi}, Model: model, SLOMs: latency.DefaultSLOMs}, Progress: c.Progress})
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{
		"units": "misses and hits in block references; width = hindsight misses − best lower bound (IP if optimal, else LP); rel_gap = gap / hindsight misses",
		"settings": map[string]any{"level": "block", "trace": c.Trace, "trace_format": c.TraceFormat, "block_size_tokens": block,
			"xi_tokens": xi, "alpha_ms_per_token": model.AlphaMs, "lp_solver": c.LPSolver, "ip_solver": c.IPSolver},
		"bounds": bounds,
		"rows":   rows,
	}
	return doc, []report.Table{BoundsTable(c.Trace, block, bounds), PolicyTable(rows)}, nil
}

// xi is the tail-aware policies' ξ, tokens: the one value of c.Xis, or
// latency.DefaultXiMs converted with model.
func (c Command) xi(model latency.Model) (float64, error) {
	switch len(c.Xis) {
	case 0:
		return model.XiTokens(latency.DefaultXiMs), nil
	case 1:
		return c.Xis[0], nil
	}
	return 0, option.Errorf("xis", "one threshold at block level (the tail-aware policies' ξ, tokens)")
}

// BoundsTable is the table of the bounds on the fewest block misses per
// capacity of a trace named trace with block tokens per block.
func BoundsTable(trace string, block int64, bounds []Bound) report.Table {
	t := report.Table{
		Title: fmt.Sprintf("%s: bounds on the fewest block misses (B=%d tokens); hindsight-belady is exact (lp/prefix), LP ≤ IP ≤ hindsight ≤ every policy checked",
			trace, block),
		Header: []string{"capacity (tokens)", "capacity (blocks)", "references", "LP misses", "IP misses", "hindsight misses", "width (blocks)", "order holds"},
	}
	for _, b := range bounds {
		w := report.CellNone("-")
		if b.WidthBlocks != nil {
			w = report.CellF(*b.WidthBlocks, 2)
		}
		t.Add(report.CellI(b.CapacityTokens), report.CellI(int64(b.CapacityBlocks)), report.CellI(b.RefBlocks),
			b.LP.cell(), b.IP.cell(), report.CellI(b.HindsightMissBlocks), w, report.CellText(fmt.Sprint(b.OrderHolds)))
	}
	return t
}

// cell is a solve's misses (blocks, 2 decimals), its status (as text)
// when not optimal, or "-" (no value) when it was not run.
func (s *Solve) cell() report.Cell {
	switch {
	case s == nil:
		return report.CellNone("-")
	case s.Status != "optimal":
		return report.CellText(s.Status)
	}
	return report.CellF(s.MissBlocks, 2)
}

// PolicyTable is the table of each policy's misses against the hindsight
// optimum's.
func PolicyTable(rows []Row) report.Table {
	t := report.Table{
		Title:  "each policy against the hindsight optimum: gap = misses − optimum's misses (blocks), relative to the optimum's misses",
		Header: []string{"capacity (tokens)", "policy", "misses (blocks)", "block hit ratio", "gap (blocks)", "gap (relative)", "TEL (ms)", "mean TTFT (ms)", "P90 (ms)", "SLO viol."},
	}
	for _, r := range rows {
		t.Add(report.CellI(r.CapacityTokens), report.CellText(r.Policy), report.CellI(r.MissBlocks), report.CellF(r.BlockHitRatio, 4),
			report.CellI(r.GapBlocks), report.CellPct(r.RelGap), report.CellF(r.TELMs, 1), report.CellF(r.MeanTTFTMs, 2),
			report.CellF(r.P90Ms, 2), report.CellI(r.SLOViolations))
	}
	return t
}
