package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tailbound/tailbound/experiments/blockgap"
	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// gapBlockArgs are gap's flags as the block level reads them.
type gapBlockArgs struct {
	trace, format, traceFormat, policies, capacities, lpSolver, ipSolver string
	xis                                                                  []float64
	alphaMs, limit                                                       float64
	block                                                                int64
	changed                                                              func(string) bool
}

// gapBlock is gap --level block: every block policy against the hindsight
// optimum of block hits and its LP/IP bounds (experiments/blockgap).
func gapBlock(a gapBlockArgs, stdout, stderr io.Writer) error {
	for _, name := range []string{"forced", "thresholds", "solver", "workers", "schedule", "exec-timeout"} {
		if a.changed(name) {
			return fmt.Errorf("flag --%s: turn level only", name)
		}
	}
	if err := report.CheckFormat(a.format); err != nil {
		return err
	}
	if a.trace == "" || a.capacities == "" {
		return fmt.Errorf("flags --trace and --capacities: both required at block level")
	}
	capacities, err := option.Ints("capacities", a.capacities)
	if err != nil {
		return err
	}
	model := latency.Default()
	model.AlphaMs = a.alphaMs
	if err := model.Validate(); err != nil {
		return fmt.Errorf("flag --alpha-ms: %w", err)
	}
	xi := model.XiTokens(latency.DefaultXiMs)
	switch len(a.xis) {
	case 0:
	case 1:
		xi = a.xis[0]
	default:
		return fmt.Errorf("flag --xis: one threshold at block level (the tail-aware policies' ξ, tokens)")
	}
	if a.policies == "" {
		a.policies = joinNames(prefixcache.Names())
	}
	entries, err := prefixcache.Parse(a.policies)
	if err != nil {
		return fmt.Errorf("flag --policies: %w", err)
	}
	if a.limit < 0 {
		return fmt.Errorf("flag --time-limit: must be ≥ 0 seconds, got %v", a.limit)
	}
	want := a.block // canonical traces are chained in --block-size blocks; others carry their own
	if a.traceFormat != "canonical" && !a.changed("block-size") {
		want = 0
	}
	src, block, f, err := blocksim.Open(a.trace, a.traceFormat, want)
	if err != nil {
		return err
	}
	s, err := blocksim.ReadAll(src, block)
	f.Close()
	if err != nil {
		return err
	}
	rows, bounds, err := blockgap.Run(context.Background(), s, blockgap.Config{Capacities: capacities, Policies: entries,
		LPSolver: a.lpSolver, IPSolver: a.ipSolver, TimeLimit: time.Duration(a.limit * float64(time.Second)),
		Replay: blocksim.Options{Params: instance.Params{Xi: xi}, Model: model, SLOMs: latency.DefaultSLOMs}, Progress: progressTo(stderr)})
	if err != nil {
		return err
	}
	bt := report.Table{
		Title: fmt.Sprintf("%s: bounds on the fewest block misses (B=%d tokens); hindsight-belady is exact (lp/prefix), LP ≤ IP ≤ hindsight ≤ every policy checked",
			a.trace, block),
		Header: []string{"capacity (tokens)", "capacity (blocks)", "references", "LP misses", "IP misses", "hindsight misses", "width (blocks)", "order holds"},
	}
	solveText := func(s *blockgap.Solve) string {
		switch {
		case s == nil:
			return "-"
		case s.Status != "optimal":
			return s.Status
		}
		return report.F(s.MissBlocks, 2)
	}
	for _, b := range bounds {
		w := "-"
		if b.WidthBlocks != nil {
			w = report.F(*b.WidthBlocks, 2)
		}
		bt.Rows = append(bt.Rows, []string{report.I(b.CapacityTokens), report.I(int64(b.CapacityBlocks)), report.I(b.RefBlocks),
			solveText(b.LP), solveText(b.IP), report.I(b.HindsightMissBlocks), w, fmt.Sprint(b.OrderHolds)})
	}
	pt := report.Table{
		Title:  "each policy against the hindsight optimum: gap = misses − optimum's misses (blocks), relative to the optimum's misses",
		Header: []string{"capacity (tokens)", "policy", "misses (blocks)", "block hit ratio", "gap (blocks)", "gap (relative)", "TEL (ms)", "mean TTFT (ms)"},
	}
	for _, r := range rows {
		pt.Rows = append(pt.Rows, []string{report.I(r.CapacityTokens), r.Policy, report.I(r.MissBlocks), report.F(r.BlockHitRatio, 4),
			report.I(r.GapBlocks), report.Pct(r.RelGap), report.F(r.TELMs, 1), report.F(r.MeanTTFTMs, 2)})
	}
	doc := map[string]any{
		"units": "misses and hits in block references; width = hindsight misses − best lower bound (IP if optimal, else LP); rel_gap = gap / hindsight misses",
		"settings": map[string]any{"level": "block", "trace": a.trace, "trace_format": a.traceFormat, "block_size_tokens": block,
			"xi_tokens": xi, "alpha_ms_per_token": model.AlphaMs, "lp_solver": a.lpSolver, "ip_solver": a.ipSolver},
		"bounds": bounds,
		"rows":   rows,
	}
	return report.Emit(stdout, a.format, doc, bt, pt)
}
