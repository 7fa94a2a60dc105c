package latency

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFitFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Points on TTFT = 10 + 0.5·b exactly.
	good := write("good.csv", "uncached_tokens,ttft_ms\n0,10\n100,60\n200,110\n")
	m, pts, err := FitFile(good)
	if err != nil || len(pts) != 3 || math.Abs(m.AlphaMs-0.5) > 1e-12 || math.Abs(m.BetaMs-10) > 1e-12 {
		t.Errorf("FitFile = %+v, %d points, %v", m, len(pts), err)
	}
	one := write("one.csv", "uncached_tokens,ttft_ms\n5,10\n")
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.csv"), "no such file"},
		{write("empty.csv", ""), "empty file"},
		{one, one + ": latency fit: need at least two points"},
	} {
		if _, _, err := FitFile(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
}
