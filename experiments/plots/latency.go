package plots

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/latency"
)

// LatencyFit is the tail-latency paper's Figure 3 for measured points:
// TTFT against uncached tokens, the points as markers and the fitted line
// TTFT = β + α·b over their range.
func LatencyFit(pts []latency.Point, m latency.Model, title string) Figure {
	f := Figure{Title: title, XLabel: "uncached tokens b (tokens)", YLabel: "TTFT (ms)", LegendBottom: true}
	var xs, ys []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		xs, ys = append(xs, p.Uncached), append(ys, p.TTFTMs)
		lo, hi = math.Min(lo, p.Uncached), math.Max(hi, p.Uncached)
	}
	f.Series = append(f.Series, Series{Name: "measured", X: xs, Y: ys, Scatter: true})
	if len(pts) > 0 {
		f.Series = append(f.Series, Series{Name: fmt.Sprintf("fit: %.3g + %.3g·b ms", m.BetaMs, m.AlphaMs),
			X: []float64{lo, hi}, Y: []float64{m.TTFTMs(lo), m.TTFTMs(hi)}})
	}
	return f
}
