package window_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// modes are the upper-end modes SLOOptions.Upper takes.
var modes = []window.SLOUpper{window.UpperFull, window.UpperLP, window.UpperGreedy}

// TestSLOUpperRapidExact: in every upper-end mode, for any window size,
// seam and lower overlap, the windowed SLO interval contains the fewest violations found by
// enumeration (lp/exhaustive), its stitched schedule is admissible with
// Upper violations (checkSLOMode), and the lower end is the same in every
// mode (only the upper ends are searched less).
func TestSLOUpperRapidExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTrace(rt)
		s := rapid.Int64Range(0, 30).Draw(rt, "slo")
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		back := rapid.IntRange(0, size).Draw(rt, "lower overlap")
		opt := len(tr.Turns) - exhaustive.MaxMeeting(tr, p, s)
		lower := -1
		for _, m := range modes {
			b := checkSLOOverlap(rt.Fatalf, tr, p, size, seam, back, s, opt, opt, m)
			if lower >= 0 && b.Lower != lower {
				rt.Fatalf("upper ends %v: lower bound %d, full's %d", m, b.Lower, lower)
			}
			lower = b.Lower
			if want := map[bool]string{true: "", false: m.String()}[m == window.UpperFull]; b.UpperMode != want {
				rt.Fatalf("upper ends %v: UpperMode %q, want %q", m, b.UpperMode, want)
			}
		}
	})
}

// figures strips the times from windows' figures, which differ from run
// to run.
func figures(b *window.SLOBounds) []window.SLOFigures {
	f := slices.Clone(b.PerWindow)
	for i := range f {
		f[i].Seconds = 0
	}
	return f
}

// TestSLOUpperModesAreSolverOptions: on random traces of up to 300 turns
// each window's figures in each mode are those of lp/slo's solves called
// directly, one window after another (the composition RunSLOWith's doc
// describes): the default (full) calls SLOLower, SLORestricted and SLOSeam
// with the options given (here a search budget, LNSWindows), as before
// the modes existed; lp calls the upper ends with slo.Options.NoLNS,
// greedy with NoLP and NoLNS; the lower end is SLOLower with the options
// given in every mode.
func TestSLOUpperModesAreSolverOptions(t *testing.T) {
	ctx := context.Background()
	type tcase struct {
		turns      []trace.Turn
		p          instance.Params
		s          int64
		size, seam int
	}
	// Random traces of up to 300 turns, and the start of the birth–death
	// workload at two capacities, where the LP's rounding, the greedy
	// stages and the search find different schedules.
	var cases []tcase
	r := rand.New(rand.NewPCG(47, 33))
	for i := 0; i < 8; i++ {
		tr := &trace.Trace{}
		convs := 2 + r.IntN(12)
		for k := 20 + r.IntN(280); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := []int64{1, 2, 8, 16}[r.IntN(4)]
		size := 1 + r.IntN(len(tr.Turns))
		cases = append(cases, tcase{tr.Turns, instance.Params{Capacity: block * (1 + r.Int64N(40)), BlockSize: block}, r.Int64N(200), size, r.IntN(size + 1)})
	}
	bd, err := birthdeath.Trace(birthdeath.Default(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int64{16384, 32768} {
		cases = append(cases, tcase{bd.Turns[:1500], instance.Params{Capacity: c, BlockSize: 16}, 1900, 500, 250})
	}
	// A small search budget (passed on as given) keeps the test short.
	const lns = 100
	differ := map[window.SLOUpper]int{} // cases where a mode's figures are not full's
	for i, tc := range cases {
		p, s, size, seam := tc.p, tc.s, tc.size, tc.seam
		// The windows, read once.
		sp, err := window.NewSplitter(window.NewTurns(tc.turns), size)
		if err != nil {
			t.Fatal(err)
		}
		var ws []*window.Window
		for {
			w, err := sp.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		var full []window.SLOFigures
		for _, c := range []struct {
			mode  window.SLOUpper
			upper slo.Options
		}{
			{window.UpperFull, slo.Options{LNSWindows: lns}},
			{window.UpperLP, slo.Options{LNSWindows: lns, NoLNS: true}},
			{window.UpperGreedy, slo.Options{LNSWindows: lns, NoLP: true, NoLNS: true}},
		} {
			var want []window.SLOFigures
			for k, w := range ws {
				f := window.SLOFigures{Index: w.Index, Start: w.Start, Turns: w.Len()}
				if f.Lower, err = window.SLOLower(ctx, w, p, s, slo.Options{LNSWindows: lns}); err != nil {
					t.Fatal(err)
				}
				var x []int64
				if f.Restricted, x, err = window.SLORestricted(ctx, w, p, s, c.upper); err != nil {
					t.Fatal(err)
				}
				if k+1 < len(ws) {
					_, xn, err := window.SLORestricted(ctx, ws[k+1], p, s, c.upper)
					if err != nil {
						t.Fatal(err)
					}
					if f.SeamGain, _, _, err = window.SLOSeam(ctx, w, ws[k+1], x, xn, p, s, seam, c.upper); err != nil {
						t.Fatal(err)
					}
				}
				f.Upper = f.Restricted + f.SeamGain
				want = append(want, f)
			}
			b, err := window.RunSLOWith(ctx, window.NewTurns(tc.turns), window.SLOOptions{Params: p, WindowTurns: size, SLOTokens: s, SeamTurns: seam, PerWindow: true, Upper: c.mode, Solver: slo.Options{LNSWindows: lns}})
			if err != nil {
				t.Fatal(err)
			}
			if got := figures(b); !slices.Equal(got, want) {
				t.Fatalf("case %d (%v, s=%d, windows of %d, seams ±%d), upper ends %v:\n got %+v\nwant %+v", i, p, s, size, seam, c.mode, got, want)
			}
			if c.mode == window.UpperFull {
				full = want
			} else if !slices.Equal(want, full) {
				differ[c.mode]++
			}
		}
	}
	// Each mode must change some window's figures, or the cases cannot
	// tell the modes apart.
	for _, m := range modes[1:] {
		if differ[m] == 0 {
			t.Errorf("upper ends %v gave full's figures in every case", m)
		}
	}
	t.Logf("cases where the figures differ from full's: %v", differ)
}

// TestParseSLOUpper: the modes' names read back to the modes, and any
// other name, or a mode out of range, is refused.
func TestParseSLOUpper(t *testing.T) {
	for _, c := range []struct {
		name string
		want window.SLOUpper
		ok   bool
	}{
		{"full", window.UpperFull, true},
		{"lp", window.UpperLP, true},
		{"greedy", window.UpperGreedy, true},
		{"", 0, false},
		{"Full", 0, false},
		{"lns", 0, false},
	} {
		got, err := window.ParseSLOUpper(c.name)
		if (err == nil) != c.ok || c.ok && (got != c.want || got.String() != c.name) {
			t.Errorf("ParseSLOUpper(%q) = %v, %v; want %v (ok %t)", c.name, got, err, c.want, c.ok)
		}
	}
	tr := &trace.Trace{}
	tr.Append(0, "a", 1, 0)
	_, err := window.RunSLOWith(context.Background(), window.NewTurns(tr.Turns), window.SLOOptions{Params: instance.Params{Capacity: 4, BlockSize: 1}, WindowTurns: 1, Upper: 3})
	if err == nil || !strings.Contains(err.Error(), "SLOUpper(3)") {
		t.Fatalf("mode 3: %v", err)
	}
}
