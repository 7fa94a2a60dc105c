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
	f3 := func(x float64) report.Cell { return report.CellF(x, 3) }
	summary := report.Table{Title: "trace " + path,
		Header: []string{"requests", "span (s)", "block (tokens)", "block refs (blocks)", "distinct (blocks)",
			"ideal block hit ratio", "linked (requests)", "conversations", "shared prefix (blocks)"}}
	summary.Add(report.CellI(r.Requests), f3(r.SpanS), report.CellI(int64(r.BlockTokens)), report.CellI(r.RefBlocks),
		report.CellI(r.DistinctBlocks), report.CellFV(r.IdealHitRatio, 4), report.CellI(s.Linked), report.CellI(s.Conversations),
		report.CellI(int64(r.SharedPrefixBlocks)))
	c := r.Capacity
	capacity := report.Table{Title: "cache size for the ideal hit ratio (peak live blocks: used before and used again)",
		Header: []string{"peak live (blocks)", "peak live (tokens)", "peak live (GiB, " + model + ")", "after request", "at (s)", "mean live (blocks)"}}
	capacity.Add(report.CellI(c.PeakLiveBlocks), report.CellI(c.PeakLiveTokens), report.CellF(gib, 1), report.CellI(int64(c.PeakAfter)),
		f3(c.PeakTime), report.CellF(c.MeanLiveBlocks, 1))
	reuse := report.Table{Title: "reuse time by category of the previous use",
		Header: []string{"category", "uses (blocks)", "reuses (blocks)", "reuse fraction", "P10 (s)", "P25 (s)",
			"P50 (s)", "P75 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"}}
	for _, cat := range append(r.Categories, r.Overall) {
		q := cat.ReuseTime
		reuse.Add(report.CellText(cat.Name), report.CellI(cat.Uses), report.CellI(cat.Reuses),
			report.CellF(cat.ReuseFraction, 4), f3(q.P10), f3(q.P25), f3(q.P50), f3(q.P75), f3(q.P90), f3(q.P99), f3(q.Max), f3(q.Mean))
	}
	l := r.Lifespan
	life := report.Table{Title: "block lifespan (first to last use)",
		Header: []string{"blocks", "count (blocks)", "P50 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"}}
	life.Add(report.CellText("all"), report.CellI(l.Blocks), f3(l.All.P50), f3(l.All.P90), f3(l.All.P99), f3(l.All.Max), f3(l.All.Mean))
	life.Add(report.CellText("reused"), report.CellI(l.Reused), f3(l.ReusedSpan.P50), f3(l.ReusedSpan.P90), f3(l.ReusedSpan.P99),
		f3(l.ReusedSpan.Max), f3(l.ReusedSpan.Mean))
	hubs := report.Table{Title: "prefix hubs (blocks with the most distinct successors)",
		Header: []string{"depth (blocks)", "depth (tokens)", "fanout (blocks)", "requests", "hash id"}}
	for _, h := range r.Hubs {
		hubs.Add(report.CellI(int64(h.Depth)), report.CellI(h.DepthTokens), report.CellI(int64(h.Fanout)),
			report.CellI(h.Requests), report.CellI(h.Hash))
	}
	return []report.Table{summary, capacity, reuse, life, hubs}
}

func distRow(name string, d Dist) []report.Cell {
	f := func(x float64) report.Cell { return report.CellF(x, 1) }
	return []report.Cell{report.CellText(name), report.CellI(d.Count), f(d.Min), f(d.P10), f(d.P50), f(d.P90), f(d.P99), f(d.Max), f(d.Mean)}
}

var distHeader = []string{"count", "min", "P10", "P50", "P90", "P99", "max", "mean"}

// Tables lists the turn and token distributions as a table.
func (t *Turns) Tables() []report.Table {
	tb := report.Table{Title: fmt.Sprintf("turns and tokens (%d conversations, %d turns)", t.Conversations, t.Turns),
		Header: append([]string{"distribution"}, distHeader...)}
	for _, row := range [][]report.Cell{distRow("turns per conversation", t.PerConversation), distRow("prompt (tokens)", t.Prompt),
		distRow("response (tokens)", t.Response), distRow("history (tokens)", t.History), distRow("load H+p (tokens)", t.Load)} {
		tb.Add(row...)
	}
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
			t.Add(report.CellF(w.StartS, 0), report.CellI(w.Requests), report.CellF(w.RatePerS, 3),
				report.CellI(w.RefBlocks), report.CellI(w.HitBlocks), report.CellFV(w.HitRatio, 4))
		}
		out = append(out, t)
	}
	if len(r.Spatial) > 0 {
		t := report.Table{Title: "spatial locality: ideal block hit ratio when each request stores only [offset, offset+stride) of its chain",
			Header: []string{"offset \\ stride"}}
		for s := 1; s <= 10; s++ {
			t.Header = append(t.Header, report.F(float64(s)/10, 1))
		}
		// The grid is filled cell by cell; cells not measured stay empty.
		var grid [][]report.Cell
		for _, c := range r.Spatial {
			row := int(c.Offset*10 + 0.5)
			for len(grid) <= row {
				grid = append(grid, append([]report.Cell{report.CellF(float64(len(grid))/10, 1)}, make([]report.Cell, 10)...))
			}
			grid[row][int(c.Stride*10+0.5)] = report.CellFV(c.HitRatio, 4)
		}
		for _, row := range grid {
			t.Add(row...)
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
		Header: []string{"HBM (GiB)", "usable (GiB)", "weights (GiB)", "for KV (GiB)", "ideal cache peak (GiB)", "peak / KV HBM", "mean / KV HBM"}}
	inst.Add(report.CellF(b.Total/gib, 1), report.CellF(b.Usable/gib, 1), report.CellF(b.Weights/gib, 1), report.CellF(b.KV/gib, 1),
		report.CellF(k.PeakLiveBytes/gib, 2), report.CellF(k.PeakOverHBM, 3), report.CellF(k.MeanOverHBM, 3))
	// The shares are written in percent, as their columns say.
	pct := func(name string, d Dist) []report.Cell {
		f := func(x float64) report.Cell { return report.CellF(100*x, 3) }
		return []report.Cell{report.CellText(name), report.CellI(d.Count), f(d.P50), f(d.P90), f(d.P99), f(d.Max), f(d.Mean)}
	}
	per := report.Table{Title: "per-request KV cache (input + output tokens) as % of the HBM for KV cache",
		Header: []string{"requests", "count", "P50 (%)", "P90 (%)", "P99 (%)", "max (%)", "mean (%)"}}
	per.Add(pct("first turns", k.FirstTurnShare)...)
	per.Add(pct("follow-up turns", k.FollowUpShare)...)
	return []report.Table{inst, per}
}
