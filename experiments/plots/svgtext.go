package plots

import (
	"bytes"
	"fmt"
	"strconv"

	"gonum.org/v1/plot/vg"
)

// An SVG names its fonts; a viewer without them substitutes its own, and
// DejaVu Serif, the usual substitute for Liberation Serif on Linux, is up
// to 28 % wider on these figures' labels (measured on every legend and
// tick label string of the suites), enough to push a legend past the edge
// and run tick labels together. So each text element carries the width
// the layout measured (textLength, with lengthAdjust="spacingAndGlyphs":
// any font is drawn into exactly that width), and the font families name
// their metric-compatible equivalents first (Times New Roman, Arial and
// Courier New have Liberation's advances), so most viewers need no
// adjustment at all.

// svgFamilies maps gonum/plot's font families to CSS family lists.
func svgFamilies() [3][2]string {
	return [...][2]string{
		{"font-family:Liberation Serif;", "font-family:'Liberation Serif','Times New Roman',Times,serif;"},
		{"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"},
		{"font-family:Liberation Mono;", "font-family:'Liberation Mono','Courier New',Courier,monospace;"},
	}
}

// substituteWidth is how much wider than measured a text may be drawn: a
// renderer that ignores textLength (librsvg does) and lacks the
// Liberation fonts draws them in DejaVu, up to 1.28 times as wide on
// these figures' strings. The legend, the title and the spacing of tick
// labels leave room for that.
const substituteWidth = 1.3

// fitSVGText sets every text element of svg (as vgsvg writes them, one per
// string drawn, in drawing order) to the width measured for it.
func fitSVGText(svg []byte, widths []vg.Length) ([]byte, error) {
	open := []byte("<text ")
	if n := bytes.Count(svg, open); n != len(widths) {
		return nil, fmt.Errorf("svg: %d text elements for %d strings drawn", n, len(widths))
	}
	out := make([]byte, 0, len(svg)+len(widths)*48)
	rest := svg
	for _, w := range widths {
		i := bytes.Index(rest, open)
		out = append(out, rest[:i+len(open)]...)
		out = append(out, `textLength="`...)
		out = strconv.AppendFloat(out, w.Points(), 'g', 6, 64)
		out = append(out, `" lengthAdjust="spacingAndGlyphs" `...)
		rest = rest[i+len(open):]
	}
	out = append(out, rest...)
	for _, f := range svgFamilies() {
		out = bytes.ReplaceAll(out, []byte(f[0]), []byte(f[1]))
	}
	return out, nil
}
