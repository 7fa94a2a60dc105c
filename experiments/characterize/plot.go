package characterize

import (
	"math"
	"path/filepath"

	"github.com/tailbound/tailbound/experiments/plots"
)

// MinPlotSeconds is where CDF plots on a log time axis draw smaller values
// (0 s reuse times of requests that arrive in the same millisecond).
const MinPlotSeconds = 1e-3

// cdfPoints returns at most n points (x, F(x)) of the empirical CDF of the
// sorted sample x, with x clamped below at MinPlotSeconds.
func cdfPoints(x []float64, n int) ([]float64, []float64) {
	if len(x) == 0 {
		return nil, nil
	}
	step := max(1, len(x)/n)
	var xs, ys []float64
	for i := step - 1; i < len(x); i += step {
		xs = append(xs, math.Max(x[i], MinPlotSeconds))
		ys = append(ys, float64(i+1)/float64(len(x)))
	}
	if ys[len(ys)-1] != 1 {
		xs = append(xs, math.Max(x[len(x)-1], MinPlotSeconds))
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
	var files []string
	for _, f := range []struct {
		fig  plots.Figure
		name string
	}{{reuse, label + "-reuse.svg"}, {life, label + "-lifespan.svg"}} {
		if len(f.fig.Series) == 0 {
			continue
		}
		p := filepath.Join(dir, f.name)
		if err := f.fig.Save(p); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	return files, nil
}
