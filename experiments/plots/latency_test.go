package plots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/latency"
)

func TestLatencyFit(t *testing.T) {
	pts := []latency.Point{{Uncached: 100, TTFTMs: 21}, {Uncached: 0, TTFTMs: 9}, {Uncached: 50, TTFTMs: 15}}
	f := LatencyFit(pts, latency.Model{AlphaMs: 0.1, BetaMs: 10}, "fit")
	if len(f.Series) != 2 || !f.Series[0].Scatter || len(f.Series[0].X) != 3 {
		t.Fatalf("series %+v", f.Series)
	}
	// The line spans b = 0…100: 10 ms to 10 + 0.1·100 = 20 ms.
	l := f.Series[1]
	if l.X[0] != 0 || l.X[1] != 100 || l.Y[0] != 10 || l.Y[1] != 20 || !strings.Contains(l.Name, "10 + 0.1") {
		t.Errorf("line %+v", l)
	}
	p := filepath.Join(t.TempDir(), "fit.svg")
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("%s: %v", p, err)
	}
	if err := f.Save(filepath.Join(t.TempDir(), "fit.txt")); err == nil {
		t.Error(".txt accepted")
	}
}
