package slo

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
)

// TestPercentileSidesBoundsEveryTau: on random small instances (optional
// and forced caching, B = 1..4), at every threshold τ from −1 to the
// largest load, each certified bound the two sides use is at most the
// exhaustive fewest violations V(τ) — the LP's, and the weak dual of the
// prices of an LP solved at another random threshold and of random
// prices — and every schedule they build (the greedy fill, the LP's
// rounding, the search from a schedule of another threshold, the wide
// stage from it or from the LP's rounding) is admissible with at least
// V(τ) violations, the count it claims (the wide stage's no more than its
// start's, repaired).
func TestPercentileSidesBoundsEveryTau(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 90))
	ctx := context.Background()
	for i := 0; i < testInstances/4; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		var maxD int64
		for k := range in.Turns {
			maxD = max(maxD, in.Load(k))
		}
		// prices of an LP at another threshold, and random ones
		other, err := lpLower(ctx, in, r.Int64N(maxD+1), nil)
		if err != nil {
			t.Fatal(err)
		}
		S := 20
		random := &lpPrices{pi: make([]int64, in.K()+1), S: S}
		for v := range random.pi {
			random.pi[v] = r.Int64N(1 << (S + 1))
		}
		var start []int64
		for tau := int64(-1); tau <= maxD; tau++ {
			want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, tau)
			at, err := lpLower(ctx, in, tau, other.prices)
			if err != nil {
				t.Fatal(err)
			}
			if at.lower > want {
				t.Fatalf("%v τ=%d: LP bound %d above the fewest violations %d", c, tau, at.lower, want)
			}
			if at.exact && at.lower != want {
				t.Fatalf("%v τ=%d: no candidates, bound %d, fewest violations %d", c, tau, at.lower, want)
			}
			for _, p := range []*lpPrices{other.prices, random, at.prices} {
				if p == nil {
					continue
				}
				if d := dualLower(in, tau, p); d > want {
					t.Fatalf("%v τ=%d: dual bound %d above the fewest violations %d", c, tau, d, want)
				}
			}
			t0 := time.Now()
			sp, split, err := splitLower(ctx, in, tau, 0, other.prices, nil)
			wall := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			} else if split <= 0 || split > wall {
				t.Fatalf("%v τ=%d: the split's time %v, not in (0, %v], the call's", c, tau, split, wall)
			} else if sp.lower > want || sp.lower < at.lower && !math.IsNaN(sp.lp) {
				t.Fatalf("%v τ=%d: the split's bound %d, the LP's %d, fewest violations %d", c, tau, sp.lower, at.lower, want)
			}
			// from the LP lpAt solved (cold: no LPs before it), the same
			// bound as a split solving that cold LP itself; compared with
			// the same start, so that an LP with several optimal duals
			// cannot make them differ
			var pts []lowerAt
			if _, solved, err := lpAt(ctx, in, tau, &pts); err != nil {
				t.Fatal(err)
			} else if solved != nil {
				own, _, err := splitLower(ctx, in, tau, 0, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if again, _, err := splitLower(ctx, in, tau, 0, nil, solved); err != nil {
					t.Fatal(err)
				} else if again.lower != own.lower {
					t.Fatalf("%v τ=%d: the split from the LP already solved bounds %d, from its own LP %d", c, tau, again.lower, own.lower)
				}
			}
			if at.schedule != nil {
				if v := Count(in, at.schedule, tau); v < want || in.CheckSchedule(at.schedule) != nil {
					t.Fatalf("%v τ=%d: the LP's rounding has %d violations, fewest %d", c, tau, v, want)
				}
			}
			opt := defaultLNS()
			opt.windows, opt.stall, opt.seed = 50, 20, uint64(tau+2)
			for _, o := range []lnsOptions{{}, opt} {
				x, v, err := scheduleAt(ctx, in, tau, 0, start, at.serve, o)
				if err != nil {
					t.Fatal(err)
				}
				if v < want || v != Count(in, x, tau) || in.CheckSchedule(x) != nil {
					t.Fatalf("%v τ=%d: schedule with %d violations (counted %d), fewest %d", c, tau, v, Count(in, x, tau), want)
				}
				start = x
			}
			// the wide stage: from start alone, from start then (cut
			// at once) from the LP's rounding, from the rounding first;
			// never worse than start repaired
			repaired, _, err := scheduleAt(ctx, in, tau, 0, start, nil, lnsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				warm  *lpPrices
				stuck time.Duration
			}{{nil, 0}, {other.prices, time.Nanosecond}, {other.prices, 0}} {
				dctx, cancel := context.WithTimeout(ctx, time.Minute)
				x, v, _, err := wideScheduleAt(dctx, in, tau, 0, start, at.serve, w.warm, w.stuck, uint64(tau+2))
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if v < want || v != Count(in, x, tau) || in.CheckSchedule(x) != nil || v > Count(in, repaired, tau) {
					t.Fatalf("%v τ=%d stuck %v: the wide stage's schedule with %d violations (counted %d), fewest %d, its start repaired %d", c, tau, w.stuck, v, Count(in, x, tau), want, Count(in, repaired, tau))
				}
			}
		}
	}
}

// TestPercentileSidesAgainstExhaustive: the two sides' interval holds the
// exhaustive least percentile (p50, p90, p99; optional and forced
// caching) one after the other (no deadline) and at once (a deadline),
// with and without the stretches, its schedule attains its upper end;
// and PercentileOf with an integer-program backend proves the optimum.
func TestPercentileSidesAgainstExhaustive(t *testing.T) {
	for _, q := range []float64{50, 90, 99} {
		r := rand.New(rand.NewPCG(uint64(q), 46))
		for i := 0; i < testInstances/4; i++ {
			c := randomTiny(r, 11, i%2 == 1)
			in := mustInstance(t, c)
			o := objective.Objective{Kind: objective.Percentile, Q: q}
			want := exhaustive.MinPercentile(c.tr, c.p, o.Rank(in.K()))
			for _, deadline := range []bool{false, true} {
				for _, opt := range []Options{{}, {Backend: gonumlp.Backend{}}} {
					ctx := context.Background()
					if deadline {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, time.Minute)
						defer cancel()
					}
					got, err := percentileTwoSided(ctx, in, o, opt)
					if err != nil {
						t.Fatalf("%v p%v: %v", c, q, err)
					}
					if got.Lower > want || got.Upper < want || got.Proven != (got.Lower == got.Upper) {
						t.Fatalf("%v p%v deadline %v backend %v: [%d, %d], exhaustive %d", c, q, deadline, opt.Backend != nil, got.Lower, got.Upper, want)
					}
					if Quantile(in, got.Schedule, got.Rank) != got.Upper || in.CheckSchedule(got.Schedule) != nil {
						t.Fatalf("%v p%v: the schedule does not attain %d", c, q, got.Upper)
					}
				}
			}
			both, err := PercentileOf(context.Background(), in, o, Options{Backend: gonumlp.Backend{}})
			if err != nil {
				t.Fatal(err)
			}
			if !both.Proven || both.Upper != want {
				t.Fatalf("%v p%v: with the backend [%d, %d], exhaustive %d", c, q, both.Lower, both.Upper, want)
			}
		}
	}
}

// TestNextLPTau: where the lower side solves its next LP, worked by hand
// (M = 100, so the crossing sought is where the LP's value is 100.5).
func TestNextLPTau(t *testing.T) {
	const M = 100
	pt := func(tau int64, lp float64) lowerAt {
		return lowerAt{tau: tau, lp: lp, lower: int(math.Ceil(lp - 1e-9))}
	}
	for _, c := range []struct {
		name    string
		pts     []lowerAt
		lo, hi  int64
		slope   float64
		want    int64
		settled bool
	}{
		{"no LP yet: at the greedy schedule's crossing", nil, 10, 300, 0, 299, false},
		// the line through (200, 110.5) and (220, 90.5) meets 100.5 at 210
		{"between two LPs: their line", []lowerAt{pt(200, 110.5), pt(220, 90.5)}, 205, 300, 0, 210, false},
		// 40.5 violations short at 2 per token: 20.25 tokens below 250
		{"above the crossing: its gap at the sweep's slope", []lowerAt{pt(250, 60)}, 10, 300, 2, 229, false},
		// unknown slope: one violation per token
		{"above, slope unknown", []lowerAt{pt(250, 60)}, 10, 300, 0, 209, false},
		// 20 violations above at slope 4 is 5 tokens, less than half the sweep
		{"below the crossing: at least half the sweep", []lowerAt{pt(100, 120.5)}, 103, 300, 4, 103 + dualSweep/2, false},
		{"clamped to (lo, hi)", []lowerAt{pt(250, 60)}, 240, 300, 0.01, 241, false},
		{"the LP at lo+1 left it open: settled", []lowerAt{pt(200, 110.5), pt(206, 99)}, 205, 300, 0, 0, true},
		{"ends met", nil, 205, 206, 0, 0, false},
	} {
		got, settled := nextLPTau(c.pts, c.lo, c.hi, M, c.slope)
		if got != c.want || settled != c.settled {
			t.Errorf("%s: got %d settled %v, want %d settled %v", c.name, got, settled, c.want, c.settled)
		}
	}
}

// TestPercentileSidesConcurrent: on a birth–death trace of 1,000 turns
// (capacity 16,384 tokens, B = 16, so that the LP leaves gaps), the two
// sides at once under a deadline (run with -race: they share the
// interval, the schedule and the LP's values) and one after the other
// without one give certified intervals of the same percentile, which
// must overlap, each with a schedule attaining its upper end.
func TestPercentileSidesConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("several LPs of 1,000 turns")
	}
	for seed := uint64(1); seed <= 1; seed++ {
		p := birthdeath.Default()
		p.MaxTurns = 1000
		tr, err := birthdeath.Trace(p, seed)
		if err != nil {
			t.Fatal(err)
		}
		in, err := lp.NewInstance(tr, instance.Params{Capacity: 16384, BlockSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		o := objective.Objective{Kind: objective.Percentile, Q: 90}
		seq, err := percentileTwoSided(context.Background(), in, o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		par, err := percentileTwoSided(ctx, in, o, Options{Backend: gonumlp.Backend{}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if max(seq.Lower, par.Lower) > min(seq.Upper, par.Upper) {
			t.Fatalf("seed %d: one after the other [%d, %d], at once [%d, %d]: disjoint", seed, seq.Lower, seq.Upper, par.Lower, par.Upper)
		}
		for _, r := range []*PercentileResult{seq, par} {
			if Quantile(in, r.Schedule, r.Rank) != r.Upper || in.CheckSchedule(r.Schedule) != nil {
				t.Fatalf("seed %d: the schedule does not attain %d", seed, r.Upper)
			}
		}
		t.Logf("seed %d: one after the other [%d, %d] (%d probes), at once [%d, %d] (%d probes)", seed, seq.Lower, seq.Upper, seq.Probes, par.Lower, par.Upper, par.Probes)
	}
}

// TestSplitGuess: the guess lies strictly inside the bracket, at the
// midpoint without solved LPs on both sides, and where the line through
// them crosses the need otherwise (LP values 110 at τ = 10 and 90 at
// τ = 30 cross 101.5 at τ = 18.5, rounded down to 18).
func TestSplitGuess(t *testing.T) {
	val := func(p lowerAt) float64 { return p.lp }
	p := func(tau int64, lp float64) lowerAt { return lowerAt{tau: tau, lp: lp, exact: true} }
	for _, c := range []struct {
		name string
		pts  []lowerAt
		a, b int64
		want int64
	}{
		{"none", nil, 0, 40, 20},
		{"one side", []lowerAt{p(10, 110)}, 10, 40, 25},
		{"line", []lowerAt{p(10, 110), p(30, 90)}, 10, 30, 18},
		{"line beyond the bracket", []lowerAt{p(10, 110), p(30, 90)}, 12, 20, 18},
		{"clamped up", []lowerAt{p(10, 110), p(30, 90)}, 19, 25, 20},
		{"clamped down", []lowerAt{p(10, 110), p(30, 90)}, 10, 15, 14},
		{"unfinished LPs ignored", []lowerAt{p(10, 110), {tau: 12, lp: math.NaN()}, p(30, 90)}, 10, 30, 18},
	} {
		if got := splitGuess(c.pts, c.a, c.b, val, 101.5); got != c.want {
			t.Errorf("%s: splitGuess in (%d, %d) = %d, want %d", c.name, c.a, c.b, got, c.want)
		}
	}
}

// TestDescent: the wide probes' thresholds below hi, worked by hand. The
// distance doubles after each probe that meets its target (1, 2, 4, 8)
// until a jump misses; then it halves on each miss and no longer grows;
// a jump that would reach the highest threshold a jump missed at goes
// halfway from there to hi instead (or is the walk's hi − 1), and one
// that would reach lo or below is a probe at hi − 1.
func TestDescent(t *testing.T) {
	type step struct {
		lo, hi int64
		want   int64 // next(lo, hi)
		met    bool  // the probe met its target (else it missed)
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"doubling", []step{{1200, 1291, 1290, true}, {1200, 1290, 1288, true}, {1200, 1288, 1284, true}, {1200, 1284, 1276, true}, {1200, 1276, 1260, true}}},
		{"a miss halves and stops the doubling", []step{
			{1200, 1291, 1290, true}, {1200, 1290, 1288, true}, {1200, 1288, 1284, true},
			{1200, 1284, 1276, false}, // jump 8 missed: 4, floor 1,276
			{1200, 1284, 1280, true},  // stays 4
			{1200, 1280, 1278, false}, // 1,276 is the floor: halfway to 1,280; missed: 2, floor 1,278
			{1200, 1280, 1279, true},  // halfway is hi − 1: the walk
			{1200, 1279, 1278, false}, {1200, 1279, 1278, true},
		}},
		{"not down to lo", []step{{1270, 1280, 1279, true}, {1270, 1279, 1277, true}, {1270, 1277, 1273, true}, {1270, 1273, 1272, true}}},
	} {
		d := descent{jump: 1}
		for i, s := range c.steps {
			if got := d.next(s.lo, s.hi); got != s.want {
				t.Fatalf("%s, step %d: next(%d, %d) = %d, want %d", c.name, i, s.lo, s.hi, got, s.want)
			}
			switch {
			case s.met:
				d.met()
			case s.want < s.hi-1:
				d.miss(s.want)
			}
		}
	}
	// a long walk with every jump below lo: the distance must not
	// overflow into a threshold outside (lo, hi)
	d := descent{jump: 1}
	for i := range 200 {
		if got := d.next(1000, 1010); got != 1009 && got != 1008 && got != 1006 && got != 1002 {
			t.Fatalf("after %d probes met: next(1000, 1010) = %d, outside the walk's and the jumps' thresholds", i, got)
		}
		d.met()
	}
}

// TestSplitBudget checks the lower side's split budget against
// hand-worked deadlines (100 s left, margins of seconds so that the
// test's own time cannot change an answer): a split at lo + 1 has all
// the time left, one above it half unless that is under 1.2 times the
// last split; steps fit when a split and splitSteps steps of the last
// split's time do.
func TestSplitBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	for _, c := range []struct {
		last  time.Duration
		final bool
		want  time.Duration // the split's time left, about
	}{
		{10 * time.Second, false, 50 * time.Second},
		{10 * time.Second, true, 100 * time.Second},
		{45 * time.Second, false, 100 * time.Second}, // 50 s < 1.2 · 45 s
		{45 * time.Second, true, 100 * time.Second},
	} {
		sctx, scancel := splitContext(ctx, c.last, c.final)
		sdl, ok := sctx.Deadline()
		scancel()
		if got := time.Until(sdl); !ok || got > c.want || got < c.want-5*time.Second {
			t.Errorf("splitContext(last %v, final %v): %v left, want about %v", c.last, c.final, got, c.want)
		}
	}
	for _, c := range []struct {
		last time.Duration
		want bool
	}{
		{20 * time.Second, true},  // 4 · 20 s = 80 s, under 100 s less the test's time
		{26 * time.Second, false}, // 4 · 26 s = 104 s, over it (3 · 26 s = 78 s would fit)
		{30 * time.Second, false},
	} {
		if got := stepsFit(ctx, c.last); got != c.want {
			t.Errorf("stepsFit(last %v) = %v, want %v (splitSteps = %d)", c.last, got, c.want, splitSteps)
		}
	}
	if !stepsFit(context.Background(), time.Hour) {
		t.Error("stepsFit without a deadline = false, want true")
	}
}
