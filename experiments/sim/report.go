package sim

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
)

// PolicyJSON is one policy's result in simulate's JSON contract: lengths in
// tokens, times in ms, ratios in [0, 1].
type PolicyJSON struct {
	Name                 string             `json:"name"`
	Turns                int64              `json:"turns"`
	TELTokens            float64            `json:"tel_tokens"`
	TELMs                float64            `json:"tel_ms"`
	TTFTMs               map[string]float64 `json:"ttft_ms"`
	SLOViolations        int64              `json:"slo_violations"`
	SLOViolationFraction float64            `json:"slo_violation_fraction"`
	// HitRatio is cached / input tokens; null when no input tokens.
	HitRatio          *float64 `json:"hit_ratio"`
	HistoryHitRatio   *float64 `json:"history_hit_ratio"`
	MaxUncachedTokens int64    `json:"max_uncached_tokens"`
	Evictions         int64    `json:"evictions"`
	EvictedTokens     int64    `json:"evicted_tokens"`
	// Improvement is metrics.Improvements over the baseline (absent
	// without one).
	Improvement map[string]float64 `json:"improvement_vs_baseline,omitempty"`
}

// NewPolicyJSON returns the JSON of a policy named name that served turns
// turns (or requests) with summary m, evictions evictions and
// evictedTokens tokens evicted.
func NewPolicyJSON(name string, turns int64, m metrics.Summary, evictions, evictedTokens int64) PolicyJSON {
	pj := PolicyJSON{Name: name, Turns: turns, TELTokens: m.TELTokens, TELMs: m.TELMs,
		TTFTMs:        TTFTMs(m),
		SLOViolations: m.Violations, SLOViolationFraction: m.ViolationPct, HitRatio: report.Value(m.HitRatio),
		MaxUncachedTokens: m.MaxUncached, Evictions: evictions, EvictedTokens: evictedTokens}
	if !math.IsNaN(m.HistoryHit) {
		h := m.HistoryHit
		pj.HistoryHitRatio = &h
	}
	return pj
}

// TTFTMs returns the mean and the percentiles of m by name, ms.
func TTFTMs(m metrics.Summary) map[string]float64 {
	return map[string]float64{"mean": m.MeanTTFTMs, "p50": m.P50, "p90": m.P90, "p95": m.P95, "p99": m.P99}
}

// ImprovementHeader heads the cells of ImprovementCells.
var ImprovementHeader = []string{"TEL", "mean", "P50", "P90", "P95", "P99", "SLO viol."}

// ImprovementRow is imp (from metrics.Improvements) as table cells in the
// order of metrics.ImprovementKeys: each a percentage written to CSV as its
// fraction, "n/a (baseline 0)" (no value) where it has none.
func ImprovementRow(imp map[string]float64) []report.Cell {
	var row []report.Cell
	for _, k := range metrics.ImprovementKeys {
		if v, ok := imp[k]; ok {
			row = append(row, report.CellPct(v))
		} else {
			row = append(row, report.CellNone("n/a (baseline 0)"))
		}
	}
	return row
}

// ImprovementCells is the text of ImprovementRow(imp), for tables built
// from text.
func ImprovementCells(imp map[string]float64) []string {
	var row []string
	for _, c := range ImprovementRow(imp) {
		row = append(row, c.Text)
	}
	return row
}

// Labels are what a report names besides the settings: the trace, the Q̂
// and Threshold-LRU T given, and the baseline policy ("" for none).
type Labels struct {
	Trace     string
	QHat      string
	Threshold int64
	Baseline  string
}

// simJSON is simulate's JSON document.
type simJSON struct {
	Units    string         `json:"units"`
	Settings map[string]any `json:"settings"`
	Baseline string         `json:"baseline,omitempty"`
	Policies []PolicyJSON   `json:"policies"`
}

// Report returns the JSON document and the tables of a replay with settings
// s: every policy's figures and, with a baseline, each one's relative
// improvement over it. A baseline that is not among results is an error.
func Report(results []replay.Result, s Settings, l Labels) (any, []report.Table, error) {
	var base *replay.Result
	for i := range results {
		if results[i].Name == l.Baseline {
			base = &results[i]
		}
	}
	if l.Baseline != "" && base == nil {
		return nil, nil, fmt.Errorf("flag --baseline: policy %q is not among --policies", l.Baseline)
	}
	doc := simJSON{
		Units:    "lengths in tokens, times in ms, ratios in [0,1]; improvement = (baseline − policy)/baseline",
		Settings: settingsDoc(s, l, "capacity_tokens", s.Capacity),
		Baseline: l.Baseline,
	}
	main := report.Table{
		Title: fmt.Sprintf("%s: C=%d tokens, B=%d tokens, ξ=%.1f tokens (%.1f ms), α=%g ms/token, β=%g ms, SLO %g ms",
			l.Trace, s.Capacity, s.BlockSize, s.Xi, s.Model.XiMs(s.Xi), s.Model.AlphaMs, s.Model.BetaMs, s.SLOMs),
		Header: []string{"policy", "TEL (tokens)", "TEL (ms)", "mean TTFT (ms)", "P50 (ms)", "P90 (ms)", "P95 (ms)", "P99 (ms)",
			"SLO viol.", "hit ratio", "max uncached (tokens)", "evictions"},
	}
	impr := report.Table{Title: "relative improvement over " + l.Baseline + ": (baseline − policy)/baseline",
		Header: append([]string{"policy"}, ImprovementHeader...)}
	for _, r := range results {
		m := r.Summary
		pj := NewPolicyJSON(r.Name, m.Turns, m, r.Evictions, r.EvictedTokens)
		main.Add(report.CellText(r.Name), report.CellF(m.TELTokens, 1), report.CellF(m.TELMs, 1),
			report.CellF(m.MeanTTFTMs, 2), report.CellF(m.P50, 2), report.CellF(m.P90, 2), report.CellF(m.P95, 2), report.CellF(m.P99, 2),
			report.CellCount(m.Violations, m.ViolationPct), report.CellFV(report.Value(m.HitRatio), 4),
			report.CellI(m.MaxUncached), report.CellI(r.Evictions))
		if base != nil {
			pj.Improvement = metrics.Improvements(base.Summary, m)
			impr.Add(append([]report.Cell{report.CellText(r.Name)}, ImprovementRow(pj.Improvement)...)...)
		}
		doc.Policies = append(doc.Policies, pj)
	}
	if base == nil {
		return doc, []report.Table{main}, nil
	}
	return doc, []report.Table{main, impr}, nil
}

// CDFFigure draws the TTFT distribution of each named accumulator, to
// show its tail (plots.TailFigure), titled title (which names the trace
// and settings); unit names what they count ("turns", "requests").
func CDFFigure(title, unit string, names []string, accs []*metrics.Accumulator) plots.Figure {
	xs, cdfs := make([][]float64, len(accs)), make([][]float64, len(accs))
	for i, a := range accs {
		xs[i], cdfs[i] = a.CDF()
	}
	return plots.TailFigure(title, unit, names, xs, cdfs)
}

// settingsDoc is the "settings" object of a report: the instance, latency
// model and labels of s and l, with the capacity under key (one capacity
// in tokens, or the list of a sweep).
func settingsDoc(s Settings, l Labels, key string, capacity any) map[string]any {
	return map[string]any{key: capacity, "block_size_tokens": s.BlockSize,
		"xi_tokens": s.Xi, "xi_ms": s.Model.XiMs(s.Xi), "alpha_ms_per_token": s.Model.AlphaMs,
		"beta_ms": s.Model.BetaMs, "slo_ms": s.SLOMs, "forced": s.Forced, "qhat": l.QHat,
		"threshold_tokens": l.Threshold, "trace": l.Trace}
}
