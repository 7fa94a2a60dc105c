package slo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// bruteWindow is the window program by enumeration of every subset: the
// most items whose demands fit res on every step, then the least total
// weight among those.
func bruteWindow(items []wItem, res []int64) (int, int64) {
	best, bestW := -1, int64(0)
	for mask := 0; mask < 1<<len(items); mask++ {
		load := make([]int64, len(res))
		n, w := 0, int64(0)
		for k, it := range items {
			if mask>>k&1 == 1 {
				n++
				w += it.w
				for t := it.a; t < it.n; t++ {
					load[t] += it.d
				}
			}
		}
		ok := true
		for t := range res {
			if load[t] > res[t] {
				ok = false
			}
		}
		if ok && (n > best || n == best && w < bestW) {
			best, bestW = n, w
		}
	}
	return best, bestW
}

// The window's branch and bound is exact: on random windows of up to 12
// items over up to 16 steps, its optimum (most items, then least weight)
// equals enumeration's, it finishes within its node limit, and it never
// returns less than the incumbent it starts from.
func TestWindowSolverBrute(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		steps := rapid.IntRange(1, 16).Draw(rt, "steps")
		res := make([]int64, steps)
		for i := range res {
			res[i] = rapid.Int64Range(0, 12).Draw(rt, "res")
		}
		m := rapid.IntRange(0, 12).Draw(rt, "items")
		items := make([]wItem, m)
		load := make([]int64, steps)
		cur, curW := 0, int64(0)
		for k := range items {
			a := rapid.IntRange(0, steps-1).Draw(rt, "a")
			n := rapid.IntRange(a+1, steps).Draw(rt, "n")
			it := wItem{a: a, n: n, d: rapid.Int64Range(1, 6).Draw(rt, "d"), w: rapid.Int64Range(0, 20).Draw(rt, "w")}
			// served when it fits beside the items served before it:
			// a feasible incumbent
			fits := rapid.Bool().Draw(rt, "try")
			for t := a; t < n && fits; t++ {
				fits = load[t]+it.d <= res[t]
			}
			if fits {
				it.served = true
				cur++
				curW += it.w
				for t := a; t < n; t++ {
					load[t] += it.d
				}
			}
			items[k] = it
		}
		ws := &windowSolver{nodeLimit: 1 << 30}
		ws.items = append(ws.items, items...)
		ws.segments(func(lo, hi int) int64 {
			r := res[lo]
			for t := lo; t <= hi; t++ {
				r = min(r, res[t])
			}
			return r
		})
		if !ws.solve(cur, curW) {
			rt.Fatalf("node limit hit")
		}
		wantN, wantW := bruteWindow(items, res)
		if ws.bestCount != wantN || ws.bestArea != wantW {
			rt.Fatalf("branch and bound %d items weight %d, enumeration %d weight %d", ws.bestCount, ws.bestArea, wantN, wantW)
		}
		if ws.bestCount == cur && ws.bestArea > curW {
			rt.Fatalf("worse than the incumbent: weight %d > %d", ws.bestArea, curW)
		}
		// the point returned is feasible and has the count it claims
		got := make([]wItem, 0, m)
		for k, it := range items {
			if ws.best[k] {
				got = append(got, it)
			}
		}
		if n, _ := bruteWindow(got, res); n != len(got) || len(got) != ws.bestCount {
			rt.Fatalf("returned point: %d items of which %d fit together, claimed %d", len(got), n, ws.bestCount)
		}
	})
}

// randomMedium draws, from a seed rapid picks (uniform draws: rapid's own
// lean towards small values would leave most instances without competing
// pairs), a trace of 10..80 turns over 2..12 conversations with prompts of
// 1..40 and responses of 0..10 tokens, B in 1..4, a capacity of 2..30
// blocks, optional or forced caching, and an SLO as randomSLO, preferring
// instances where pairs compete.
func randomMedium(t *rapid.T) (*lp.Instance, int64) {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 5))
	// up to 20 draws for one whose SLO leaves pairs competing for
	// capacity (where the search has something to do)
	for try := 0; ; try++ {
		tr := &trace.Trace{}
		convs := 2 + r.IntN(11)
		turns := 10 + r.IntN(71)
		for k := 0; k < turns; k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(40), r.Int64N(11))
		}
		b := 1 + r.Int64N(4)
		p := instance.Params{Capacity: b * (2 + r.Int64N(29)), BlockSize: b, Forced: r.IntN(2) == 1}
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			t.Fatal(err)
		}
		s := randomSLO(r, in)
		if try == 19 || len(reduce(in, s).cands) > 0 {
			return in, s
		}
	}
}

// The search never returns more violations than its start — the LP's
// rounding alone (NoImprove), the greedy stages' schedule (NoLNS), or
// nothing carried — and its schedule is admissible with the violations it
// claims, counted here from the schedule.
func TestLNSNeverWorse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		ctx := context.Background()
		starts := map[string][]int64{"nothing": make([]int64, in.K())}
		for name, opt := range map[string]Options{"lp rounding": {NoImprove: true}, "greedy": {NoLNS: true}} {
			r, err := Violations(ctx, in, s, opt)
			if err != nil {
				rt.Fatal(err)
			}
			starts[name] = r.Schedule
		}
		for name, x := range starts {
			imp, err := Improve(ctx, in, s, x, 200, rapid.Uint64().Draw(rt, "seed"))
			if err != nil {
				rt.Fatal(err)
			}
			if err := in.CheckSchedule(imp.Schedule); err != nil {
				rt.Fatalf("from %s: %v", name, err)
			}
			got := Count(in, imp.Schedule, s)
			if got != imp.Violations || got > imp.Start {
				rt.Fatalf("from %s: %d violations (claimed %d), start %d", name, got, imp.Violations, imp.Start)
			}
			if name != "nothing" && imp.Start != Count(in, x, s) {
				rt.Fatalf("from %s: start %d, the schedule has %d", name, imp.Start, Count(in, x, s))
			}
		}
	})
}

// With pinned candidates the search keeps them as pinned, keeps every step
// within capacity (loads recomputed here from the served set) and never
// serves fewer.
func TestLNSFixed(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		m := len(pr.cands)
		served := make([]bool, m)
		pr.improve(context.Background(), served)
		fixed := make([]int8, m)
		for i := range fixed {
			switch rapid.IntRange(0, 3).Draw(rt, "pin") {
			case 0:
				if served[i] {
					fixed[i] = 1
				} else {
					fixed[i] = -1
				}
			}
		}
		before := count(served)
		pr.lns(context.Background(), served, fixed, nil, lnsOptions{maxFree: 10, stall: 100, windows: 300, nodes: 5000, seed: 3})
		if count(served) < before {
			rt.Fatalf("served %d < %d at the start", count(served), before)
		}
		for i := range pr.cands {
			if fixed[i] > 0 && !served[i] || fixed[i] < 0 && served[i] {
				rt.Fatalf("candidate %d pinned %d, served %v", i, fixed[i], served[i])
			}
		}
		if msg := overCapacity(pr, in.K(), served); msg != "" {
			rt.Fatal(msg)
		}
	})
}

// On the small instances of the exhaustive tests, the search from nothing
// never goes below the exhaustive optimum (it would be a schedule the
// enumeration missed, or a miscount) and never above its start.
func TestLNSAgainstExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	for i := 0; i < testInstances; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		imp, err := Improve(context.Background(), in, s, make([]int64, in.K()), 50, uint64(i))
		if err != nil {
			t.Fatalf("%v s=%d: %v", c, s, err)
		}
		if imp.Violations < want || imp.Violations > imp.Start {
			t.Fatalf("%v s=%d: %d violations from a start of %d, exhaustive optimum %d", c, s, imp.Violations, imp.Start, want)
		}
	}
}

// Under a time limit with no integer stage after it, the search does not
// stop while time is left and the schedule can still gain (it starts again
// from its schedule after a stall); it never serves fewer than its start
// and keeps every step within capacity (loads recomputed here).
func TestLNSRestartsUntilDeadline(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		m := len(pr.cands)
		served := make([]bool, m)
		pr.improve(context.Background(), served)
		before := count(served)
		ub := make([]int, pr.ncomp)
		for c := range ub {
			ub[c] = -1
		}
		const limit = 40 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		dl, _ := ctx.Deadline()
		var r Result
		pr.improveLNS(ctx, served, ub, Options{}, &r)
		size := make([]int, pr.ncomp)
		for _, c := range pr.comp {
			size[c]++
		}
		// the search's share ends at 99 % of the time: 0.4 ms before the
		// deadline, well within the 4 ms allowed here
		if time.Until(dl) > limit/10 && !pr.searchDone(served, size, 0) {
			rt.Fatalf("stopped with time left and %d of %d candidates served", count(served), m)
		}
		checkNeverWorse(rt, pr, served, before)
	})
}

// fataler is what the checks below need of a testing.T or rapid.T.
type fataler interface{ Fatalf(string, ...any) }

// checkNeverWorse fails unless served serves at least before candidates
// and keeps every step within capacity (overCapacity's recount).
func checkNeverWorse(t fataler, pr *problem, served []bool, before int) {
	if count(served) < before {
		t.Fatalf("served %d < %d at the start", count(served), before)
	}
	if msg := overCapacity(pr, pr.in.K(), served); msg != "" {
		t.Fatalf("%s", msg)
	}
}

// checkCounted fails unless served's schedule is admissible and has the
// violations at SLO s that its count says (K − always − served).
func checkCounted(t fataler, pr *problem, s int64, served []bool) {
	x := pr.schedule(served)
	if err := pr.in.CheckSchedule(x); err != nil {
		t.Fatalf("%v", err)
	}
	if got, want := Count(pr.in, x, s), pr.in.K()-pr.always-count(served); got != want {
		t.Fatalf("schedule has %d violations, the search counts %d", got, want)
	}
}

// overCapacity recounts, step by step, the blocks the served candidates
// hold over their spans and describes the first step whose load exceeds
// its capacity (in blocks); "" when every step is within it.
func overCapacity(pr *problem, steps int, served []bool) string {
	load := make([]int64, steps)
	for i, c := range pr.cands {
		if served[i] {
			for t := c.a; t < c.n; t++ {
				load[t] += c.d
			}
		}
	}
	for t := range load {
		if load[t] > pr.cap[t] {
			return fmt.Sprintf("step %d: load %d > capacity %d blocks", t, load[t], pr.cap[t])
		}
	}
	return ""
}
