package slo

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"pgregory.net/rapid"
)

// The sweep on two or three workers, or on one taking the latest ready
// window, ends at exactly the schedule of the sweep on one worker over the
// same order (windows that run side by side or out of order have disjoint
// extents, so each window sees the state of the sequential pass), and so never serves fewer than its start; both keep every step
// within capacity (loads recomputed here) and give admissible schedules
// with the violations they count. Small windows (W of 1..6 segments)
// make most windows of a pass far apart, so that some do run side by
// side.
func TestWideParallelEqualsSequential(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		start := make([]bool, len(pr.cands))
		if rapid.Bool().Draw(rt, "greedy") {
			pr.improve(context.Background(), start)
		}
		W := rapid.IntRange(1, 6).Draw(rt, "W")
		chains := rapid.IntRange(1, 5).Draw(rt, "chains")
		opt := wideOptions{nodeLimit: rapid.IntRange(1, 300).Draw(rt, "nodes"), dom: rapid.Bool().Draw(rt, "dom"),
			rcFix: rapid.Bool().Draw(rt, "rcFix"), oneRule: rapid.Bool().Draw(rt, "oneRule"), branchHigh: rapid.Bool().Draw(rt, "high")}
		seq := slices.Clone(start)
		sws, err := pr.sweepWidePar(context.Background(), seq, W, max(W/2, 1), 0, opt, wideParallel{workers: 1, chains: chains})
		if err != nil {
			rt.Fatal(err)
		}
		for _, p := range []wideParallel{{workers: 1, latest: true}, {workers: 2}, {workers: 3}, {workers: 2, latest: true}} {
			p.chains = chains
			par := slices.Clone(start)
			swp, err := pr.sweepWidePar(context.Background(), par, W, max(W/2, 1), 0, opt, p)
			if err != nil {
				rt.Fatal(err)
			}
			if !slices.Equal(par, seq) || swp != sws {
				rt.Fatalf("%+v: %+v serving %d, one worker: %+v serving %d", p, swp, count(par), sws, count(seq))
			}
		}
		checkNeverWorse(rt, pr, seq, count(start))
		checkCounted(rt, pr, s, seq)
	})
}

// A sweep on two workers cut short by a deadline at any point (windows
// stopped mid-solve, others not started) never serves fewer than its
// start and keeps every step within capacity (loads recomputed here).
func TestWideParallelDeadlineNeverWorse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		pr.improve(context.Background(), served)
		before := count(served)
		W := rapid.IntRange(1, 8).Draw(rt, "W")
		limit := time.Duration(rapid.IntRange(0, 2000).Draw(rt, "µs")) * time.Microsecond
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		opt := wideOptions{nodeLimit: 500, dom: true, rcFix: true, branchHigh: true, oneRule: true}
		if _, err := pr.sweepWidePar(ctx, served, W, max(W/2, 1), 0, opt, wideParallel{workers: 2, chains: 4}); err != nil {
			rt.Fatal(err)
		}
		checkNeverWorse(rt, pr, served, before)
	})
}

// One window over the whole line solved on several workers is the
// exhaustive optimum (lp/exhaustive), from nothing served.
func TestWideParallelWholeIsExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 4))
	for i := 0; i < testInstances/4; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		opt := wideOptions{dom: i%3 != 0, rcFix: i%4 != 0}
		if _, err := pr.sweepWidePar(context.Background(), served, 2*in.K()+2, 1, 1, opt, wideParallel{workers: 2, chains: 2}); err != nil {
			t.Fatal(err)
		}
		x := pr.schedule(served)
		if err := in.CheckSchedule(x); err != nil {
			t.Fatalf("%v s=%d: %v", c, s, err)
		}
		if got := Count(in, x, s); got != want {
			t.Fatalf("%v s=%d %+v: %d violations, exhaustive optimum %d", c, s, opt, got, want)
		}
	}
}

// wideOrder is a permutation of the windows for every chain count and
// shift, left to right within each arc, and with one chain the
// sequential order.
func TestWideOrder(t *testing.T) {
	for _, tc := range []struct {
		n, chains, shift int
		want             []int
	}{
		{5, 1, 0, []int{0, 1, 2, 3, 4}},
		{5, 1, 3, []int{0, 1, 2, 3, 4}},
		{6, 2, 0, []int{0, 3, 1, 4, 2, 5}},
		{6, 2, 1, []int{3, 0, 4, 1, 5, 2}},
		{7, 3, 0, []int{0, 2, 4, 1, 3, 5, 6}},
		{2, 4, 0, []int{0, 1}},
		{0, 2, 0, []int{}},
	} {
		got := wideOrder(tc.n, tc.chains, tc.shift)
		if !slices.Equal(got, tc.want) {
			t.Errorf("wideOrder(%d, %d, %d) = %v, want %v", tc.n, tc.chains, tc.shift, got, tc.want)
		}
	}
}

// TestWideParReference is a measuring tool: with TAILBOUND_WIDE_PAR set
// (turns,seed,limit s,W,nodes,workers,chains,sweep limit s) it runs
// Violations without its search under limit seconds on the paper instance
// of that seed and turns and the search's deterministic budget of narrow
// windows (limit 0: Violations without a time limit), and then sweepWidePar for at most sweep limit seconds, logging
// every window and a summary.
func TestWideParReference(t *testing.T) {
	spec := os.Getenv("TAILBOUND_WIDE_PAR")
	if spec == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_PAR=turns,seed,limit,W,nodes,workers,chains,sweep limit")
	}
	f := splitComma(spec)
	v := make([]int, len(f))
	for i, s := range f {
		v[i], _ = strconv.Atoi(s)
	}
	in := paperInstance(t, v[0], uint64(v[1]))
	start := time.Now()
	// limit 0: Violations without a time limit, its search included
	r, err := Violations(context.Background(), in, 1900, Options{TimeLimit: time.Duration(v[2]) * time.Second, NoLNS: v[2] > 0})
	if err != nil {
		t.Fatal(err)
	}
	pr := reduce(in, 1900)
	served := pr.fromSchedule(r.Schedule)
	base := in.K() - pr.always
	t.Logf("Violations without search: [%d, %d] in %.1fs", r.Lower, r.Upper, time.Since(start).Seconds())
	start = time.Now()
	if v[2] > 0 {
		pr.lns(context.Background(), served, nil, nil, defaultLNS())
	}
	t.Logf("budget: %d violations in %.1fs", base-count(served), time.Since(start).Seconds())
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(v[7])*time.Second)
	defer cancel()
	start = time.Now()
	var open time.Duration
	par := wideParallel{workers: v[5], chains: v[6], log: func(l wideWindowLog) {
		if !l.Exact {
			open += l.Wall
		}
		t.Logf("%6.1fs window %d: %d free, %d served, root %.2f, +%d, %d nodes, exact %v, %.2fs", time.Since(start).Seconds(), l.Window, l.Free, l.Cur, l.Root, l.Gain, l.Nodes, l.Exact, l.Wall.Seconds())
	}}
	wins := pr.wideWindowsOf(v[3], v[3]/2)
	sw, err := pr.sweepWidePar(ctx, served, v[3], v[3]/2, 0, wideOptions{nodeLimit: v[4], dom: true, rcFix: true, branchHigh: true, oneRule: true}, par)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.CheckSchedule(pr.schedule(served)); err != nil {
		t.Fatal(err)
	}
	t.Logf("sweep: %+v of %d windows -> %d violations in %.1fs (%.1fs in windows not closed)", sw, len(wins), base-count(served), time.Since(start).Seconds(), open.Seconds())
}
