// Package plots draws tailbound's figures (latency CDFs, curves against
// capacity or recompute ratio) with gonum/plot. The file extension chooses
// the format: .svg, .png or .pdf.
package plots

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tailbound/tailbound/internal/atomicfile"
)

// Series is one named line of (X, Y) points.
type Series struct {
	Name string
	X, Y []float64
	// Scatter draws the points as markers instead of a line.
	Scatter bool
}

// Marker is a labelled vertical line at X (e.g. an optimum).
type Marker struct {
	Name string
	X    float64
}

// Figure is a line chart. Axis labels should carry units, e.g. "TTFT (ms)".
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Markers               []Marker
	LogX                  bool
	// LegendBottom puts the legend at the bottom right (for rising curves
	// such as CDFs); it is at the top right otherwise.
	LegendBottom bool
}

// Save draws f to path; the extension (.svg, .png, .pdf) picks the format.
func (f Figure) Save(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" && ext != ".pdf" {
		return fmt.Errorf("plot %s: extension must be .svg, .png or .pdf", path)
	}
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{}
	}
	p.Legend.Top = !f.LegendBottom
	for i, s := range f.Series {
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		if s.Scatter {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return fmt.Errorf("plot %s: series %s: %w", path, s.Name, err)
			}
			sc.Color = plotutil.Color(i)
			sc.Radius = vg.Points(2)
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: series %s: %w", path, s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	for i, m := range f.Markers {
		pts := plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: marker %s: %w", path, m.Name, err)
		}
		l.Color = plotutil.Color(len(f.Series) + i)
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(m.Name, l)
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, ext[1:])
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	// Whole or nothing: a failed or interrupted write leaves no partial
	// image, and the file gets the process umask.
	err = atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}
