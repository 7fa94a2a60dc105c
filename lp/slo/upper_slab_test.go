package slo

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"

	"pgregory.net/rapid"
)

// A slab solved to the end serves exactly as many of its freed candidates
// as enumeration of every subset of them allows beside the fixed rest
// (bruteWindow on the residual capacities, computed here from the served
// set), never fewer than it started with, and leaves every step within
// capacity; the slack tree it updates equals one rebuilt from scratch.
func TestSlabAgainstEnumeration(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		m := len(pr.cands)
		if m == 0 {
			return
		}
		served := make([]bool, m)
		if rapid.Bool().Draw(rt, "greedy") {
			pr.improve(context.Background(), served)
		}
		var free []int
		for i := range m {
			if len(free) < 14 && rapid.IntRange(0, 2).Draw(rt, "free") > 0 {
				free = append(free, i)
			}
		}
		K := in.K()
		isFree := make([]bool, m)
		for _, i := range free {
			isFree[i] = true
		}
		res := make([]int64, K)
		copy(res, pr.cap)
		for i, c := range pr.cands {
			if served[i] && !isFree[i] {
				for t := c.a; t < c.n; t++ {
					res[t] -= c.d
				}
			}
		}
		items := make([]wItem, len(free))
		cur := 0
		for k, i := range free {
			c := pr.cands[i]
			items[k] = wItem{a: c.a, n: c.n, d: c.d}
			if served[i] {
				cur++
			}
		}
		want, _ := bruteWindow(items, res)
		st := pr.slackOf(served)
		var ss stretchSolver
		r := pr.solveSlab(context.Background(), &ss, st, served, free, 1<<30)
		if !r.exact || r.refused {
			rt.Fatalf("exact %v refused %v", r.exact, r.refused)
		}
		got := 0
		for _, i := range free {
			if served[i] {
				got++
			}
		}
		if got != want || r.gain != got-cur || got < cur {
			rt.Fatalf("slab serves %d of its %d (gain %d from %d), enumeration %d", got, len(free), r.gain, cur, want)
		}
		fresh := pr.slackOf(served)
		for tt := range K {
			if v := fresh.Max(tt, tt); v > 0 || v != st.Max(tt, tt) {
				rt.Fatalf("step %d: load − capacity %d, tree says %d", tt, v, st.Max(tt, tt))
			}
		}
	})
}

// A sweep whose slabs hold every candidate, solved to the end, is the
// whole 0/1 program: from the greedy fill (or from nothing) it reaches the
// exhaustive optimum of the small instances of the package's tests,
// optional and forced, B = 1..4, and its schedule is admissible with the
// violations counted from it.
func TestSlabSweepExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 7))
	for i := 0; i < testInstances; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		if i%4 < 2 {
			pr.improve(context.Background(), served)
		}
		sw := pr.sweepSlabs(context.Background(), served, len(pr.cands), in.K(), 1<<30)
		x := pr.schedule(served)
		if err := in.CheckSchedule(x); err != nil {
			t.Fatalf("%v s=%d: %v", c, s, err)
		}
		got := Count(in, x, s)
		if got != want || sw.Refused > 0 || len(pr.cands) > 0 && sw.Exact != sw.Slabs {
			t.Fatalf("%v s=%d: %d violations after %+v, exhaustive optimum %d", c, s, got, sw, want)
		}
	}
}
