package characterize

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
)

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
				report.I(w.RefBlocks), report.I(w.HitBlocks), report.F(w.HitRatio, 4)})
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
			t.Rows[row][int(c.Stride*10+0.5)] = report.F(c.HitRatio, 4)
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
