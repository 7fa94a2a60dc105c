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

func TestPlot(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		req(0, 0, "text", 1), req(0, 1, "search", 1, 2), req(3, 0, "text", 1, 3), req(8, 1, "search", 1, 2, 4),
	}}
	rep, err := Run(blocktrace.StreamSource(s), 16, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := rep.Plot(dir, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "tiny-reuse.svg"), filepath.Join(dir, "tiny-lifespan.svg")}
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
