package characterize

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

func TestCDFPoints(t *testing.T) {
	cases := []struct {
		x      []float64
		n      int
		xs, ys []float64
	}{
		{[]float64{0, 1, 2, 3}, 10, []float64{MinPlotSeconds, 1, 2, 3}, []float64{0.25, 0.5, 0.75, 1}},
		{[]float64{1, 2, 3, 4, 5}, 2, []float64{2, 4, 5}, []float64{0.4, 0.8, 1}},
		{nil, 5, nil, nil},
	}
	for _, c := range cases {
		xs, ys := cdfPoints(c.x, c.n)
		if !slices.Equal(xs, c.xs) || !slices.Equal(ys, c.ys) {
			t.Errorf("cdfPoints(%v, %d) = %v %v, want %v %v", c.x, c.n, xs, ys, c.xs, c.ys)
		}
	}
}

// TestLivePoints: thinning keeps each stretch's largest live count (hence
// the peak) at its own time, in tokens.
func TestLivePoints(t *testing.T) {
	cases := []struct {
		t, live []float64
		n       int
		xs, ys  []float64
	}{
		{[]float64{0, 1, 2, 3, 4}, []float64{1, 5, 2, 2, 9}, 2, []float64{1, 4}, []float64{10, 18}},
		{[]float64{0, 1, 2}, []float64{3, 1, 2}, 5, []float64{0, 1, 2}, []float64{6, 2, 4}},
		{nil, nil, 4, nil, nil},
	}
	for _, c := range cases {
		got := livePoints(c.t, c.live, 2, c.n)
		if !slices.Equal(got.X, c.xs) || !slices.Equal(got.Y, c.ys) {
			t.Errorf("livePoints(%v, %v, 2, %d) = %v %v, want %v %v", c.t, c.live, c.n, got.X, got.Y, c.xs, c.ys)
		}
	}
}

func TestPlot(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		req(0, 0, "text", 1), req(0, 1, "search", 1, 2), req(3, 0, "text", 1, 3), req(8, 1, "search", 1, 2, 4),
	}}
	rep, err := Run(blocktrace.StreamSource(s), 16, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Block 1 is used by all four requests (live after requests 0–2),
	// block 1→2 by requests 1 and 3 (live after 1–2); the others once.
	if c := rep.Capacity; !slices.Equal(c.LiveBlocks, []float64{1, 2, 2, 0}) || !slices.Equal(c.LiveTimes, []float64{0, 0, 3, 8}) {
		t.Errorf("live blocks %v at %v s, want [1 2 2 0] at [0 0 3 8]", c.LiveBlocks, c.LiveTimes)
	}
	if d := rep.FigureData(); d.PeakS != 0 || !slices.Equal(d.Live.Y, []float64{16, 32, 32, 0}) {
		t.Errorf("live figure %v, peak at %g s; want tokens [16 32 32 0], peak at 0 s", d.Live, d.PeakS)
	}
	dir := t.TempDir()
	files, err := rep.Plot(dir, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "tiny-reuse.svg"), filepath.Join(dir, "tiny-lifespan.svg"), filepath.Join(dir, "tiny-capacity.svg")}
	if !slices.Equal(files, want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not an SVG (%v)", f, err)
		}
	}
}
