// Package tables regenerates the tables of the tail-latency paper on any
// trace: for each threshold ξ_s it replays the paper's policies and reports
// the relative improvements the paper tabulates.
package tables

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// paperPolicies are the policies of the paper's tables and Figure 5.
const paperPolicies = "lru,threshold-lru,tlru,end-aware-tlru,length-aware-tlru,to-belady"

// Row is one threshold's results.
type Row struct {
	XiMs    float64          `json:"xi_ms"`
	Results []replay.Result  `json:"-"`
	Summary map[string]Stats `json:"policies"`
}

// Stats are the per-policy numbers a row reports (ms, counts).
type Stats struct {
	P50, P90, P95, P99 float64 // TTFT, ms
	MeanMs             float64 // ms
	TELMs              float64 // ms
	Violations         int64   // turns with TTFT > SLO
}

// TailLatency replays tr under the paper's policies at each threshold
// xiMs (ms); s carries the capacity, block size, latency model and SLO
// (its Xi is overwritten).
func TailLatency(tr *trace.Trace, xisMs []float64, s sim.Settings) ([]Row, error) {
	entries, err := policies.Parse(paperPolicies)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, x := range xisMs {
		s.Xi = s.Model.XiTokens(x)
		res, err := sim.Trace(tr, entries, s)
		if err != nil {
			return nil, fmt.Errorf("ξ_s = %v ms: %w", x, err)
		}
		row := Row{XiMs: x, Results: res, Summary: map[string]Stats{}}
		for _, r := range res {
			m := r.Summary
			row.Summary[r.Name] = Stats{P50: m.P50, P90: m.P90, P95: m.P95, P99: m.P99, MeanMs: m.MeanTTFTMs, TELMs: m.TELMs, Violations: m.Violations}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// improvement is metrics.Improvement of v over base as a percentage
// cell ("n/a", no value, when base is 0).
func improvement(base, v float64) report.Cell {
	x, ok := metrics.Improvement(base, v)
	if !ok {
		return report.CellNone("n/a")
	}
	return report.CellPct(x)
}

// Tables renders the paper's Tables 1–3 (T-LRU against LRU, against
// Threshold-LRU, SLO violations) and the Figure 5 percentiles of every
// policy, one row per threshold.
func Tables(rows []Row, sloMs float64) []report.Table {
	pct := []string{"P50", "P90", "P95", "P99"}
	vs := func(base, title string) report.Table {
		t := report.Table{Title: title, Header: append([]string{"ξ_s (ms)"}, pct...)}
		for _, r := range rows {
			b, q := r.Summary[base], r.Summary["tlru"]
			t.Add(report.CellF(r.XiMs, 0), improvement(b.P50, q.P50), improvement(b.P90, q.P90),
				improvement(b.P95, q.P95), improvement(b.P99, q.P99))
		}
		return t
	}
	t3 := report.Table{Title: fmt.Sprintf("Table 3: reduction of requests with TTFT > %g ms, T-LRU against", sloMs),
		Header: []string{"ξ_s (ms)", "LRU", "Threshold-LRU"}}
	fig := report.Table{Title: "Figure 5: TTFT percentiles (ms) and TEL (ms) of every policy",
		Header: []string{"ξ_s (ms)", "policy", "P50", "P90", "P95", "P99", "mean", "TEL"}}
	for _, r := range rows {
		q := r.Summary["tlru"]
		t3.Add(report.CellF(r.XiMs, 0),
			improvement(float64(r.Summary["lru"].Violations), float64(q.Violations)),
			improvement(float64(r.Summary["threshold-lru"].Violations), float64(q.Violations)))
		for _, res := range r.Results {
			s := r.Summary[res.Name]
			fig.Add(report.CellF(r.XiMs, 0), report.CellText(res.Name), report.CellF(s.P50, 1), report.CellF(s.P90, 1),
				report.CellF(s.P95, 1), report.CellF(s.P99, 1), report.CellF(s.MeanMs, 1), report.CellF(s.TELMs, 0))
		}
	}
	return []report.Table{
		vs("lru", "Table 1: relative TTFT improvement of T-LRU over LRU, (LRU − T-LRU)/LRU"),
		vs("threshold-lru", "Table 2: relative TTFT improvement of T-LRU over Threshold-LRU"),
		t3, fig,
	}
}
