package prefixtail

import (
	"context"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestWindowedRangeRapid: the windows cut into random runs of consecutive
// windows (shards), each bounded by WindowedRange, give per-window figures
// identical to Windowed's, and their sums an interval around OPT from
// exhaustive search (each run's stitched schedule replayed from an empty
// cache at its first request); one run is Windowed itself.
func TestWindowedRangeRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 2, []int64{1, 2, 4, 16}, 12)
		block, reqs, capacity, obj, windows := c.block, c.reqs, c.capacity, c.obj, c.windows
		want := brute(t, reqs, capacity, block, obj)
		one, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, WindowOptions{}, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		lower, upper, w := 0.0, 0.0, 0
		for w < windows {
			last := rapid.IntRange(w, windows-1).Draw(rt, "run end")
			run, err := WindowedRange(context.Background(), reqs, block, capacity, obj, windows, w, last, WindowOptions{}, Options{})
			if err != nil {
				rt.Fatal(err)
			}
			if run.Windows != windows || len(run.PerWindow) != last-w+1 {
				rt.Fatalf("run %d … %d: %d windows, %d figures", w, last, run.Windows, len(run.PerWindow))
			}
			for k, f := range run.PerWindow {
				g := one.PerWindow[w+k]
				if f.First != g.First || f.Requests != g.Requests || f.History != g.History || f.Lower != g.Lower || f.Restricted != g.Restricted {
					rt.Fatalf("window %d: run's %+v, Windowed's %+v", w+k, f, g)
				}
			}
			if w == 0 && last == windows-1 && (run.Lower != one.Lower || run.Upper != one.Upper) {
				rt.Fatalf("one run [%v, %v], Windowed [%v, %v]", run.Lower, run.Upper, one.Lower, one.Upper)
			}
			lower, upper, w = lower+run.Lower, upper+run.Upper, last+1
		}
		if lower > want+1e-6*math.Max(1, want) || upper < want-1e-6*math.Max(1, want) {
			rt.Fatalf("runs' interval [%v, %v] misses OPT %v (%d windows)", lower, upper, want, windows)
		}
		if math.Abs(lower-one.Lower) > 1e-9*math.Max(1, lower) {
			rt.Fatalf("runs' lower %v, Windowed's %v", lower, one.Lower)
		}
	})
}
