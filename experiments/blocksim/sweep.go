package blocksim

import (
	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// SweepRuns returns one run per capacity (tokens) and policy, capacities
// outermost, so that a single Replay measures a whole capacity sweep over
// one read of the trace.
func SweepRuns(entries []prefixcache.Entry, capacities []int64) []Run {
	var runs []Run
	for _, c := range capacities {
		for _, e := range entries {
			runs = append(runs, Run{Name: e.Name, New: e.New, Capacity: c})
		}
	}
	return runs
}

// Curve returns one series per policy (in order of first appearance in
// results) of metric against capacity in tokens.
func Curve(results []Result, metric func(Result) float64) []plots.Series {
	var out []plots.Series
	at := map[string]int{}
	for _, r := range results {
		i, ok := at[r.Name]
		if !ok {
			i = len(out)
			at[r.Name] = i
			out = append(out, plots.Series{Name: r.Name})
		}
		out[i].X = append(out[i].X, float64(r.CapacityTokens))
		out[i].Y = append(out[i].Y, metric(r))
	}
	return out
}

// SweepFigures returns the figures of a capacity sweep: block hit ratio,
// mean TTFT and TEL against capacity (on a log axis when the capacities
// span two octaves or more), each with the ideal
// (infinite-cache) level as a flat grey band and, on the hit-ratio figure, the
// capacity the ideal needs as a marker.
func SweepFigures(results []Result, ideal Ideal, blockTokens int64, title string) (hit, ttft, tel plots.Figure) {
	lo, hi := 0.0, 0.0
	for i, r := range results {
		x := float64(r.CapacityTokens)
		if i == 0 || x < lo {
			lo = x
		}
		hi = max(hi, x)
	}
	logX := lo > 0 && hi >= 4*lo // capacities spread over octaves read best on a log axis
	// the ideal is a bound every policy's curve approaches, drawn as the
	// grey reference band, not as one more policy
	flat := func(y float64) []plots.Band {
		return []plots.Band{{Name: "ideal (∞ cache)", X: []float64{lo, hi}, Lo: []float64{y, y}, Hi: []float64{y, y}}}
	}
	hit = plots.Figure{Title: title + ": block hit ratio", XLabel: "capacity (tokens)", YLabel: "block hit ratio", LegendBottom: true, LogX: logX,
		Series: Curve(results, func(r Result) float64 { return r.BlockHitRatio }), Bands: flat(ideal.BlockHitRatio),
		Markers: []plots.Marker{{Name: "capacity for the ideal", X: float64(ideal.PeakLiveBlocks * blockTokens)}}}
	ttft = plots.Figure{Title: title + ": mean TTFT", XLabel: "capacity (tokens)", YLabel: "mean TTFT (ms)", LogX: logX,
		Series: Curve(results, func(r Result) float64 { return r.Summary.MeanTTFTMs }), Bands: flat(ideal.Summary.MeanTTFTMs)}
	tel = plots.Figure{Title: title + ": tail excess latency", XLabel: "capacity (tokens)", YLabel: "TEL (s)", LogX: logX,
		Series: Curve(results, func(r Result) float64 { return r.Summary.TELMs / 1000 }), Bands: flat(ideal.Summary.TELMs / 1000)}
	return hit, ttft, tel
}
