package blocksim

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/queue"
)

// policyJSON is one run's result: simulate's contract plus the block-level
// figures.
type policyJSON struct {
	sim.PolicyJSON
	// CapacityTokens is the run's cache size, tokens.
	CapacityTokens int64 `json:"capacity_tokens"`
	// Requests served (also given as "turns").
	Requests int64 `json:"requests"`
	// BlockHitRatio is hit blocks / referenced blocks (null when none
	// were referenced).
	BlockHitRatio *float64 `json:"block_hit_ratio"`
	HitBlocks     int64    `json:"hit_blocks"`
	RefBlocks     int64    `json:"ref_blocks"`
	// Queued is the queued TTFT (Options.Queue; absent otherwise).
	Queued *queue.Summary `json:"queued_ttft,omitempty"`
}

// idealJSON is what an infinite cache achieves on the trace; without the
// ideal figures (Ideal.None) all but the counts are null.
type idealJSON struct {
	Requests       int64              `json:"requests"`
	RefBlocks      int64              `json:"ref_blocks"`
	DistinctBlocks *int64             `json:"distinct_blocks"`
	BlockHitRatio  *float64           `json:"block_hit_ratio"`
	HitRatio       *float64           `json:"hit_ratio"`
	CapacityNeeded *int64             `json:"capacity_needed_tokens"`
	TELTokens      *float64           `json:"tel_tokens"`
	TELMs          *float64           `json:"tel_ms"`
	TTFTMs         map[string]float64 `json:"ttft_ms"`
}

// newIdealJSON returns the ideal figures of the report, in tokens of
// block tokens per block.
func newIdealJSON(ideal Ideal, block int64) idealJSON {
	j := idealJSON{Requests: ideal.Requests, RefBlocks: ideal.RefBlocks}
	if ideal.None {
		return j
	}
	im := ideal.Summary
	need := ideal.PeakLiveBlocks * block
	j.DistinctBlocks, j.CapacityNeeded = &ideal.Distinct, &need
	j.BlockHitRatio, j.HitRatio = report.Ratio(ideal.RefBlocks-ideal.Distinct, ideal.RefBlocks), report.Value(im.HitRatio)
	j.TELTokens, j.TELMs, j.TTFTMs = &im.TELTokens, &im.TELMs, sim.TTFTMs(im)
	return j
}

// idealTable is the report's table of the ideal figures; without them
// (Ideal.None) it shows the counts and no values.
func idealTable(ideal Ideal, block int64, trace string) report.Table {
	t := report.Table{
		Header: []string{"ideal block hit ratio", "ideal token hit ratio", "capacity needed (tokens)", "TEL (ms)", "mean TTFT (ms)", "P99 (ms)"},
	}
	if ideal.None {
		t.Title = fmt.Sprintf("%s: %d requests, %d block references of %d tokens; infinite cache not computed (--no-ideal)",
			trace, ideal.Requests, ideal.RefBlocks, block)
		none := report.CellNone("—")
		t.Add(none, none, none, none, none, none)
		return t
	}
	im := ideal.Summary
	t.Title = fmt.Sprintf("%s: %d requests, %d block references, %d distinct blocks of %d tokens; infinite cache",
		trace, ideal.Requests, ideal.RefBlocks, ideal.Distinct, block)
	t.Add(report.CellFV(report.Ratio(ideal.RefBlocks-ideal.Distinct, ideal.RefBlocks), 4), report.CellFV(report.Value(im.HitRatio), 4),
		report.CellI(ideal.PeakLiveBlocks*block), report.CellF(im.TELMs, 1), report.CellF(im.MeanTTFTMs, 2), report.CellF(im.P99, 2))
	return t
}

type reportJSON struct {
	Units    string         `json:"units"`
	Settings map[string]any `json:"settings"`
	Baseline string         `json:"baseline,omitempty"`
	Ideal    idealJSON      `json:"ideal"`
	Policies []policyJSON   `json:"policies"`
}

// Labels are what a report names besides the options: the trace and its
// format, the Q̂ given, the baseline policy ("" for none) and whether the
// runs sweep several capacities.
type Labels struct {
	Trace, TraceFormat, QHat, Baseline string
	Sweep                              bool
	// Settings are extra JSON settings (the studies' options when on).
	Settings map[string]any
}

// Report returns the JSON document and the tables of a block-level replay
// with options opt: the ideal (infinite-cache) figures, every run's and,
// with a baseline, each run's relative improvement over the baseline at the
// same capacity. A baseline that is not among results is an error.
func Report(results []Result, ideal Ideal, opt Options, l Labels) (any, []report.Table, error) {
	doc := reportJSON{
		Units: "lengths in tokens, times in ms, ratios in [0,1]; hit_ratio = cached tokens / input tokens; " +
			"history_hit_ratio = cached tokens / tokens an infinite cache hits; improvement = (baseline − policy)/baseline at the same capacity",
		Settings: map[string]any{"level": "block", "block_size_tokens": opt.BlockSize, "xi_tokens": opt.Xi,
			"xi_ms": opt.Model.XiMs(opt.Xi), "alpha_ms_per_token": opt.Model.AlphaMs, "beta_ms": opt.Model.BetaMs,
			"slo_ms": opt.SLOMs, "qhat": l.QHat, "trace": l.Trace, "trace_format": l.TraceFormat},
		Baseline: l.Baseline,
		Ideal:    newIdealJSON(ideal, opt.BlockSize),
	}
	if !l.Sweep && len(results) > 0 {
		doc.Settings["capacity_tokens"] = results[0].CapacityTokens
	}
	for k, v := range l.Settings {
		doc.Settings[k] = v
	}
	main := report.Table{
		Title: fmt.Sprintf("B=%d tokens, ξ=%.1f tokens (%.1f ms), α=%g ms/token, β=%g ms, SLO %g ms",
			opt.BlockSize, opt.Xi, opt.Model.XiMs(opt.Xi), opt.Model.AlphaMs, opt.Model.BetaMs, opt.SLOMs),
		Header: []string{"capacity (tokens)", "policy", "block hit ratio", "token hit ratio", "TEL (ms)", "mean TTFT (ms)",
			"P50 (ms)", "P90 (ms)", "P99 (ms)", "SLO viol.", "evictions (blocks)"},
	}
	impr := report.Table{Title: "relative improvement over " + l.Baseline + " at the same capacity: (baseline − policy)/baseline",
		Header: append([]string{"capacity (tokens)", "policy"}, sim.ImprovementHeader...)}
	base := map[int64]*Result{}
	for i := range results {
		if results[i].Name == l.Baseline {
			base[results[i].CapacityTokens] = &results[i]
		}
	}
	if l.Baseline != "" && len(base) == 0 {
		return nil, nil, fmt.Errorf("flag --baseline: policy %q is not among --policies", l.Baseline)
	}
	for _, r := range results {
		m := r.Summary
		pj := policyJSON{PolicyJSON: sim.NewPolicyJSON(r.Name, r.Requests, m, r.Evictions, r.Evictions*opt.BlockSize),
			CapacityTokens: r.CapacityTokens, Requests: r.Requests, BlockHitRatio: report.Ratio(r.HitBlocks, r.RefBlocks),
			HitBlocks: r.HitBlocks, RefBlocks: r.RefBlocks, Queued: r.Queued}
		main.Add(report.CellI(r.CapacityTokens), report.CellText(r.Name), report.CellFV(report.Ratio(r.HitBlocks, r.RefBlocks), 4),
			report.CellFV(report.Value(m.HitRatio), 4), report.CellF(m.TELMs, 1), report.CellF(m.MeanTTFTMs, 2), report.CellF(m.P50, 2),
			report.CellF(m.P90, 2), report.CellF(m.P99, 2), report.CellCount(m.Violations, m.ViolationPct), report.CellI(r.Evictions))
		if b := base[r.CapacityTokens]; b != nil {
			pj.Improvement = metrics.Improvements(b.Summary, m)
			impr.Add(append([]report.Cell{report.CellI(r.CapacityTokens), report.CellText(r.Name)}, sim.ImprovementRow(pj.Improvement)...)...)
		}
		doc.Policies = append(doc.Policies, pj)
	}
	tables := []report.Table{idealTable(ideal, opt.BlockSize, l.Trace), main}
	if l.Baseline != "" {
		tables = append(tables, impr)
	}
	if opt.Queue {
		tables = append(tables, QueuedTable(results))
	}
	return doc, tables, nil
}

// SavePlots draws the TTFT CDF of each policy (one capacity) to path or,
// for a sweep, block hit ratio to path and mean TTFT and TEL against
// capacity to path with "-ttft" and "-tel" before its extension; title
// names the trace.
func SavePlots(path, title string, results []Result, ideal Ideal, block int64, sweep bool) error {
	if !sweep {
		names := make([]string, len(results))
		accs := make([]*metrics.Accumulator, len(results))
		for i, r := range results {
			names[i], accs[i] = r.Name, r.Metrics
		}
		return sim.CDFFigure("TTFT tail, "+filepath.Base(title), "requests", names, accs).Save(path)
	}
	hit, ttft, tel := SweepFigures(results, ideal, block, filepath.Base(title))
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
