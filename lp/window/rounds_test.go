package window_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// roundsSharded runs the rounds of o on tr as n shards would: each round's
// windows split among n disjoint Mine sets (consecutive windows, as the
// shards of solve --windows take them), each shard's figures solved on
// its own and the rounds advanced on their union in window order.
func roundsSharded(tr *trace.Trace, o window.RoundOptions, n int) (*window.Rounds, error) {
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	r, err := window.StartRounds(open, o)
	if err != nil {
		return nil, err
	}
	for len(r.Next) > 0 {
		figs := make([]window.GridFigures, r.Windows)
		for s := 0; s < n; s++ {
			so := o.SLO
			so.Mine = func(w int) bool { return w*n/r.Windows == s }
			part, err := window.RunPercentileGrid(context.Background(), open, window.GridOptions{SLO: so, Taus: r.Next})
			if err != nil {
				return nil, err
			}
			for _, f := range part {
				figs[f.Index] = f
			}
		}
		for i := range figs {
			figs[i].Seconds = 0
		}
		if err := r.Advance(figs); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// TestRoundsRapidExact: the rounds' interval, for any window size, seam,
// lower overlap, thresholds per round and probe budget, contains the lowest percentile
// found by enumerating every schedule (lp/exhaustive), every threshold
// decided too low lies below it and every one achieved at or above it;
// it is SumGrid's interval over every threshold probed (run again in one
// grid) intersected with the start bounds; the probes respect the budget;
// rounds run as 1–3 shards reach the same state, round by round, as the
// one process; and the interval meets RunPercentile's (both certified).
func TestRoundsRapidExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTrace(rt)
		qs := rapid.SampledFrom([]string{"p25", "p50", "p75", "p90", "p99"}).Draw(rt, "q")
		q, _ := objective.Parse(qs)
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		back := rapid.IntRange(0, size).Draw(rt, "lower overlap")
		o := window.RoundOptions{SLO: window.SLOOptions{Params: p, WindowTurns: size, SeamTurns: seam, LowerOverlap: back}, Objective: q,
			PerRound: rapid.IntRange(1, 4).Draw(rt, "per round"), MaxProbes: rapid.IntRange(0, 6).Draw(rt, "max probes")}
		open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
		r, err := window.RunRounds(context.Background(), open, o)
		if err != nil {
			rt.Fatal(err)
		}
		want := bruteP(tr, p, qs)
		if r.Lower > want || r.Upper < want || r.LowerOverlap != back {
			rt.Fatalf("rounds, lower overlap %d: [%d, %d] (overlap %d) misses %d", back, r.Lower, r.Upper, r.LowerOverlap, want)
		}
		var all []int64
		for i, d := range r.Done {
			if len(d) == 0 || len(d) > o.PerRound {
				rt.Fatalf("round %d probed %d thresholds, want 1–%d", i+1, len(d), o.PerRound)
			}
			for _, pr := range d {
				if pr.Decided == "too low" && pr.Tau >= want || pr.Decided == "achieved" && pr.Tau < want {
					rt.Fatalf("round %d: τ = %d %s, but P_Q,opt = %d", i+1, pr.Tau, pr.Decided, want)
				}
				all = append(all, pr.Tau)
			}
		}
		if o.MaxProbes > 0 && len(all) > o.MaxProbes {
			rt.Fatalf("%d probes, at most %d allowed", len(all), o.MaxProbes)
		}
		if len(r.Next) != 0 {
			rt.Fatalf("finished with next thresholds %v", r.Next)
		}
		if o.MaxProbes == 0 && len(all) > 0 && r.Lower < r.Upper {
			// Unlimited: the search stops only when every threshold left
			// in (Lower − 1, Upper) lies between undecided ones.
			for tau := r.Lower; tau < r.Upper; tau++ {
				var below, above bool
				for _, d := range r.Done {
					for _, pr := range d {
						below = below || pr.Decided == "undecided" && pr.Tau <= tau
						above = above || pr.Decided == "undecided" && pr.Tau >= tau
					}
				}
				if !below || !above {
					rt.Fatalf("unlimited search stopped at [%d, %d] with τ = %d not enclosed by undecided thresholds", r.Lower, r.Upper, tau)
				}
			}
		}
		if len(all) > 0 {
			slices.Sort(all)
			if len(slices.Compact(slices.Clone(all))) != len(all) {
				rt.Fatalf("a threshold probed twice: %v", all)
			}
			figs, err := gridMode(tr, p, size, seam, back, all, nil, window.UpperFull)
			if err != nil {
				rt.Fatal(err)
			}
			g, err := window.SumGrid(figs, all, len(tr.Turns), q, size, seam)
			if err != nil {
				rt.Fatal(err)
			}
			if lo, hi := max(r.StartLower, g.Lower), min(r.StartUpper, g.Upper); r.Lower != lo || r.Upper != hi {
				rt.Fatalf("rounds [%d, %d], the grid of their thresholds %v with the start bounds [%d, %d]", r.Lower, r.Upper, all, lo, hi)
			}
		} else if r.Lower != r.StartLower || r.Upper != r.StartUpper {
			rt.Fatalf("no probe, yet [%d, %d] ≠ the start [%d, %d]", r.Lower, r.Upper, r.StartLower, r.StartUpper)
		}
		n := rapid.IntRange(1, 3).Draw(rt, "shards")
		sh, err := roundsSharded(tr, o, n)
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(sh, r) {
			rt.Fatalf("%d shards: %+v\none process: %+v", n, sh, r)
		}
		s := percentile(rt.Fatalf, tr, p, size, seam, qs, o.MaxProbes)
		if max(s.Lower, r.Lower) > min(s.Upper, r.Upper) {
			rt.Fatalf("searched [%d, %d] and rounds [%d, %d] are disjoint", s.Lower, s.Upper, r.Lower, r.Upper)
		}
	})
}

// TestRoundsHandWorked: x 1 token, a 10 then 5 more (D = 15), y 1, C = 10
// tokens, B = 1, p75 (rank 3 of 4: one turn may exceed), windows of 2
// steps, seams ±1 (the example of solve --taus in docs/windows.md). The
// start bounds are [5, 10] (least possible counts 1, 10, 5, 1; loads 1,
// 10, 15, 1). Two thresholds a round split (4, 10): 6 and 8, both
// achieved (the seam carries a's 10 tokens, only a's first turn exceeds
// them), so Upper = 6; the next round has only 5 left, achieved too, and
// the interval closes at 5 after 2 rounds, 3 probes. One threshold a
// round bisects: 7, then 5 (each achieved), closing at 5 as well.
func TestRoundsHandWorked(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	q, _ := objective.Parse("p75")
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	for _, tc := range []struct {
		perRound int
		want     [][]int64 // each round's thresholds
	}{
		{2, [][]int64{{6, 8}, {5}}},
		{1, [][]int64{{7}, {5}}},
	} {
		r, err := window.RunRounds(context.Background(), open, window.RoundOptions{SLO: window.SLOOptions{Params: instance.Params{Capacity: 10, BlockSize: 1},
			WindowTurns: 2, SeamTurns: 1}, Objective: q, PerRound: tc.perRound})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]int64
		for _, d := range r.Done {
			var taus []int64
			for _, pr := range d {
				if pr.Decided != "achieved" || pr.Lower != 1 || pr.Upper != 1 {
					t.Errorf("%d a round: τ = %d: %+v, want achieved with [1, 1] violations", tc.perRound, pr.Tau, pr)
				}
				taus = append(taus, pr.Tau)
			}
			got = append(got, taus)
		}
		if r.StartLower != 5 || r.StartUpper != 10 || r.Lower != 5 || r.Upper != 5 || !r.ProvenOptimal || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%d a round: start [%d, %d], end [%d, %d], rounds %v; want [5, 10], [5, 5], %v", tc.perRound, r.StartLower, r.StartUpper, r.Lower, r.Upper, got, tc.want)
		}
	}
}

// The example of TestRoundsHandWorked: the τ search of the 75th
// percentile in rounds of two thresholds.
func ExampleRunRounds() {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	q, _ := objective.Parse("p75")
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	r, err := window.RunRounds(context.Background(), open, window.RoundOptions{SLO: window.SLOOptions{Params: instance.Params{Capacity: 10, BlockSize: 1},
		WindowTurns: 2, SeamTurns: 1}, Objective: q, PerRound: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, d := range r.Done {
		for _, pr := range d {
			fmt.Printf("round %d: τ = %d tokens %s\n", i+1, pr.Tau, pr.Decided)
		}
	}
	fmt.Printf("p75 in [%d, %d] tokens\n", r.Lower, r.Upper)
	// Output:
	// round 1: τ = 6 tokens achieved
	// round 1: τ = 8 tokens achieved
	// round 2: τ = 5 tokens achieved
	// p75 in [5, 5] tokens
}
