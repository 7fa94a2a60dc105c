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
			report.I(r.DistinctBlocks), report.F(r.IdealHitRatio, 4), report.I(s.Linked), report.I(s.Conversations),
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
