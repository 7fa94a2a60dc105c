package characterize

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/tailbound/tailbound/experiments/plots"
)

// MinPlotSeconds is where CDF plots on a log time axis draw smaller values
// (0 s reuse times of requests that arrive in the same millisecond).
const MinPlotSeconds = 1e-3

// cdfPoints returns at most n points (x, F(x)) of the empirical CDF of the
// sorted sample x, with x clamped below at MinPlotSeconds.
func cdfPoints(x []float64, n int) ([]float64, []float64) {
	return cdfPointsFloor(x, n, MinPlotSeconds)
}

// cdfPointsFloor is cdfPoints with x clamped below at floor.
func cdfPointsFloor(x []float64, n int, floor float64) ([]float64, []float64) {
	if len(x) == 0 {
		return nil, nil
	}
	step := max(1, len(x)/n)
	var xs, ys []float64
	for i := step - 1; i < len(x); i += step {
		xs = append(xs, math.Max(x[i], floor))
		ys = append(ys, float64(i+1)/float64(len(x)))
	}
	if ys[len(ys)-1] != 1 {
		xs = append(xs, math.Max(x[len(x)-1], floor))
		ys = append(ys, 1)
	}
	return xs, ys
}

// CDF is a named empirical CDF as drawn: points (X, F(X)).
type CDF struct {
	Name string
	X, Y []float64
}

// FigureData is what the report's figures draw: the reuse-time CDF of
// each category with reuses (then "all"), the lifespan CDFs of all and of
// reused blocks (seconds, at most 400 points each, below MinPlotSeconds
// drawn at it), the time series and the spatial-locality grid. It is
// small enough to store where the report's samples are not.
type FigureData struct {
	Reuse, Lifespan []CDF
	// Live is the cache an ideal policy keeps (live blocks × block size,
	// tokens) against time (seconds after the first arrival), at most 400
	// points, each the largest of its stretch of requests so the peak is
	// kept; PeakS marks when the peak (Capacity) is first reached.
	Live  CDF
	PeakS float64
	// WindowS and Series are Report.WindowS and Report.Series.
	WindowS float64
	Series  []Window
	Spatial []SpatialCell
}

// FigureData returns the points the report's figures draw.
func (r *Report) FigureData() FigureData {
	d := FigureData{WindowS: r.WindowS, Series: r.Series, Spatial: r.Spatial}
	d.Live = livePoints(r.Capacity.LiveTimes, r.Capacity.LiveBlocks, float64(r.BlockTokens), 400)
	if n := len(r.Capacity.LiveTimes); n > 0 {
		d.PeakS = r.Capacity.LiveTimes[r.Capacity.PeakAfter]
	}
	for _, c := range append(r.Categories, r.Overall) {
		if len(c.Samples) == 0 {
			continue
		}
		xs, ys := cdfPoints(c.Samples, 400)
		d.Reuse = append(d.Reuse, CDF{c.Name, xs, ys})
	}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"all blocks", r.Lifespan.AllSamples}, {"reused blocks", r.Lifespan.ReusedSamples}} {
		if len(s.x) > 0 {
			xs, ys := cdfPoints(s.x, 400)
			d.Lifespan = append(d.Lifespan, CDF{s.name, xs, ys})
		}
	}
	return d
}

// livePoints thins (t, live) to at most n points, each the largest live
// count of its stretch of requests (at that request's time), in tokens.
func livePoints(t, live []float64, block float64, n int) CDF {
	c := CDF{Name: "live blocks × block size"}
	step := max(1, (len(t)+n-1)/n)
	for i := 0; i < len(t); i += step {
		k := i
		for j := i; j < min(i+step, len(t)); j++ {
			if live[j] > live[k] {
				k = j
			}
		}
		c.X, c.Y = append(c.X, t[k]), append(c.Y, live[k]*block)
	}
	return c
}

// Figures returns the figures of d titled after label, with their file
// names: the reuse-time CDF of each category (label-reuse.svg), the block
// lifespan CDF (label-lifespan.svg), the cache an ideal policy keeps
// over time with its peak, the capacity for the ideal hit ratio
// (label-capacity.svg), and when present the request rate
// and ideal hit ratio per window (label-rate.svg, label-hitratio.svg) and
// the spatial locality (label-spatial.svg). Figures without series are
// left out.
func (d FigureData) Figures(label string) ([]plots.Figure, []string) {
	reuse := plots.Figure{Title: label + ": reuse time by category", XLabel: "reuse time (s, log; < 1 ms drawn at 1 ms)",
		YLabel: "CDF of reuse events", LogX: true, LegendBottom: true}
	for _, c := range d.Reuse {
		reuse.Series = append(reuse.Series, plots.Series{Name: c.Name, X: c.X, Y: c.Y})
	}
	life := plots.Figure{Title: label + ": block lifespan (first to last use)", XLabel: "lifespan (s, log; < 1 ms drawn at 1 ms)",
		YLabel: "CDF of blocks", LogX: true, LegendBottom: true}
	for _, c := range d.Lifespan {
		life.Series = append(life.Series, plots.Series{Name: c.Name, X: c.X, Y: c.Y})
	}
	capf := plots.Figure{Title: label + ": cache an ideal policy keeps (live blocks)", XLabel: "time after the first arrival (s)",
		YLabel: "live KV cache (tokens)", LegendBottom: true}
	if len(d.Live.X) > 0 {
		capf.Series = []plots.Series{{Name: d.Live.Name, X: d.Live.X, Y: d.Live.Y}}
		capf.Markers = []plots.Marker{{Name: "peak: capacity for the ideal hit ratio", X: d.PeakS}}
	}
	figs := []plots.Figure{reuse, life, capf}
	names := []string{label + "-reuse.svg", label + "-lifespan.svg", label + "-capacity.svg"}
	if len(d.Series) > 0 {
		rate := plots.Figure{Title: fmt.Sprintf("%s: request rate (%g s windows)", label, d.WindowS), XLabel: "time (s)", YLabel: "requests per second"}
		hit := plots.Figure{Title: fmt.Sprintf("%s: ideal block hit ratio (%g s windows)", label, d.WindowS), XLabel: "time (s)", YLabel: "block hit ratio (infinite cache)"}
		var xs, rs, hs []float64
		for _, w := range d.Series {
			xs, rs, hs = append(xs, w.StartS), append(rs, w.RatePerS), append(hs, w.HitRatio)
		}
		rate.Series = []plots.Series{{Name: "rate", X: xs, Y: rs}}
		hit.Series = []plots.Series{{Name: "ideal hit ratio", X: xs, Y: hs}}
		figs, names = append(figs, rate, hit), append(names, label+"-rate.svg", label+"-hitratio.svg")
	}
	if len(d.Spatial) > 0 {
		sp := plots.Figure{Title: label + ": spatial locality", XLabel: "stride (share of each request's chain stored)",
			YLabel: "ideal block hit ratio", LegendBottom: true}
		for _, c := range d.Spatial {
			name := fmt.Sprintf("offset %g", c.Offset)
			if n := len(sp.Series); n == 0 || sp.Series[n-1].Name != name {
				sp.Series = append(sp.Series, plots.Series{Name: name})
			}
			s := &sp.Series[len(sp.Series)-1]
			s.X, s.Y = append(s.X, c.Stride), append(s.Y, c.HitRatio)
		}
		figs, names = append(figs, sp), append(names, label+"-spatial.svg")
	}
	var keptF []plots.Figure
	var keptN []string
	for i, f := range figs {
		if len(f.Series) > 0 {
			keptF, keptN = append(keptF, f), append(keptN, names[i])
		}
	}
	return keptF, keptN
}

// Plot writes the report's figures (FigureData.Figures) into dir, named
// after label, and returns the files written.
func (r *Report) Plot(dir, label string) ([]string, error) {
	figs, names := r.FigureData().Figures(label)
	return saveFigures(dir, figs, names)
}

// Plot writes the per-request KV sizes as shares of the instance's KV HBM
// (the study's Figure 21, as CDFs) into dir as label-kvsize.svg and
// returns the files written.
func (k KV) Plot(dir, label string, r *Report) ([]string, error) {
	f := plots.Figure{Title: fmt.Sprintf("%s: per-request KV cache (%s, %d GPU)", label, k.Model, k.Budget.GPUs),
		XLabel: "KV size / HBM for KV cache (log)", YLabel: "CDF of requests", LogX: true, LegendBottom: true}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"first turns", r.FirstTurnTokens}, {"follow-up turns", r.FollowUpTokens}} {
		sh := make([]float64, len(s.x))
		for i, v := range s.x {
			sh[i] = v * k.BytesPerToken / k.Budget.KV
		}
		sort.Float64s(sh)
		if xs, ys := cdfPointsFloor(sh, 400, 1e-6); len(xs) > 0 {
			f.Series = append(f.Series, plots.Series{Name: s.name, X: xs, Y: ys})
		}
	}
	return saveFigures(dir, []plots.Figure{f}, []string{label + "-kvsize.svg"})
}

// saveFigures writes the figures that have series into dir and returns the
// files written.
func saveFigures(dir string, figs []plots.Figure, names []string) ([]string, error) {
	var files []string
	for i, f := range figs {
		if len(f.Series) == 0 {
			continue
		}
		p := filepath.Join(dir, names[i])
		if err := f.Save(p); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	return files, nil
}

// Plot writes the turn and token distributions into dir (the tail-latency
// paper's Figures 4 and 6, as CDFs): turns per conversation
// (label-turns.svg) and prompt, response and history lengths
// (label-tokens.svg, history 0 drawn at 1 token). It returns the files
// written.
func (t *Turns) Plot(dir, label string) ([]string, error) {
	turns := plots.Figure{Title: label + ": turns per conversation", XLabel: "turns (log)",
		YLabel: "CDF of conversations", LogX: true, LegendBottom: true}
	if xs, ys := cdfPointsFloor(t.PerConvSamples, 400, 1); len(xs) > 0 {
		turns.Series = append(turns.Series, plots.Series{Name: "turns", X: xs, Y: ys})
	}
	tokens := plots.Figure{Title: label + ": token lengths per turn", XLabel: "tokens (log; 0 drawn at 1)",
		YLabel: "CDF of turns", LogX: true, LegendBottom: true}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"prompt", t.PromptSamples}, {"response", t.ResponseSamples}, {"history", t.HistorySamples}} {
		if xs, ys := cdfPointsFloor(s.x, 400, 1); len(xs) > 0 {
			tokens.Series = append(tokens.Series, plots.Series{Name: s.name, X: xs, Y: ys})
		}
	}
	return saveFigures(dir, []plots.Figure{turns, tokens}, []string{label + "-turns.svg", label + "-tokens.svg"})
}
