package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/replay"
)

// simulateBlock replays a block-hash trace through the prefix-cache engine
// (simulate --level block): every policy at every capacity over one read of
// the trace.
func simulateBlock(o *simOptions, changed func(string) bool, stdout, stderr io.Writer) error {
	for _, name := range []string{"forced", "threshold"} {
		if changed(name) {
			return fmt.Errorf("flag --%s: turn level only (the block level always admits a request's chain)", name)
		}
	}
	model, xi, err := o.lat.resolveWith(changed)
	if err != nil {
		return err
	}
	qhat, err := parseQHat(o.qhat)
	if err != nil {
		return err
	}
	popts, err := parseKV("policy-opt", o.policyOpts)
	if err != nil {
		return err
	}
	if o.policies == "" && len(o.schedules) == 0 {
		o.policies = strings.Join(prefixcache.Names(), ",")
	}
	ext := blocksim.External{EmitSchedule: o.emit, Finishers: &blockext.Finishers{}}
	defer ext.Finishers.Finish() // on early returns; ReplayExternal finishes them otherwise
	var entries []prefixcache.Entry
	if o.policies != "" {
		if entries, err = blockext.Parse(o.policies, execpolicy.Options{Timeout: seconds(o.execLimit)}, ext.Finishers.Add); err != nil {
			return fmt.Errorf("flag --policies: %w", err)
		}
	}
	if ext.Schedules, err = blockext.ReadFiles(o.schedules); err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	src, block, done, err := blockSource(o, changed)
	if err != nil {
		return err
	}
	defer done()
	var capacities []int64
	switch {
	case o.capacities != "" && changed("capacity"):
		return fmt.Errorf("flags --capacity and --capacities: give one")
	case o.capacities != "":
		if capacities, err = parseInts("capacities", o.capacities); err != nil {
			return err
		}
	case changed("capacity"):
		capacities = []int64{o.capacity}
	default:
		return fmt.Errorf("flag --capacity: required at block level (tokens, a multiple of the trace's %d-token blocks)", block)
	}
	for _, c := range capacities {
		if c < 0 || c%block != 0 {
			return fmt.Errorf("flag --capacity: %d tokens must be ≥ 0 and a multiple of the trace's block size, %d tokens", c, block)
		}
	}
	opt := blocksim.Options{BlockTokens: block, Xi: xi, Model: model, SLOMs: o.slo, QHat: qhat,
		PolicyOptions: popts, Progress: progressTo(stderr)}
	results, ideal, err := blocksim.ReplayExternal(src, entries, capacities, opt, ext)
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := plotBlock(o.plot, traceLabel(*o), results, ideal, block, len(capacities) > 1); err != nil {
			return err
		}
	}
	return emitBlock(stdout, o, opt, results, ideal, len(capacities) > 1)
}

// resolveWith is latencyFlags.resolve for callers that hold only the flag
// set's Changed: the latency model and the threshold in tokens.
func (l *latencyFlags) resolveWith(changed func(string) bool) (latency.Model, float64, error) {
	m := latency.Model{AlphaMs: l.alphaMs, BetaMs: l.betaMs}
	if err := m.Validate(); err != nil {
		return m, 0, fmt.Errorf("flags --alpha-ms/--beta-ms: %w", err)
	}
	if !changed("xi-tokens") {
		if math.IsNaN(l.xiMs) || math.IsInf(l.xiMs, 0) {
			return m, 0, fmt.Errorf("flag --xi-ms: must be a finite number of ms")
		}
		return m, m.XiTokens(l.xiMs), nil
	}
	if changed("xi-ms") {
		return m, 0, fmt.Errorf("flags --xi-ms and --xi-tokens: give one threshold, not both")
	}
	if math.IsNaN(l.xiTokens) || math.IsInf(l.xiTokens, 0) {
		return m, 0, fmt.Errorf("flag --xi-tokens: must be a finite number of tokens")
	}
	return m, l.xiTokens, nil
}

// blockSource opens the block-level trace and returns it as a source, its
// block size in tokens, and a function that closes it.
func blockSource(o *simOptions, changed func(string) bool) (blocksim.Source, int64, func(), error) {
	nop := func() {}
	if o.traceFmt == "canonical" || o.tracePath == "" {
		if err := checkCapacity(0, o.block); err != nil {
			return nil, 0, nop, err
		}
	}
	if o.tracePath == "" { // the embedded workload, chained per conversation
		if o.traceFmt != "canonical" {
			return nil, 0, nop, fmt.Errorf("flag --trace-format %s: needs --trace", o.traceFmt)
		}
		tr, err := birthdeath.Trace(birthdeath.Default(), o.seed)
		if err != nil {
			return nil, 0, nop, err
		}
		c, err := blocksim.NewChainer(o.block)
		if err != nil {
			return nil, 0, nop, err
		}
		i := 0
		return func() (blocktrace.Request, error) {
			if i == len(tr.Turns) {
				return blocktrace.Request{}, io.EOF
			}
			i++
			return c.Request(tr.Turns[i-1])
		}, o.block, nop, nil
	}
	block := o.block
	if o.traceFmt != "canonical" && !changed("block-size") {
		block = 0
	}
	src, b, f, err := blocksim.OpenWith(o.tracePath, o.traceFmt, block, o.typeParams)
	if err != nil {
		return nil, 0, nop, err
	}
	return src, b, func() { f.Close() }, nil
}

// blockPolicyJSON is one run's result: simulate's contract plus the
// block-level figures.
type blockPolicyJSON struct {
	simPolicyJSON
	// CapacityTokens is the run's cache size, tokens.
	CapacityTokens int64 `json:"capacity_tokens"`
	// Requests served (also given as "turns").
	Requests int64 `json:"requests"`
	// BlockHitRatio is hit blocks / referenced blocks.
	BlockHitRatio float64 `json:"block_hit_ratio"`
	HitBlocks     int64   `json:"hit_blocks"`
	RefBlocks     int64   `json:"ref_blocks"`
}

// blockIdealJSON is what an infinite cache achieves on the trace.
type blockIdealJSON struct {
	Requests       int64              `json:"requests"`
	RefBlocks      int64              `json:"ref_blocks"`
	DistinctBlocks int64              `json:"distinct_blocks"`
	BlockHitRatio  float64            `json:"block_hit_ratio"`
	HitRatio       float64            `json:"hit_ratio"`
	CapacityNeeded int64              `json:"capacity_needed_tokens"`
	TELTokens      float64            `json:"tel_tokens"`
	TELMs          float64            `json:"tel_ms"`
	TTFTMs         map[string]float64 `json:"ttft_ms"`
}

type blockJSON struct {
	Units    string            `json:"units"`
	Settings map[string]any    `json:"settings"`
	Baseline string            `json:"baseline,omitempty"`
	Ideal    blockIdealJSON    `json:"ideal"`
	Policies []blockPolicyJSON `json:"policies"`
}

func emitBlock(w io.Writer, o *simOptions, opt blocksim.Options, results []blocksim.Result, ideal blocksim.Ideal, sweep bool) error {
	im := ideal.Summary
	doc := blockJSON{
		Units: "lengths in tokens, times in ms, ratios in [0,1]; hit_ratio = cached tokens / input tokens; " +
			"history_hit_ratio = cached tokens / tokens an infinite cache hits; improvement = (baseline − policy)/baseline at the same capacity",
		Settings: map[string]any{"level": "block", "block_size_tokens": opt.BlockTokens, "xi_tokens": opt.Xi,
			"xi_ms": opt.Model.XiMs(opt.Xi), "alpha_ms_per_token": opt.Model.AlphaMs, "beta_ms": opt.Model.BetaMs,
			"slo_ms": opt.SLOMs, "qhat": o.qhat, "trace": traceLabel(*o), "trace_format": o.traceFmt},
		Baseline: o.baseline,
		Ideal: blockIdealJSON{Requests: ideal.Requests, RefBlocks: ideal.RefBlocks, DistinctBlocks: ideal.Distinct,
			BlockHitRatio: ideal.BlockHitRatio, HitRatio: im.HitRatio, CapacityNeeded: ideal.PeakLiveBlocks * opt.BlockTokens,
			TELTokens: im.TELTokens, TELMs: im.TELMs,
			TTFTMs: map[string]float64{"mean": im.MeanTTFTMs, "p50": im.P50, "p90": im.P90, "p95": im.P95, "p99": im.P99}},
	}
	if !sweep && len(results) > 0 {
		doc.Settings["capacity_tokens"] = results[0].CapacityTokens
	}
	idealTable := report.Table{
		Title: fmt.Sprintf("%s: %d requests, %d block references, %d distinct blocks of %d tokens; infinite cache",
			traceLabel(*o), ideal.Requests, ideal.RefBlocks, ideal.Distinct, opt.BlockTokens),
		Header: []string{"ideal block hit ratio", "ideal token hit ratio", "capacity needed (tokens)", "TEL (ms)", "mean TTFT (ms)", "P99 (ms)"},
		Rows: [][]string{{report.F(ideal.BlockHitRatio, 4), report.F(im.HitRatio, 4), report.I(ideal.PeakLiveBlocks * opt.BlockTokens),
			report.F(im.TELMs, 1), report.F(im.MeanTTFTMs, 2), report.F(im.P99, 2)}},
	}
	main := report.Table{
		Title: fmt.Sprintf("B=%d tokens, ξ=%.1f tokens (%.1f ms), α=%g ms/token, β=%g ms, SLO %g ms",
			opt.BlockTokens, opt.Xi, opt.Model.XiMs(opt.Xi), opt.Model.AlphaMs, opt.Model.BetaMs, opt.SLOMs),
		Header: []string{"capacity (tokens)", "policy", "block hit ratio", "token hit ratio", "TEL (ms)", "mean TTFT (ms)",
			"P50 (ms)", "P90 (ms)", "P99 (ms)", "SLO viol.", "evictions (blocks)"},
	}
	impr := report.Table{Title: "relative improvement over " + o.baseline + " at the same capacity: (baseline − policy)/baseline",
		Header: []string{"capacity (tokens)", "policy", "TEL", "mean", "P50", "P90", "P95", "P99", "SLO viol."}}
	base := map[int64]*blocksim.Result{}
	for i := range results {
		if results[i].Name == o.baseline {
			base[results[i].CapacityTokens] = &results[i]
		}
	}
	if o.baseline != "" && len(base) == 0 {
		return fmt.Errorf("flag --baseline: policy %q is not among --policies", o.baseline)
	}
	for _, r := range results {
		m := r.Summary
		pj := blockPolicyJSON{simPolicyJSON: simPolicyJSON{Name: r.Name, Turns: r.Requests, TELTokens: m.TELTokens, TELMs: m.TELMs,
			TTFTMs:        map[string]float64{"mean": m.MeanTTFTMs, "p50": m.P50, "p90": m.P90, "p95": m.P95, "p99": m.P99},
			SLOViolations: m.Violations, SLOViolationFraction: m.ViolationPct, HitRatio: m.HitRatio,
			MaxUncachedTokens: m.MaxUncached, Evictions: r.Evictions, EvictedTokens: r.Evictions * opt.BlockTokens},
			CapacityTokens: r.CapacityTokens, Requests: r.Requests, BlockHitRatio: r.BlockHitRatio,
			HitBlocks: r.HitBlocks, RefBlocks: r.RefBlocks}
		if !math.IsNaN(m.HistoryHit) {
			h := m.HistoryHit
			pj.HistoryHitRatio = &h
		}
		main.Rows = append(main.Rows, []string{report.I(r.CapacityTokens), r.Name, report.F(r.BlockHitRatio, 4), report.F(m.HitRatio, 4),
			report.F(m.TELMs, 1), report.F(m.MeanTTFTMs, 2), report.F(m.P50, 2), report.F(m.P90, 2), report.F(m.P99, 2),
			fmt.Sprintf("%d (%s)", m.Violations, report.Pct(m.ViolationPct)), report.I(r.Evictions)})
		if b := base[r.CapacityTokens]; b != nil {
			pj.Improvement = improvements(replay.Result{Summary: b.Summary}, replay.Result{Summary: m})
			row := []string{report.I(r.CapacityTokens), r.Name}
			for _, k := range []string{"tel", "mean", "p50", "p90", "p95", "p99", "slo_violations"} {
				if v, ok := pj.Improvement[k]; ok {
					row = append(row, report.Pct(v))
				} else {
					row = append(row, "n/a (baseline 0)")
				}
			}
			impr.Rows = append(impr.Rows, row)
		}
		doc.Policies = append(doc.Policies, pj)
	}
	if o.baseline == "" {
		return report.Emit(w, o.format, doc, idealTable, main)
	}
	return report.Emit(w, o.format, doc, idealTable, main, impr)
}

// plotBlock draws the TTFT CDF of each policy (one capacity) or, for a
// sweep, block hit ratio to path and mean TTFT and TEL against capacity to
// path with "-ttft" and "-tel" before its extension.
func plotBlock(path, title string, results []blocksim.Result, ideal blocksim.Ideal, block int64, sweep bool) error {
	if !sweep {
		f := plots.Figure{Title: "TTFT distribution (CDF)", XLabel: "TTFT (ms, log scale)", YLabel: "fraction of requests ≤ TTFT", LogX: true, LegendBottom: true}
		for _, r := range results {
			x, y := r.Metrics.CDF()
			f.Series = append(f.Series, plots.Series{Name: r.Name, X: x, Y: y})
		}
		return f.Save(path)
	}
	hit, ttft, tel := blocksim.SweepFigures(results, ideal, block, filepath.Base(title))
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	for _, p := range []struct {
		f    plots.Figure
		path string
	}{{hit, path}, {ttft, stem + "-ttft" + ext}, {tel, stem + "-tel" + ext}} {
		if err := p.f.Save(p.path); err != nil {
			return err
		}
	}
	return nil
}
