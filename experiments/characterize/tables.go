package characterize

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/importer"
)

// Tables returns the report of the trace at path as tables: the summary
// (with the importer's summary s), the capacity for the ideal hit ratio
// (gib GiB of KV cache of model), reuse times, lifespans and prefix hubs.
func (r *Report) Tables(path string, s importer.Summary, model string, gib float64) []report.Table {
	f3 := func(x float64) string { return report.F(x, 3) }
	summary := report.Table{Title: "trace " + path,
		Header: []string{"requests", "span (s)", "block (tokens)", "block refs (blocks)", "distinct (blocks)",
			"ideal block hit ratio", "linked (requests)", "conversations", "shared prefix (blocks)"},
		Rows: [][]string{{report.I(r.Requests), f3(r.SpanS), fmt.Sprint(r.BlockTokens), report.I(r.RefBlocks),
			report.I(r.DistinctBlocks), report.FV(r.IdealHitRatio, 4), report.I(s.Linked), report.I(s.Conversations),
			fmt.Sprint(r.SharedPrefixBlocks)}}}
	c := r.Capacity
	capacity := report.Table{Title: "cache size for the ideal hit ratio (peak live blocks: used before and used again)",
		Header: []string{"peak live (blocks)", "peak live (tokens)", "peak live (GiB, " + model + ")", "after request", "at (s)", "mean live (blocks)"},
		Rows: [][]string{{report.I(c.PeakLiveBlocks), report.I(c.PeakLiveTokens), report.F(gib, 1), fmt.Sprint(c.PeakAfter),
			f3(c.PeakTime), report.F(c.MeanLiveBlocks, 1)}}}
	reuse := report.Table{Title: "reuse time by category of the previous use",
		Header: []string{"category", "uses (blocks)", "reuses (blocks)", "reuse fraction", "P10 (s)", "P25 (s)",
			"P50 (s)", "P75 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"}}
	for _, cat := range append(r.Categories, r.Overall) {
		q := cat.ReuseTime
		reuse.Rows = append(reuse.Rows, []string{cat.Name, report.I(cat.Uses), report.I(cat.Reuses),
			report.F(cat.ReuseFraction, 4), f3(q.P10), f3(q.P25), f3(q.P50), f3(q.P75), f3(q.P90), f3(q.P99), f3(q.Max), f3(q.Mean)})
	}
	l := r.Lifespan
	life := report.Table{Title: "block lifespan (first to last use)",
		Header: []string{"blocks", "count (blocks)", "P50 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"},
		Rows: [][]string{
			{"all", report.I(l.Blocks), f3(l.All.P50), f3(l.All.P90), f3(l.All.P99), f3(l.All.Max), f3(l.All.Mean)},
			{"reused", report.I(l.Reused), f3(l.ReusedSpan.P50), f3(l.ReusedSpan.P90), f3(l.ReusedSpan.P99),
				f3(l.ReusedSpan.Max), f3(l.ReusedSpan.Mean)}}}
	hubs := report.Table{Title: "prefix hubs (blocks with the most distinct successors)",
		Header: []string{"depth (blocks)", "depth (tokens)", "fanout (blocks)", "requests", "hash id"}}
	for _, h := range r.Hubs {
		hubs.Rows = append(hubs.Rows, []string{fmt.Sprint(h.Depth), report.I(h.DepthTokens), fmt.Sprint(h.Fanout),
			report.I(h.Requests), fmt.Sprint(h.Hash)})
	}
	return []report.Table{summary, capacity, reuse, life, hubs}
}

func distRow(name string, d Dist) []string {
	f := func(x float64) string { return report.F(x, 1) }
	return []string{name, report.I(d.Count), f(d.Min), f(d.P10), f(d.P50), f(d.P90), f(d.P99), f(d.Max), f(d.Mean)}
}

var distHeader = []string{"count", "min", "P10", "P50", "P90", "P99", "max", "mean"}

// Tables lists the turn and token distributions as a table.
func (t *Turns) Tables() []report.Table {
	tb := report.Table{Title: fmt.Sprintf("turns and tokens (%d conversations, %d turns)", t.Conversations, t.Turns),
		Header: append([]string{"distribution"}, distHeader...)}
	tb.Rows = [][]string{distRow("turns per conversation", t.PerConversation), distRow("prompt (tokens)", t.Prompt),
		distRow("response (tokens)", t.Response), distRow("history (tokens)", t.History), distRow("load H+p (tokens)", t.Load)}
	return []report.Table{tb}
}

// StudyTables lists the optional sections that are on: the time series
// and the spatial-locality grid (rows offsets, columns strides).
func (r *Report) StudyTables() []report.Table {
	var out []report.Table
	if len(r.Series) > 0 {
		t := report.Table{Title: fmt.Sprintf("time series (%g s windows; ideal = infinite cache)", r.WindowS),
			Header: []string{"start (s)", "requests", "rate (req/s)", "ref (blocks)", "hit (blocks)", "ideal hit ratio"}}
		for _, w := range r.Series {
			t.Rows = append(t.Rows, []string{report.F(w.StartS, 0), report.I(w.Requests), report.F(w.RatePerS, 3),
				report.I(w.RefBlocks), report.I(w.HitBlocks), report.FV(w.HitRatio, 4)})
		}
		out = append(out, t)
	}
	if len(r.Spatial) > 0 {
		t := report.Table{Title: "spatial locality: ideal block hit ratio when each request stores only [offset, offset+stride) of its chain",
			Header: []string{"offset \\ stride"}}
		for s := 1; s <= 10; s++ {
			t.Header = append(t.Header, report.F(float64(s)/10, 1))
		}
		for _, c := range r.Spatial {
			row := int(c.Offset*10 + 0.5)
			for len(t.Rows) <= row {
				t.Rows = append(t.Rows, append([]string{report.F(float64(len(t.Rows))/10, 1)}, make([]string, 10)...))
			}
			t.Rows[row][int(c.Stride*10+0.5)] = report.FV(c.HitRatio, 4)
		}
		out = append(out, t)
	}
	return out
}

// Tables lists the KV sizes and the ideal cache relative to HBM.
func (k KV) Tables() []report.Table {
	const gib = 1 << 30
	b := k.Budget
	inst := report.Table{Title: fmt.Sprintf("KV cache of %s (%.0f bytes per token) on %d GPU(s) relative to HBM", k.Model, k.BytesPerToken, b.GPUs),
		Header: []string{"HBM (GiB)", "usable (GiB)", "weights (GiB)", "for KV (GiB)", "ideal cache peak (GiB)", "peak / KV HBM", "mean / KV HBM"},
		Rows: [][]string{{report.F(b.Total/gib, 1), report.F(b.Usable/gib, 1), report.F(b.Weights/gib, 1), report.F(b.KV/gib, 1),
			report.F(k.PeakLiveBytes/gib, 2), report.F(k.PeakOverHBM, 3), report.F(k.MeanOverHBM, 3)}}}
	pct := func(d Dist) []string {
		f := func(x float64) string { return report.F(100*x, 3) }
		return []string{report.I(d.Count), f(d.P50), f(d.P90), f(d.P99), f(d.Max), f(d.Mean)}
	}
	per := report.Table{Title: "per-request KV cache (input + output tokens) as % of the HBM for KV cache",
		Header: []string{"requests", "count", "P50 (%)", "P90 (%)", "P99 (%)", "max (%)", "mean (%)"},
		Rows: [][]string{append([]string{"first turns"}, pct(k.FirstTurnShare)...),
			append([]string{"follow-up turns"}, pct(k.FollowUpShare)...)}}
	return []report.Table{inst, per}
}
