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

// Plot writes the report's figures into dir, named after label: the
// reuse-time CDF of each category (label-reuse.svg) and the block
// lifespan CDF (label-lifespan.svg). It returns the files written.
func (r *Report) Plot(dir, label string) ([]string, error) {
	reuse := plots.Figure{Title: label + ": reuse time by category", XLabel: "reuse time (s, log; < 1 ms drawn at 1 ms)",
		YLabel: "CDF of reuse events", LogX: true, LegendBottom: true}
	for _, c := range append(r.Categories, r.Overall) {
		if len(c.Samples) == 0 {
			continue
		}
		xs, ys := cdfPoints(c.Samples, 400)
		reuse.Series = append(reuse.Series, plots.Series{Name: c.Name, X: xs, Y: ys})
	}
	life := plots.Figure{Title: label + ": block lifespan (first to last use)", XLabel: "lifespan (s, log; < 1 ms drawn at 1 ms)",
		YLabel: "CDF of blocks", LogX: true, LegendBottom: true}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"all blocks", r.Lifespan.AllSamples}, {"reused blocks", r.Lifespan.ReusedSamples}} {
		if len(s.x) > 0 {
			xs, ys := cdfPoints(s.x, 400)
			life.Series = append(life.Series, plots.Series{Name: s.name, X: xs, Y: ys})
		}
	}
	figs := []plots.Figure{reuse, life}
	names := []string{label + "-reuse.svg", label + "-lifespan.svg"}
	if len(r.Series) > 0 {
		rate := plots.Figure{Title: fmt.Sprintf("%s: request rate (%g s windows)", label, r.WindowS), XLabel: "time (s)", YLabel: "requests per second"}
		hit := plots.Figure{Title: fmt.Sprintf("%s: ideal block hit ratio (%g s windows)", label, r.WindowS), XLabel: "time (s)", YLabel: "block hit ratio (infinite cache)"}
		var xs, rs, hs []float64
		for _, w := range r.Series {
			xs, rs, hs = append(xs, w.StartS), append(rs, w.RatePerS), append(hs, orZero(w.HitRatio))
		}
		rate.Series = []plots.Series{{Name: "rate", X: xs, Y: rs}}
		hit.Series = []plots.Series{{Name: "ideal hit ratio", X: xs, Y: hs}}
		figs, names = append(figs, rate, hit), append(names, label+"-rate.svg", label+"-hitratio.svg")
	}
	if len(r.Spatial) > 0 {
		sp := plots.Figure{Title: label + ": spatial locality", XLabel: "stride (share of each request's chain stored)",
			YLabel: "ideal block hit ratio", LegendBottom: true}
		for _, c := range r.Spatial {
			name := fmt.Sprintf("offset %g", c.Offset)
			if n := len(sp.Series); n == 0 || sp.Series[n-1].Name != name {
				sp.Series = append(sp.Series, plots.Series{Name: name})
			}
			s := &sp.Series[len(sp.Series)-1]
			s.X, s.Y = append(s.X, c.Stride), append(s.Y, orZero(c.HitRatio))
		}
		figs, names = append(figs, sp), append(names, label+"-spatial.svg")
	}
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

// orZero is *x, or 0 where there is no value (a window or trace with no
// block references: nothing hit).
func orZero(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}
