package windows_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// writeTrace writes a random trace of turns turns to a file in t's temp
// folder and returns its path and the trace.
func writeTrace(t *testing.T, turns int, seed uint64) (string, *trace.Trace) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	tr := &trace.Trace{}
	for k := 0; k < turns; k++ {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(40)), 1+r.Int64N(400), r.Int64N(300))
	}
	var b bytes.Buffer
	if err := trace.WriteTrace(&b, tr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, tr
}

func base(path string) windows.Command {
	return windows.Command{Trace: path, Capacity: 2048, CapacityGiven: true, Block: 16, Xi: 200, Windows: 5, SeamTurns: 40, LowerOverlap: 60}
}

// TestShardsMergeToOneProcess: three shards' result files, merged with
// the suites' checks, print exactly the one-process run's JSON, and that
// interval contains the optimum SolveFlow finds on the whole trace.
func TestShardsMergeToOneProcess(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 1500, 1)
	c := base(path)
	doc, _, err := c.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.(*windows.Report)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16, Xi: 200})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := lp.SolveFlow(ctx, in, lp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tol := 1e-9 * opt.TEL; rep.Lower > opt.TEL+tol || rep.Upper < opt.TEL-tol || rep.Windows != 5 {
		t.Fatalf("interval [%v, %v] over %d windows, optimum %v", rep.Lower, rep.Upper, rep.Windows, opt.TEL)
	}
	var want bytes.Buffer
	if err := report.Emit(&want, "json", doc); err != nil {
		t.Fatal(err)
	}
	files, _, got := mergedShards(t, c, 3, "json")
	if got != want.String() {
		t.Fatalf("merged:\n%s\none process:\n%s", got, want.String())
	}
	// A shard of other settings is refused, naming the setting.
	s := c
	s.SeamTurns, s.Shard, s.Out = 41, "3/3", filepath.Join(t.TempDir(), "other.json")
	if _, _, err := s.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := suite.ReadFiles([]string{files[0], files[1], s.Out}); err == nil || !strings.Contains(err.Error(), "seam_turns") {
		t.Fatalf("merge of other settings: %v", err)
	}
	if _, err := suite.ReadFiles(files[:2]); err == nil || !strings.Contains(err.Error(), "a shard is missing") {
		t.Fatalf("merge of 2 of 3 shards: %v", err)
	}
}

// TestTargetWidth: a width no interval of several windows reaches doubles
// the windows until one remains, whose interval is the optimum itself.
func TestTargetWidth(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 800, 2)
	c := base(path)
	c.Windows, c.TargetWidth = 4, 1e-12
	doc, _, err := c.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.(*windows.Report)
	in, _ := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16, Xi: 200})
	opt, err := lp.SolveFlow(ctx, in, lp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Windows != 1 || !rep.ProvenOptimal || math.Abs(rep.Upper-opt.TEL) > 1e-9*opt.TEL || len(rep.Tried) != 3 || rep.TargetMet == nil || !*rep.TargetMet {
		t.Fatalf("%d windows, [%v, %v], tried %v, optimum %v", rep.Windows, rep.Lower, rep.Upper, rep.Tried, opt.TEL)
	}
}

// TestTargetWidthTail: under --target-width, --objective slo and pQ halve
// the window count until the width is met or one window is left; each
// width tried is the width of the run at that count alone, the answer is
// the last count's run, and the one-window answer meets lp/slo's interval
// on the whole trace. A width met at once stops after one run.
func TestTargetWidthTail(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 300, 6)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16, Xi: 200})
	if err != nil {
		t.Fatal(err)
	}
	s := int64(300)
	o, _ := objective.Parse("p90")
	wholeSLO, err := slo.Violations(ctx, in, s, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wholePct, err := slo.PercentileOf(ctx, in, o, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// interval runs c and returns its window count, ends and width.
	interval := func(c windows.Command) (n int, lo, hi int64, width float64, tg windows.Target) {
		doc, _, err := c.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch d := doc.(type) {
		case *windows.SLOReport:
			return d.Windows, int64(d.Lower), int64(d.Upper), d.RelativeWidth, d.Target
		case *windows.PercentileReport:
			return d.Windows, d.Lower, d.Upper, d.RelativeWidth, d.Target
		}
		t.Fatalf("document %T", doc)
		return
	}
	for _, tc := range []struct {
		name             string
		set              func(*windows.Command)
		wholeLo, wholeHi int64
	}{
		{"slo", func(c *windows.Command) { c.SLO = &s }, int64(wholeSLO.Lower), int64(wholeSLO.Upper)},
		{"p90", func(c *windows.Command) { c.Percentile = &o }, wholePct.Lower, wholePct.Upper},
	} {
		c := base(path)
		c.LowerOverlap, c.Windows, c.Upper = 0, 4, window.UpperGreedy // the greedy upper ends keep it quick
		tc.set(&c)
		alone := map[int]float64{}
		var oneLo, oneHi int64
		for _, nw := range []int{4, 2, 1} {
			a := c
			a.Windows = nw
			_, lo, hi, w, _ := interval(a)
			alone[nw] = w
			oneLo, oneHi = lo, hi
		}
		c.TargetWidth = 1e-12
		n, lo, hi, _, tg := interval(c)
		if n != 1 || lo != oneLo || hi != oneHi || lo > tc.wholeHi || hi < tc.wholeLo || len(tg.Tried) != 3 || tg.TargetMet == nil || *tg.TargetMet != (hi == lo) {
			t.Fatalf("%s: %d windows [%d, %d], tried %v (met %v); one window alone [%d, %d]; lp/slo whole [%d, %d]", tc.name, n, lo, hi, tg.Tried, tg.TargetMet, oneLo, oneHi, tc.wholeLo, tc.wholeHi)
		}
		for i, nw := range []int{4, 2, 1} {
			if tr := tg.Tried[i]; tr.Windows != nw || tr.RelativeWidth != alone[nw] || tr.WindowTurns != window.Size(300, nw) {
				t.Fatalf("%s: try %d %+v, want %d windows of %d steps, width %v", tc.name, i, tr, nw, window.Size(300, nw), alone[nw])
			}
		}
		c.TargetWidth = 0.999
		if n, _, _, w, tg := interval(c); n != 4 || len(tg.Tried) != 1 || !*tg.TargetMet || w != alone[4] {
			t.Fatalf("%s: a width met at once: %d windows, tried %v", tc.name, n, tg.Tried)
		}
	}
}

// TestBadFlags: each unusable setting is refused naming its flag.
func TestBadFlags(t *testing.T) {
	path, _ := writeTrace(t, 50, 3)
	for _, c := range []struct {
		flag string
		edit func(*windows.Command)
	}{
		{"windows", func(c *windows.Command) { c.Windows = -1 }},
		{"windows", func(c *windows.Command) { c.Windows = 0 }},
		{"window-turns", func(c *windows.Command) { c.WindowTurns = 10 }},
		{"seam-turns", func(c *windows.Command) { c.SeamTurns = -1 }},
		{"lower-overlap", func(c *windows.Command) { c.LowerOverlap = -1 }},
		{"target-width", func(c *windows.Command) { c.TargetWidth = 1 }},
		{"target-width", func(c *windows.Command) { c.TargetWidth, c.Shard = 0.1, "1/2" }},
		{"capacity", func(c *windows.Command) { c.CapacityGiven = false }},
		{"capacity", func(c *windows.Command) { c.Capacity = 2047 }},
		{"out", func(c *windows.Command) { c.Out = "x.json" }},
		{"shard", func(c *windows.Command) { c.Shard = "3/2" }},
		{"slurm", func(c *windows.Command) { c.Slurm = -1 }},
		{"max-probes", func(c *windows.Command) { c.Percentile, c.MaxProbes = p99(), -1 }},
		{"forced", func(c *windows.Command) { c.Percentile, c.Forced = p99(), true }},
		{"taus", func(c *windows.Command) { c.Percentile, c.Shard = p99(), "1/2" }},
		{"taus", func(c *windows.Command) { c.Percentile, c.Slurm = p99(), 2 }},
		{"taus", func(c *windows.Command) { c.Percentile, c.Taus = p99(), []int64{5, 4} }},
		{"max-probes", func(c *windows.Command) { c.Percentile, c.Taus, c.MaxProbes = p99(), []int64{5}, 2 }},
		{"objective", func(c *windows.Command) { c.Percentile, c.Curve = p99(), []int{2, 4} }},
		{"objective", func(c *windows.Command) { s := int64(100); c.SLO, c.Curve = &s, []int{2, 4} }},
		{"target-width", func(c *windows.Command) { c.Trace, c.Windows, c.WindowTurns, c.TargetWidth = "-", 0, 10, 0.1 }},
		{"trace", func(c *windows.Command) { c.Percentile, c.Trace, c.Windows, c.WindowTurns = p99(), "-", 0, 10 }},
		{"forced", func(c *windows.Command) { s := int64(100); c.SLO, c.Forced = &s, true }},
		{"rounds", func(c *windows.Command) { c.Rounds = 2 }},
		{"rounds", func(c *windows.Command) { c.Percentile, c.RoundDir = p99(), "r" }},
		{"rounds", func(c *windows.Command) { c.Percentile, c.Rounds, c.Taus = p99(), 2, []int64{5} }},
		{"rounds", func(c *windows.Command) { c.Percentile, c.Rounds, c.TargetWidth = p99(), 2, 0.1 }},
		{"round-dir", func(c *windows.Command) { c.Percentile, c.Rounds, c.Shard = p99(), 2, "1/2" }},
		{"round-dir", func(c *windows.Command) { c.Percentile, c.Rounds, c.Slurm, c.RoundDir = p99(), 2, 2, "r" }},
		{"out", func(c *windows.Command) {
			c.Percentile, c.Rounds, c.Shard, c.RoundDir, c.Out = p99(), 2, "1/2", "r", "x"
		}},
		{"max-probes", func(c *windows.Command) { c.Percentile, c.Rounds, c.MaxProbes = p99(), 2, -1 }},
		{"out", func(c *windows.Command) { c.Percentile, c.Rounds, c.Out = p99(), 2, "x" }},
		{"slo-upper", func(c *windows.Command) { c.Upper = window.UpperLP }},
		{"slo-upper", func(c *windows.Command) { c.LNSWindows = 10 }},
		{"slo-lns-windows", func(c *windows.Command) { s := int64(100); c.SLO, c.LNSWindows = &s, -1 }},
		{"slo-lns-windows", func(c *windows.Command) { c.Percentile, c.Upper, c.LNSWindows = p99(), window.UpperGreedy, 10 }},
	} {
		cmd := base(path)
		c.edit(&cmd)
		_, _, err := cmd.Run(context.Background(), nil)
		var oe *option.Error
		if err == nil || (!errors.As(err, &oe) && !strings.Contains(err.Error(), "--"+c.flag)) || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: got %v", c.flag, err)
		}
	}
}

func p99() *objective.Objective {
	o, _ := objective.Parse("p99")
	return &o
}

// TestPercentileFile: --objective pQ on a trace file (each probe reads it
// again) gives an interval that meets lp/slo's on the whole trace, with
// and without a budget of probes.
func TestPercentileFile(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 120, 4)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := objective.Parse("p90")
	whole, err := slo.PercentileOf(ctx, in, o, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, probes := range []int{0, 2} {
		c := base(path)
		c.Percentile, c.MaxProbes, c.Windows = &o, probes, 3
		doc, _, err := c.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := doc.(*windows.PercentileReport).PercentileBounds
		if b.Lower > whole.Upper || b.Upper < whole.Lower || b.Windows != 3 || probes > 0 && len(b.Probes) > 0 {
			t.Fatalf("%d probes at most: [%d, %d] in %d windows (probes listed: %d), lp/slo whole [%d, %d]", probes, b.Lower, b.Upper, b.Windows, len(b.Probes), whole.Lower, whole.Upper)
		}
	}
}

// TestGridWindows: the grid points of each shard (i−1 mod n) are
// consecutive windows, every window once; worked by hand for 7 windows in
// 3 shards (points 0, 3, 6 → windows 0, 1, 2; 1, 4 → 3, 4; 2, 5 → 5, 6),
// and checked on every small case by counting.
func TestGridWindows(t *testing.T) {
	for _, c := range []struct {
		nw, n int
		want  []int
	}{
		{7, 3, []int{0, 3, 5, 1, 4, 6, 2}},
		{4, 1, []int{0, 1, 2, 3}},
		{4, 2, []int{0, 2, 1, 3}},
		{2, 3, []int{0, 1}},
	} {
		if got := windows.GridWindows(c.nw, c.n); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("GridWindows(%d, %d) = %v, want %v", c.nw, c.n, got, c.want)
		}
	}
	for nw := 0; nw <= 30; nw++ {
		for n := 1; n <= 8; n++ {
			order := windows.GridWindows(nw, n)
			seen := make([]bool, nw)
			for s := 0; s < n; s++ {
				var ws []int
				for p := s; p < nw; p += n {
					ws = append(ws, order[p])
				}
				for k, w := range ws {
					if w < 0 || w >= nw || seen[w] || (k > 0 && w != ws[k-1]+1) {
						t.Fatalf("GridWindows(%d, %d) = %v: shard %d's windows %v are not consecutive new windows", nw, n, order, s+1, ws)
					}
					seen[w] = true
				}
			}
			for w, ok := range seen {
				if !ok {
					t.Fatalf("GridWindows(%d, %d) = %v: window %d missing", nw, n, order, w)
				}
			}
		}
	}
}

// TestSLOShardsMergeToOneProcess: windowed SLO bounds as three shards,
// merged with the suites' checks, print exactly what the one-process run
// prints, per window included, and that interval meets lp/slo's on the
// whole trace (both contain the optimum) — without a lower overlap and
// with one (whose shard files record it and each window's weighted
// bound, the sum rounded up once in the merge, as in the one process).
// A shard of another SLO is refused, naming slo_tokens; one of another
// overlap (or none) naming lower_overlap_turns.
func TestSLOShardsMergeToOneProcess(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 600, 4)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16, Xi: 200})
	if err != nil {
		t.Fatal(err)
	}
	s := int64(300)
	whole, err := slo.Violations(ctx, in, s, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[int][]string{}
	for _, back := range []int{0, 60} {
		c := base(path)
		c.SLO, c.LowerOverlap = &s, back
		doc, tables, err := c.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := doc.(*windows.SLOReport).SLOBounds
		if b.Windows != 5 || b.Turns != 600 || b.Lower > whole.Upper || b.Upper < whole.Lower || b.Lower > b.Upper || b.LowerOverlap != back {
			t.Fatalf("overlap %d: windowed [%d, %d] over %d windows, %d turns, overlap %d; whole trace [%d, %d]", back, b.Lower, b.Upper, b.Windows, b.Turns, b.LowerOverlap, whole.Lower, whole.Upper)
		}
		var want bytes.Buffer
		if err := report.Emit(&want, "csv", doc, tables...); err != nil {
			t.Fatal(err)
		}
		var f *suite.File
		var got string
		files[back], f, got = mergedShards(t, c, 3, "csv")
		if _, has := f.Options.Params["lower_overlap_turns"]; has != (back > 0) {
			t.Fatalf("overlap %d: setting lower_overlap_turns present %v", back, has)
		}
		if got != want.String() {
			t.Fatalf("overlap %d: merged:\n%s\none process:\n%s", back, got, want.String())
		}
		// A shard of another SLO is refused, naming the setting.
		o := c
		s2 := s + 1
		o.SLO, o.Shard, o.Out = &s2, "3/3", filepath.Join(t.TempDir(), "other.json")
		if _, _, err := o.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := suite.ReadFiles([]string{files[back][0], files[back][1], o.Out}); err == nil || !strings.Contains(err.Error(), "slo_tokens") {
			t.Fatalf("merge of another SLO: %v", err)
		}
	}
	if _, err := suite.ReadFiles([]string{files[0][0], files[0][1], files[60][2]}); err == nil || !strings.Contains(err.Error(), "lower_overlap_turns") {
		t.Fatalf("merge of shards with and without a lower overlap: %v", err)
	}
}

// TestGridShardsMergeToOneProcess: --objective p90 with a grid of
// thresholds (--taus) as three shards, each reading the trace only up to
// one window past its last, merged with the suites' checks, prints
// exactly the one-process run's CSV — without a lower overlap and with one
// (the shard files then carry each window's weighted bounds, summed and
// rounded up once in the merge); that interval meets lp/slo's on the
// whole trace, and the grid, placed around it, decides thresholds both
// ways. A shard of another grid is refused, naming taus_tokens; one of
// another overlap, naming lower_overlap_turns.
func TestGridShardsMergeToOneProcess(t *testing.T) {
	ctx := context.Background()
	path, tr := writeTrace(t, 200, 6)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := objective.Parse("p90")
	whole, err := slo.PercentileOf(ctx, in, o, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[int][]string{}
	for _, back := range []int{0, 25} {
		c := base(path)
		c.Percentile, c.LowerOverlap = &o, back
		c.Taus = []int64{whole.Lower / 2, whole.Lower - 1, whole.Upper, 2 * whole.Upper}
		doc, tables, err := c.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := doc.(*window.GridBounds)
		if b.Windows != 5 || b.Turns != 200 || b.Lower > whole.Upper || b.Upper < whole.Lower || b.LowerOverlap != back {
			t.Fatalf("overlap %d, grid %v: [%d, %d] in %d windows, %d turns, overlap %d; lp/slo whole [%d, %d]", back, c.Taus, b.Lower, b.Upper, b.Windows, b.Turns, b.LowerOverlap, whole.Lower, whole.Upper)
		}
		if b.Probes[0].Decided != "too low" || b.Probes[3].Decided != "achieved" {
			t.Fatalf("overlap %d, grid %v around lp/slo's [%d, %d]: %+v", back, c.Taus, whole.Lower, whole.Upper, b.Probes)
		}
		var want bytes.Buffer
		if err := report.Emit(&want, "csv", doc, tables...); err != nil {
			t.Fatal(err)
		}
		var got string
		files[back], _, got = mergedShards(t, c, 3, "csv")
		if got != want.String() {
			t.Fatalf("overlap %d: merged:\n%s\none process:\n%s", back, got, want.String())
		}
		other := c
		other.Taus, other.Shard, other.Out = []int64{1, 2}, "3/3", filepath.Join(t.TempDir(), "other.json")
		if _, _, err := other.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := suite.ReadFiles([]string{files[back][0], files[back][1], other.Out}); err == nil || !strings.Contains(err.Error(), "taus_tokens") {
			t.Fatalf("merge of another grid: %v", err)
		}
	}
	if _, err := suite.ReadFiles([]string{files[0][0], files[0][1], files[25][2]}); err == nil || !strings.Contains(err.Error(), "lower_overlap_turns") {
		t.Fatalf("merge of shards with and without an overlap: %v", err)
	}
}

// mergedShards runs c as n shards (--shard i/n, each writing its file),
// merges their files with the suites' checks and returns the files, the
// merged file and its rendering in format.
func mergedShards(t *testing.T, c windows.Command, n int, format string) ([]string, *suite.File, string) {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		sh := c
		sh.Shard, sh.Out = fmt.Sprintf("%d/%d", i, n), filepath.Join(t.TempDir(), "shard.json")
		if _, _, err := sh.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		files = append(files, sh.Out)
	}
	f, err := suite.ReadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := windows.Render(&got, f, format); err != nil {
		t.Fatal(err)
	}
	return files, f, got.String()
}
