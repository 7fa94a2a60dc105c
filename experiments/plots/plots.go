// Package plots draws tailbound's figures (latency distributions, curves
// against capacity or recompute ratio) with gonum/plot. The file extension
// chooses the format: .svg, .png or .pdf.
//
// Every figure is drawn to be read in print: series differ in colour (the
// Okabe–Ito palette, safe for colour-blind readers), in line style and in
// point marker, so that they stay apart in greyscale; the legend sits
// beside the plot, never over the data; tick labels have the digits they
// need and no more ("1250", "0.05", "131k"), on log axes too.
package plots

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tailbound/tailbound/internal/atomicfile"
)

// Series is one named line of (X, Y) points.
type Series struct {
	Name string
	X, Y []float64
	// Scatter draws the points as markers only, without a line.
	Scatter bool
}

// Marker is a labelled vertical line at X (e.g. an optimum).
type Marker struct {
	Name string
	X    float64
}

// Level is a labelled horizontal reference line at Y (e.g. the P99 level
// of a tail plot), drawn light and dotted with its name at the right end.
type Level struct {
	Name string
	Y    float64
}

// Band is a shaded region between Lo and Hi over X (e.g. the interval in
// which the hindsight optimum lies; Lo = Hi draws the exact optimum as a
// thick grey line).
type Band struct {
	Name      string
	X, Lo, Hi []float64
}

// Figure is a line chart. Axis labels should carry units, e.g. "TTFT (ms)";
// the title should name the dataset and the settings.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Markers               []Marker
	Levels                []Level
	Bands                 []Band
	LogX, LogY            bool
	// YMin, when > 0 on a log Y axis, is the axis' lower end (values
	// below it are not drawn).
	YMin float64
	// LegendBottom is kept for callers; the legend is always beside the
	// plot now.
	LegendBottom bool
}

// palette is Okabe and Ito's colour-blind-safe palette (yellow left out:
// too light on white), dark first.
var palette = []color.RGBA{
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
}

// Style returns series i's colour, dashes and marker shape: the colour
// cycles through 7, the dashes through 5 and the shapes through 8, so no
// two of the first 40 series share both dashes and marker, and they stay
// apart in greyscale.
func Style(i int) (color.Color, []vg.Length, draw.GlyphDrawer) {
	dashes := [][]vg.Length{{}, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}, {vg.Points(12), vg.Points(4)}}
	return palette[i%len(palette)], dashes[i%len(dashes)], plotutil.Shape(i)
}

// maxMarks is the number of markers drawn along a series at most: a
// series of more points gets them at evenly spaced points.
const maxMarks = 12

// Save draws f to path; the extension (.svg, .png, .pdf) picks the format.
func (f Figure) Save(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" && ext != ".pdf" {
		return fmt.Errorf("plot %s: extension must be .svg, .png or .pdf", path)
	}
	p, leg, err := f.build()
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	width, height := 7.5*vg.Inch, 4.5*vg.Inch
	c, err := draw.NewFormattedCanvas(width, height, ext[1:])
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	rec := newTextRecorder(c)
	dc := draw.New(rec)
	white := dc
	white.SetColor(color.White)
	white.Fill(dc.Rectangle.Path())
	legW := vg.Length(0)
	if len(leg.entriesNames) > 0 {
		legW = leg.width() + vg.Points(12)
	}
	plotArea := dc
	plotArea.Max.X -= legW
	// the title is centred over the plot, beside the legend
	p.Title.Text = wrapTitle(p.Title.TextStyle, f.Title, (plotArea.Max.X-plotArea.Min.X-vg.Points(10))/substituteWidth)
	if f.LogY && f.YLabel != "" {
		// gonum/plot pads a log axis for its label as if the label sat
		// at the arithmetic middle of the range, squeezing the data;
		// the label is drawn here instead, beside the axis.
		sty := p.Y.Label.TextStyle
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		h := sty.Height(f.YLabel)
		mid := (plotArea.Min.Y + plotArea.Max.Y) / 2
		plotArea.FillText(sty, vg.Point{X: plotArea.Min.X, Y: mid}, f.YLabel)
		// and a little more: its descenders reach past h by about a tenth
		// of its size (checkLayout found them on the tick labels)
		plotArea.Min.X += h + p.Y.Label.Padding + vg.Points(2)
	}
	thinTickLabels(p, plotArea)
	p.Draw(plotArea)
	if legW > 0 {
		la := dc
		la.Min.X = dc.Max.X - legW + vg.Points(6)
		// level with the top of the data area, below the title
		la.Max.Y -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + vg.Points(4)
		leg.Legend.Draw(la)
	}
	if err := checkLayout(rec.boxes, width, height); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	out := buf.Bytes()
	if ext == ".svg" {
		if out, err = fitSVGText(out, rec.widths); err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
	}
	err = atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(out)
		return err
	})
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

// markPoints picks the points of a series that carry its markers: at
// most maxMarks, spread evenly along the x axis (log-spaced on a log axis)
// rather than by index, so that a series dense in one region (quantiles
// crowd at small TTFT) is marked along its whole length; phase, in [0, 1),
// shifts the marks so that series drawn together do not mark the same x.
// A series of at most maxMarks points is marked at every point.
func markPoints(pts plotter.XYs, logX bool, phase float64) plotter.XYs {
	if len(pts) <= maxMarks {
		return pts
	}
	pos := func(x float64) float64 {
		if logX {
			return math.Log(x)
		}
		return x
	}
	lo, hi := pos(pts[0].X), pos(pts[0].X)
	for _, p := range pts {
		lo, hi = math.Min(lo, pos(p.X)), math.Max(hi, pos(p.X))
	}
	if !(hi > lo) {
		return pts[:1]
	}
	gap := (hi - lo) / maxMarks
	var marks plotter.XYs
	next := lo + gap*phase
	for _, p := range pts {
		if pos(p.X) >= next {
			marks = append(marks, p)
			for next <= pos(p.X) {
				next += gap
			}
		}
	}
	return marks
}

// wrapTitle breaks title at spaces into lines no wider than w in style sty.
func wrapTitle(sty draw.TextStyle, title string, w vg.Length) string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(title) {
		if cur != "" && sty.Width(cur+" "+word) > w {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	return strings.Join(append(lines, cur), "\n")
}

// legend is the plot's legend, drawn beside it, with its entries' names.
type legend struct {
	plot.Legend
	entriesNames []string
}

func (l *legend) add(name string, th ...plot.Thumbnailer) {
	l.Legend.Add(name, th...)
	l.entriesNames = append(l.entriesNames, name)
}

// width is the legend's width: its longest name and the thumbnail.
func (l *legend) width() vg.Length {
	w := vg.Length(0)
	for _, n := range l.entriesNames {
		w = max(w, l.TextStyle.Width(n))
	}
	return w*substituteWidth + l.ThumbnailWidth + l.Padding
}

// build makes the plot and its legend.
func (f Figure) build() (*plot.Plot, *legend, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = f.XLabel
	if !f.LogY {
		p.Y.Label.Text = f.YLabel // a log axis' label is drawn by Save
	}
	p.X.Tick.Marker = Ticks{}
	p.Y.Tick.Marker = Ticks{}
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = Ticks{Log: true}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = Ticks{Log: true}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{0xe0}
	grid.Horizontal.Color = color.Gray{0xe0}
	p.Add(grid)
	leg := &legend{Legend: plot.NewLegend()}
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(28)
	// rows a little more than one font size apart, so that no two lines
	// of text touch (gonum/plot sets them 0.85 of a size apart)
	leg.Padding = vg.Points(2)
	keep := func(x, y float64) bool {
		return !(f.LogX && x <= 0) && !(f.LogY && (y <= 0 || f.YMin > 0 && y < f.YMin))
	}
	for _, b := range f.Bands {
		var poly plotter.XYs
		for j := range b.X {
			if keep(b.X[j], b.Hi[j]) {
				poly = append(poly, plotter.XY{X: b.X[j], Y: b.Hi[j]})
			}
		}
		for j := len(b.X) - 1; j >= 0; j-- {
			if keep(b.X[j], b.Lo[j]) {
				poly = append(poly, plotter.XY{X: b.X[j], Y: b.Lo[j]})
			}
		}
		if len(poly) < 2 {
			continue
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, nil, fmt.Errorf("band %s: %w", b.Name, err)
		}
		pg.Color = color.Gray{0xd0}
		pg.LineStyle.Color = color.Gray{0xa0}
		pg.LineStyle.Width = vg.Points(3)
		p.Add(pg)
		leg.add(b.Name, pg)
	}
	for i, s := range f.Series {
		var pts plotter.XYs
		for j := range s.X {
			if keep(s.X[j], s.Y[j]) {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		col, dashes, shape := Style(i)
		marks := markPoints(pts, f.LogX, float64(i)/float64(len(f.Series)))
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return nil, nil, fmt.Errorf("series %s: %w", s.Name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: shape}
		if s.Scatter {
			p.Add(sc)
			leg.add(s.Name, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, nil, fmt.Errorf("series %s: %w", s.Name, err)
		}
		l.Color, l.Dashes, l.Width = col, dashes, vg.Points(1.5)
		p.Add(l, sc)
		leg.add(s.Name, l, sc)
	}
	if f.LogY && f.YMin > 0 {
		p.Y.Min = f.YMin
	}
	for _, lv := range f.Levels {
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, lv.Y), math.Max(p.Y.Max, lv.Y)
	}
	for _, lv := range f.Levels {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: lv.Y}, {X: p.X.Max, Y: lv.Y}})
		if err != nil {
			return nil, nil, fmt.Errorf("level %s: %w", lv.Name, err)
		}
		l.Color, l.Dashes, l.Width = color.Gray{0x70}, []vg.Length{vg.Points(1), vg.Points(2)}, vg.Points(0.8)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: p.X.Max, Y: lv.Y}}, Labels: []string{lv.Name}})
		if err != nil {
			return nil, nil, fmt.Errorf("level %s: %w", lv.Name, err)
		}
		lb.TextStyle[0].XAlign, lb.TextStyle[0].YAlign = draw.XRight, draw.YBottom
		lb.TextStyle[0].Color = color.Gray{0x40}
		lb.TextStyle[0].Font.Size = vg.Points(8)
		p.Add(l, lb)
	}
	for i, m := range f.Markers {
		l, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}})
		if err != nil {
			return nil, nil, fmt.Errorf("marker %s: %w", m.Name, err)
		}
		col, _, _ := Style(len(f.Series) + i)
		for j, sr := range f.Series { // "r0 gpu" takes the colour of "gpu"
			if strings.HasSuffix(m.Name, " "+sr.Name) {
				col, _, _ = Style(j)
			}
		}
		l.Color, l.Dashes = col, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		leg.add(m.Name, l)
	}
	return p, leg, nil
}

// Ticks places an axis' ticks and labels them readably: on a linear axis
// at the multiples of a round step (1, 2 or 5 times a power of ten, about
// five labelled ticks, four minor ones between); on a log axis (Log) at 1, 2 and 5
// times the powers of ten (1 to 9 times when the range spans less than a
// decade and fewer than 3 of those fall in it). Labels are Label's.
type Ticks struct{ Log bool }

// Ticks implements plot.Ticker.
func (t Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !t.Log {
		return linearTicks(lo, hi)
	}
	if lo <= 0 || hi <= lo {
		return nil
	}
	var out []plot.Tick
	for _, mult := range [][]float64{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		out = out[:0]
		major := 0
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			for m := 1.0; m <= 9; m++ {
				v := m * math.Pow(10, e)
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				tk := plot.Tick{Value: v}
				for _, mm := range mult {
					if m == mm {
						tk.Label = labelIn(v, v, hi)
						major++
					}
				}
				out = append(out, tk)
			}
		}
		if major >= 3 {
			break
		}
	}
	return out
}

// linearTicks are the ticks of a linear axis from lo to hi.
func linearTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || hi-lo <= 1e-3*math.Max(math.Abs(lo), math.Abs(hi)) {
		// one value (gonum widens a single point's range a little):
		// one tick, at it, with its own digits
		v := (lo + hi) / 2
		if r := math.Round(v); math.Abs(r-v) <= (hi-lo)/2 {
			v = r
		}
		return []plot.Tick{{Value: v, Label: Label(v, 0)}}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top := math.Max(math.Abs(lo), math.Abs(hi))
	var ticks []plot.Tick
	minor := step / 5
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*step; k++ {
		v := k * minor
		tk := plot.Tick{Value: v}
		if r := math.Mod(math.Abs(k), 5); r < 1e-9 || r > 5-1e-9 {
			if math.Abs(v) < 1e-12*step {
				v = 0
			}
			tk.Value, tk.Label = v, labelIn(v, step, top)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// Label formats a tick value v on an axis whose labelled ticks are step
// apart (v itself on a log axis): with the decimals step needs and no
// more, thousands as "k" and millions as "M" from 10 000 on, so that ticks
// read "1250", "0.05", "131k", "2.5M".
func Label(v, step float64) string { return labelIn(v, step, math.Abs(v)) }

// labelIn is Label on an axis whose largest magnitude is top: every label
// of the axis takes the unit ("", "k", "M") that top takes.
func labelIn(v, step, top float64) string {
	if v == 0 {
		return "0"
	}
	suffix, scale := "", 1.0
	switch {
	case top >= 1e6:
		suffix, scale = "M", 1e6
	case top >= 1e4:
		suffix, scale = "k", 1e3
	}
	s := math.Abs(step) / scale
	dec := 0
	if s > 0 && s < 1 {
		dec = int(math.Ceil(-math.Log10(s) - 1e-9))
	}
	// and as many as v itself needs (a tick at 0.5 on an axis stepped 2)
	w := v / scale
	for dec < 9 && math.Abs(w-math.Round(w*math.Pow10(dec))/math.Pow10(dec)) > 1e-9*math.Max(1, math.Abs(w)) {
		dec++
	}
	out := strconv.FormatFloat(w, 'f', dec, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	if step == 0 && suffix != "" && strings.Contains(out, ".") {
		return labelIn(v, 0, 0) // a lone value reads better whole: 524288
	}
	return out + suffix
}
