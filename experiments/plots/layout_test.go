package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestCheckLayout(t *testing.T) {
	box := func(text string, x0, y0, x1, y1 float64) textBox { return textBox{text, x0, y0, x1, y1} }
	cases := []struct {
		name  string
		boxes []textBox
		want  string // "" for a good layout, else a word of the error
	}{
		{"apart", []textBox{box("a", 0, 0, 10, 10), box("b", 20, 0, 30, 10)}, ""},
		{"touching", []textBox{box("a", 0, 0, 10, 10), box("b", 10, 0, 20, 10)}, ""},
		{"within slack", []textBox{box("a", 0, 0, 10.05, 10), box("b", 10, 0, 20, 10)}, ""},
		{"overlap", []textBox{box("90k", 0, 0, 18, 10), box("100k", 17, 0, 41, 10)}, `"90k" and "100k" are drawn over each other`},
		{"stacked rows", []textBox{box("a", 0, 0, 10, 12), box("b", 0, 12, 10, 24)}, ""},
		{"past the right edge", []textBox{box("hindsight optimum [lower, u", 500, 10, 545, 22)}, `"hindsight optimum [lower, u" is drawn outside the 540×324 pt canvas`},
		{"below the bottom", []textBox{box("x", 10, -3, 20, 9)}, "outside"},
	}
	for _, c := range cases {
		err := checkLayout(c.boxes, 540, 324)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestRecorderTransforms: a string drawn after Translate(10, 20) and a
// quarter turn covers, worked by hand, x ∈ [10 − (size − descent), 10 +
// descent] and y ∈ [20, 20 + width]; after Pop, the plain frame again.
func TestRecorderTransforms(t *testing.T) {
	rec := newTextRecorder(vgimg.New(100, 100))
	sty := plot.New().Title.TextStyle
	f := font.DefaultCache.Lookup(sty.Font, sty.Font.Size)
	w, desc, size := f.Width("ab").Points(), f.Extents().Descent.Points(), f.Font.Size.Points()
	rec.Push()
	rec.Translate(vg.Point{X: 10, Y: 20})
	rec.Rotate(math.Pi / 2)
	rec.FillString(f, vg.Point{}, "ab")
	rec.Pop()
	rec.FillString(f, vg.Point{X: 1, Y: 2}, "ab")
	rec.FillString(f, vg.Point{X: 1, Y: 2}, " ") // blank: no box, but a width for the SVG
	want := []textBox{
		{"ab", 10 - (size - desc), 20, 10 + desc, 20 + w},
		{"ab", 1, 2 - desc, 1 + w, 2 - desc + size},
	}
	if len(rec.boxes) != len(want) || len(rec.widths) != 3 {
		t.Fatalf("%d boxes, %d widths", len(rec.boxes), len(rec.widths))
	}
	for i, b := range rec.boxes {
		g, e := []float64{b.minX, b.minY, b.maxX, b.maxY}, []float64{want[i].minX, want[i].minY, want[i].maxX, want[i].maxY}
		for j := range g {
			if math.Abs(g[j]-e[j]) > 1e-9 {
				t.Errorf("box %d: %v, want %v", i, g, e)
				break
			}
		}
	}
}

// TestThinLogTicks: on a log axis of less than a decade, 60k to 240k
// tokens, the labels 90k and 100k would touch; the powers of ten and
// their doubles keep their labels, and what is left does not collide.
func TestThinLogTicks(t *testing.T) {
	ticks := Ticks{Log: true}.Ticks(60000, 240000)
	pos := func(v float64) float64 { return 250 * math.Log(v/60000) / math.Log(4) } // a 250 pt axis: 90k and 100k are 19 pt apart
	size := func(s string) float64 { return 6 * float64(len(s)) }                   // 6 pt a character
	got := thin(ticks, true, 5, pos, size)
	labels := map[string]bool{}
	var kept []plot.Tick
	for _, tk := range got {
		if tk.Label != "" {
			labels[tk.Label] = true
			kept = append(kept, tk)
		}
	}
	if !labels["100k"] || !labels["200k"] {
		t.Errorf("kept %v, want 100k and 200k among them", labels)
	}
	if labels["90k"] {
		t.Errorf("kept 90k beside 100k: %v", labels)
	}
	for i := 1; i < len(kept); i++ {
		a, b := kept[i-1], kept[i]
		if pos(a.Value)+size(a.Label)/2+5 > pos(b.Value)-size(b.Label)/2 {
			t.Errorf("%s and %s closer than the gap", a.Label, b.Label)
		}
	}
	if len(got) != len(ticks) {
		t.Errorf("%d ticks, want all %d (dropped labels stay as minor ticks)", len(got), len(ticks))
	}
}

// TestSaveChecksLayout: a legend name wider than the canvas is refused
// with the name; a log axis of less than a decade draws (its labels
// thinned).
func TestSaveChecksLayout(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("a very long policy name ", 12)
	f := Figure{Title: "t", XLabel: "capacity C (tokens)", YLabel: "TEL (tokens)",
		Series: []Series{{Name: long, X: []float64{1, 2}, Y: []float64{1, 2}}}}
	if err := f.Save(dir + "/long.png"); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("long legend: %v", err)
	}
	g := Figure{Title: "P90 TTFT against capacity", XLabel: "capacity C (tokens)", YLabel: "P90 TTFT (ms)", LogX: true,
		Series: []Series{{Name: "hindsight optimum [lower, upper]", X: []float64{65536, 131072, 229376}, Y: []float64{620, 560, 450}}}}
	for _, ext := range []string{"png", "svg", "pdf"} {
		if err := g.Save(dir + "/g." + ext); err != nil {
			t.Errorf("%s: %v", ext, err)
		}
	}
}

func TestFitSVGText(t *testing.T) {
	in := "<svg>\n<text x=\"1\" style=\"font-family:Liberation Serif;\">a</text>\n<text x=\"2\">b</text>\n</svg>"
	out, err := fitSVGText([]byte(in), []vg.Length{12.5, 3})
	if err != nil {
		t.Fatal(err)
	}
	want := "<svg>\n<text textLength=\"12.5\" lengthAdjust=\"spacingAndGlyphs\" x=\"1\" style=\"font-family:'Liberation Serif','Times New Roman',Times,serif;\">a</text>\n" +
		"<text textLength=\"3\" lengthAdjust=\"spacingAndGlyphs\" x=\"2\">b</text>\n</svg>"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := fitSVGText([]byte(in), []vg.Length{1}); err == nil {
		t.Error("a count that differs: no error")
	}
}
