package suite

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/importer"
)

// The block-policies suite's characterize points (analysis=characterize)
// run the workload study's analyses (seed 000, §3; experiments/characterize)
// on a Mooncake trace at its native hashes. Their records, by key:
//
//   - charSummary: requests, span_s, block_tokens, ref_blocks,
//     distinct_blocks, ideal_hit, peak_live_blocks, peak_live_tokens,
//     peak_after, peak_time_s, mean_live_blocks, and the lifespan
//     quantiles of all blocks (life_*) and of reused ones (reused_*);
//   - charReuse+category (then +"all"): uses, reuses, reuse_fraction and
//     the reuse-time quantiles (seconds);
//   - charWindow: one per window: start_s, requests, rate, ref_blocks,
//     hit_blocks, hit_ratio;
//   - charCDF+"reuse:"+name, charCDF+"lifespan:"+name and
//     charCDF+"live:"+name: one per drawn point (x, y), the points of
//     characterize's figures (characterize.FigureData; peak_at_s in the
//     summary marks the live-cache peak).
const (
	charSummary = "characterize"
	charReuse   = "characterize:reuse:"
	charWindow  = "characterize:window"
	charCDF     = "characterize:cdf:"
)

// charAnalysis is the grid-point field value of a characterize point.
const charAnalysis = "characterize"

func charOptions(env *Env) (characterize.Options, error) {
	w, err := floatParam(env, "window-s")
	if err != nil {
		return characterize.Options{}, err
	}
	if !(w >= 0) {
		return characterize.Options{}, fmt.Errorf("flag --window-s: %g must be ≥ 0 (0: no time series)", w)
	}
	return characterize.Options{WindowS: w}, nil
}

// quantileValues adds the quantiles q under prefix to v.
func quantileValues(v map[string]Num, prefix string, q characterize.Quantiles) {
	for _, e := range []struct {
		n string
		x float64
	}{{"p10", q.P10}, {"p25", q.P25}, {"p50", q.P50}, {"p75", q.P75}, {"p90", q.P90}, {"p99", q.P99}, {"max", q.Max}, {"mean", q.Mean}} {
		v[prefix+e.n] = Num(e.x)
	}
}

// charRecords turns a characterize report into the point's records.
func charRecords(rep *characterize.Report) []Record {
	sum := map[string]Num{"requests": Num(rep.Requests), "span_s": Num(rep.SpanS), "block_tokens": Num(rep.BlockTokens),
		"ref_blocks": Num(rep.RefBlocks), "distinct_blocks": Num(rep.DistinctBlocks), "ideal_hit": numOf(rep.IdealHitRatio),
		"peak_live_blocks": Num(rep.Capacity.PeakLiveBlocks), "peak_live_tokens": Num(rep.Capacity.PeakLiveTokens),
		"peak_after": Num(rep.Capacity.PeakAfter), "peak_time_s": Num(rep.Capacity.PeakTime),
		"mean_live_blocks": Num(rep.Capacity.MeanLiveBlocks), "window_s": Num(rep.WindowS),
		"blocks": Num(rep.Lifespan.Blocks), "reused_blocks": Num(rep.Lifespan.Reused)}
	d := rep.FigureData()
	sum["peak_at_s"] = Num(d.PeakS)
	quantileValues(sum, "life_", rep.Lifespan.All)
	quantileValues(sum, "reused_", rep.Lifespan.ReusedSpan)
	recs := []Record{{Key: charSummary, Values: sum}}
	for _, c := range append(append([]characterize.Category{}, rep.Categories...), rep.Overall) {
		v := map[string]Num{"uses": Num(c.Uses), "reuses": Num(c.Reuses), "reuse_fraction": Num(c.ReuseFraction)}
		quantileValues(v, "", c.ReuseTime)
		recs = append(recs, Record{Key: charReuse + c.Name, Values: v})
	}
	for _, w := range rep.Series {
		recs = append(recs, Record{Key: charWindow, Values: map[string]Num{"start_s": Num(w.StartS), "requests": Num(w.Requests),
			"rate": Num(w.RatePerS), "ref_blocks": Num(w.RefBlocks), "hit_blocks": Num(w.HitBlocks), "hit_ratio": numOf(w.HitRatio)}})
	}
	for _, g := range []struct {
		kind string
		cdfs []characterize.CDF
	}{{"reuse:", d.Reuse}, {"lifespan:", d.Lifespan}, {"live:", []characterize.CDF{d.Live}}} {
		for _, c := range g.cdfs {
			for i := range c.X {
				recs = append(recs, Record{Key: charCDF + g.kind + c.Name, Values: map[string]Num{"x": Num(c.X[i]), "y": Num(c.Y[i])}})
			}
		}
	}
	return recs
}

// charEval characterizes Mooncake trace p["trace"] (import mooncake,
// default options: its native 512-token hashes).
func charEval(env *Env, p Point) ([]Record, error) {
	opt, err := charOptions(env)
	if err != nil {
		return nil, err
	}
	path, err := mooncakePath(env, p["trace"])
	if err != nil {
		return nil, err
	}
	src, c, err := importer.Open(path, "mooncake", importer.DefaultOptions())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rep, err := characterize.RunSource(src, path, opt)
	if err != nil {
		return nil, err
	}
	return charRecords(rep), nil
}

// charFigureData rebuilds the drawn points from a point's records.
func charFigureData(recs []Record) characterize.FigureData {
	var d characterize.FigureData
	add := func(list []characterize.CDF, name string, r Record) []characterize.CDF {
		if n := len(list); n == 0 || list[n-1].Name != name {
			list = append(list, characterize.CDF{Name: name})
		}
		c := &list[len(list)-1]
		c.X, c.Y = append(c.X, r.V("x")), append(c.Y, r.V("y"))
		return list
	}
	for _, r := range recs {
		switch {
		case r.Key == charSummary:
			d.WindowS, d.PeakS = r.V("window_s"), r.V("peak_at_s")
		case r.Key == charWindow:
			d.Series = append(d.Series, characterize.Window{StartS: r.V("start_s"), Requests: int64(r.V("requests")), RatePerS: r.V("rate"),
				RefBlocks: int64(r.V("ref_blocks")), HitBlocks: int64(r.V("hit_blocks")), HitRatio: report.Value(r.V("hit_ratio"))})
		case strings.HasPrefix(r.Key, charCDF+"reuse:"):
			d.Reuse = add(d.Reuse, strings.TrimPrefix(r.Key, charCDF+"reuse:"), r)
		case strings.HasPrefix(r.Key, charCDF+"live:"):
			d.Live.Name = strings.TrimPrefix(r.Key, charCDF+"live:")
			d.Live.X, d.Live.Y = append(d.Live.X, r.V("x")), append(d.Live.Y, r.V("y"))
		case strings.HasPrefix(r.Key, charCDF+"lifespan:"):
			d.Lifespan = add(d.Lifespan, strings.TrimPrefix(r.Key, charCDF+"lifespan:"), r)
		}
	}
	return d
}

// charFigures draws a characterize point with characterize's figures:
// reuse-time CDF per category, block lifespan CDF, the cache an ideal
// policy keeps over time (its peak is the capacity for the ideal hit
// ratio), request rate and ideal hit ratio per window.
func charFigures(p Point, recs []Record) []NamedFigure {
	label := "Mooncake " + p["trace"] + " trace"
	figs, names := charFigureData(recs).Figures(label)
	var out []NamedFigure
	for i, f := range figs {
		stem := p["trace"] + "-characterize" + strings.TrimSuffix(strings.TrimPrefix(names[i], label), ".svg")
		out = append(out, NamedFigure{stem, f})
	}
	return out
}

// charTables lays out a characterize point: the summary (ideal hit ratio,
// capacity for it, lifespans), reuse time per category and the time
// series.
func charTables(p Point, recs []Record) []report.Table {
	var sum Record
	var cats, wins []Record
	for _, r := range recs {
		switch {
		case r.Key == charSummary:
			sum = r
		case strings.HasPrefix(r.Key, charReuse):
			cats = append(cats, r)
		case r.Key == charWindow:
			wins = append(wins, r)
		}
	}
	name := "Mooncake " + p["trace"] + " trace"
	s := report.Table{Title: name + ", native 512-token hashes: characterization (workload study §3; ideal = infinite cache)",
		Header: []string{"measure", "value"}}
	// Values that join several numbers ("a / b") stay text.
	for _, e := range []struct {
		n string
		v report.Cell
	}{
		{"requests", report.CellI(int64(sum.V("requests")))},
		{"span (s)", report.CellF(sum.V("span_s"), 1)},
		{"block references", report.CellI(int64(sum.V("ref_blocks")))},
		{"distinct blocks", report.CellI(int64(sum.V("distinct_blocks")))},
		{"ideal block hit ratio", report.CellF(sum.V("ideal_hit"), 4)},
		{"capacity for the ideal hit ratio (blocks)", report.CellI(int64(sum.V("peak_live_blocks")))},
		{"capacity for the ideal hit ratio (tokens)", report.CellI(int64(sum.V("peak_live_tokens")))},
		{"peak reached after request (0-based) / at (s)", report.CellText(report.I(int64(sum.V("peak_after"))) + " / " + report.F(sum.V("peak_time_s"), 1))},
		{"mean live blocks", report.CellF(sum.V("mean_live_blocks"), 1)},
		{"reused blocks / blocks", report.CellText(report.I(int64(sum.V("reused_blocks"))) + " / " + report.I(int64(sum.V("blocks"))))},
		{"lifespan of reused blocks p50 / p90 / p99 / mean (s)", report.CellText(fmt.Sprintf("%s / %s / %s / %s", report.F(sum.V("reused_p50"), 1),
			report.F(sum.V("reused_p90"), 1), report.F(sum.V("reused_p99"), 1), report.F(sum.V("reused_mean"), 1)))},
		{"lifespan of all blocks p50 / p90 / p99 / mean (s)", report.CellText(fmt.Sprintf("%s / %s / %s / %s", report.F(sum.V("life_p50"), 1),
			report.F(sum.V("life_p90"), 1), report.F(sum.V("life_p99"), 1), report.F(sum.V("life_mean"), 1)))},
	} {
		s.Add(report.CellText(e.n), e.v)
	}
	c := report.Table{Title: name + ": reuse time by category (the category of a reuse is its block's previous use)",
		Header: []string{"category", "uses (blocks)", "reuses", "reuse fraction", "p10 (s)", "p50 (s)", "p90 (s)", "p99 (s)", "mean (s)"}}
	for _, r := range cats {
		c.Add(report.CellText(strings.TrimPrefix(r.Key, charReuse)), report.CellI(int64(r.V("uses"))), report.CellI(int64(r.V("reuses"))),
			report.CellF(r.V("reuse_fraction"), 4), report.CellF(r.V("p10"), 1), report.CellF(r.V("p50"), 1), report.CellF(r.V("p90"), 1),
			report.CellF(r.V("p99"), 1), report.CellF(r.V("mean"), 1))
	}
	out := []report.Table{s, c}
	if len(wins) > 0 {
		w := report.Table{Title: name + ": request rate and ideal block hit ratio per " + strconv.FormatFloat(sum.V("window_s"), 'g', -1, 64) + " s window",
			Header: []string{"window start (s)", "requests", "rate (req/s)", "block references", "ideal hit ratio"}}
		for _, r := range wins {
			w.Add(report.CellF(r.V("start_s"), 0), report.CellI(int64(r.V("requests"))), report.CellF(r.V("rate"), 3),
				report.CellI(int64(r.V("ref_blocks"))), report.CellF(r.V("hit_ratio"), 4))
		}
		out = append(out, w)
	}
	return out
}

// numOf is *x as a Num, NaN where there is no value (nil): the record keeps
// it, and reading it back gives nil again (report.Value).
func numOf(x *float64) Num {
	if x == nil {
		return Num(math.NaN())
	}
	return Num(*x)
}
