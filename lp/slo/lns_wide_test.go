package slo

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"pgregory.net/rapid"
)

// A sweep of wide windows never serves fewer than its start, keeps every
// step within capacity (loads recomputed here from the served set) and
// gives an admissible schedule with the violations it counts.
func TestWideSweepNeverWorse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		pr.improve(context.Background(), served)
		before := count(served)
		W := rapid.IntRange(1, 20).Draw(rt, "W")
		opt := wideOptions{nodeLimit: rapid.IntRange(1, 300).Draw(rt, "nodes"), dom: rapid.Bool().Draw(rt, "dom"), rcFix: rapid.Bool().Draw(rt, "rcFix")}
		if _, err := pr.sweepWide(context.Background(), served, W, max(W/2, 1), 0, opt); err != nil {
			rt.Fatal(err)
		}
		checkNeverWorse(rt, pr, served, before)
		checkCounted(rt, pr, s, served)
	})
}

// One window over the whole line without a node limit solves the whole
// program exactly: from nothing served, the sweep's violations are the
// exhaustive optimum (lp/exhaustive), with and without dominance and
// reduced-cost fixing.
func TestWideSweepWholeIsExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 3))
	for i := 0; i < testInstances; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		opt := wideOptions{dom: i%3 != 0, rcFix: i%4 != 0}
		if _, err := pr.sweepWide(context.Background(), served, 2*in.K()+2, 1, 1, opt); err != nil {
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

// The wide stage of a time-limited search never serves fewer than its
// start and keeps every step within capacity (loads recomputed here).
func TestWideStageNeverWorse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		pr.improve(context.Background(), served)
		before := count(served)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		pr.wideStage(ctx, served, nil, defaultLNS())
		checkNeverWorse(rt, pr, served, before)
	})
}
