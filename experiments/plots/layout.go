package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// A figure is checked as it is drawn: every string gonum/plot writes goes
// through a textRecorder, which keeps the box the string covers on the
// page (its measured width, from the descent to the ascent of its font,
// through the canvas's transforms). Save refuses a figure in which a box
// leaves the canvas or two boxes overlap, so a legend cut at the edge or
// tick labels run together ("90k100k") fail the command that draws them,
// and every test that draws a figure checks it.

// textBox is where one drawn string lies on the page, in points.
type textBox struct {
	text                   string
	minX, minY, maxX, maxY float64
}

// affine is a 2-D transform: x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) then(n affine) affine { // m applied after n: m∘n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// textRecorder passes every call to the canvas it wraps and records the
// box of every string.
type textRecorder struct {
	vg.CanvasSizer
	m     affine
	stack []affine
	boxes []textBox
	// widths holds the measured advance of every string drawn, blank ones
	// too, in drawing order: the order of the SVG's text elements.
	widths []vg.Length
}

func newTextRecorder(c vg.CanvasSizer) *textRecorder {
	return &textRecorder{CanvasSizer: c, m: affine{a: 1, d: 1}}
}

func (r *textRecorder) Translate(pt vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: pt.X.Points(), f: pt.Y.Points()})
	r.CanvasSizer.Translate(pt)
}

func (r *textRecorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
	r.CanvasSizer.Rotate(rad)
}

func (r *textRecorder) Scale(x, y float64) {
	r.m = r.m.then(affine{a: x, d: y})
	r.CanvasSizer.Scale(x, y)
}

func (r *textRecorder) Push() {
	r.stack = append(r.stack, r.m)
	r.CanvasSizer.Push()
}

func (r *textRecorder) Pop() {
	if n := len(r.stack); n > 0 {
		r.m, r.stack = r.stack[n-1], r.stack[:n-1]
	}
	r.CanvasSizer.Pop()
}

func (r *textRecorder) FillString(f font.Face, pt vg.Point, text string) {
	r.CanvasSizer.FillString(f, pt, text)
	r.widths = append(r.widths, f.Width(text))
	if f.Font.Size == 0 || strings.TrimSpace(text) == "" {
		return
	}
	// A line's box is its advance wide and one font size high, from its
	// descent below the baseline: gonum/plot sets the lines of a text one
	// font size apart, and the ink of letters, digits and brackets lies
	// within that height (the font's full ascent, for accents, is taller).
	w := f.Width(text)
	desc := f.Extents().Descent
	x0, x1 := pt.X.Points(), (pt.X + w).Points()
	y0, y1 := (pt.Y - desc).Points(), (pt.Y - desc + f.Font.Size).Points()
	b := textBox{text: text, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	for _, p := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := r.m.apply(p[0], p[1])
		b.minX, b.maxX = math.Min(b.minX, x), math.Max(b.maxX, x)
		b.minY, b.maxY = math.Min(b.minY, y), math.Max(b.maxY, y)
	}
	r.boxes = append(r.boxes, b)
}

// layoutSlack is how far, in points, a box may pass the canvas or overlap
// another before the layout is refused: glyphs' ink lies inside their
// advance and ascent, so boxes that touch do not print over each other,
// and an overlap of a tenth of a point is invisible at any print size.
const layoutSlack = 0.1

// checkLayout returns an error naming the first string that leaves the
// w × h canvas or overlaps another string.
func checkLayout(boxes []textBox, w, h vg.Length) error {
	W, H := w.Points(), h.Points()
	for _, b := range boxes {
		if b.minX < -layoutSlack || b.minY < -layoutSlack || b.maxX > W+layoutSlack || b.maxY > H+layoutSlack {
			return fmt.Errorf("layout: %q is drawn outside the %.0f×%.0f pt canvas (at x %.1f–%.1f, y %.1f–%.1f pt)",
				b.text, W, H, b.minX, b.maxX, b.minY, b.maxY)
		}
	}
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if a.minX < b.maxX-layoutSlack && b.minX < a.maxX-layoutSlack &&
				a.minY < b.maxY-layoutSlack && b.minY < a.maxY-layoutSlack {
				return fmt.Errorf("layout: %q and %q are drawn over each other", a.text, b.text)
			}
		}
	}
	return nil
}
