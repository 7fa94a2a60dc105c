package window_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// The properties lower ≤ exact ≤ upper for the windowed SLO and
// percentile bounds at the turn level, with exact from a solver that does
// not use windows: enumeration of every schedule (lp/exhaustive) on tiny
// traces, and lp/slo with an integer-program backend (gonum) where it
// proves its answer, on traces of tens of turns. TEL has its own
// (TestBoundsRapid against lp.SolveFlow, TestBrute against enumeration);
// the block level's are lp/prefixtail's TestWindowedRapid.

// tinyTrace draws a trace of 1–8 turns over 1–3 conversations and cache
// parameters (B in 1–4 tokens, C in 0–5 blocks), small enough to
// enumerate every schedule.
func tinyTrace(rt *rapid.T) (*trace.Trace, instance.Params) { return tinyTraceOf(rt, 8) }

// tinyTraceOf is tinyTrace with at most maxTurns turns.
func tinyTraceOf(rt *rapid.T, maxTurns int) (*trace.Trace, instance.Params) {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 7))
	tr := &trace.Trace{}
	convs := rapid.IntRange(1, 3).Draw(rt, "conversations")
	for k := rapid.IntRange(1, maxTurns).Draw(rt, "turns"); k > 0; k-- {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(21))
	}
	block := rapid.Int64Range(1, 4).Draw(rt, "block")
	return tr, instance.Params{Capacity: block * rapid.Int64Range(0, 5).Draw(rt, "blocks"), BlockSize: block}
}

// TestSLORapidExact: the windowed SLO interval, for any window size,
// seam and lower overlap (beyond a window included), contains the fewest violations found by enumeration, and its
// stitched schedule is admissible with Upper violations (checkSLO).
func TestSLORapidExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTrace(rt)
		s := rapid.Int64Range(0, 30).Draw(rt, "slo")
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		back := rapid.IntRange(0, size+1).Draw(rt, "lower overlap")
		opt := len(tr.Turns) - exhaustive.MaxMeeting(tr, p, s)
		checkSLOOverlap(rt.Fatalf, tr, p, size, seam, back, s, opt, opt, window.UpperFull)
	})
}

// TestPercentileRapidExact: the windowed percentile interval — searched
// (any probe budget and lower overlap) and at a random grid of thresholds
// (SumGrid, the same overlap), the
// windows' upper ends searched in any mode (SLOUpper) — contains the
// lowest percentile found by enumeration, for any window size and seam.
func TestPercentileRapidExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr, p := tinyTrace(rt)
		qs := rapid.SampledFrom([]string{"p25", "p50", "p75", "p90", "p99"}).Draw(rt, "q")
		size := rapid.IntRange(1, len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		mode := rapid.SampledFrom(modes).Draw(rt, "mode")
		want := bruteP(tr, p, qs)
		back := rapid.IntRange(0, size).Draw(rt, "lower overlap")
		b := percentileOverlap(rt.Fatalf, tr, p, size, seam, back, qs, rapid.IntRange(0, 3).Draw(rt, "probes"), mode)
		if b.Lower > want || b.Upper < want || b.LowerOverlap != back {
			rt.Fatalf("searched, upper ends %v, lower overlap %d: [%d, %d] (overlap %d) misses %d", mode, back, b.Lower, b.Upper, b.LowerOverlap, want)
		}
		taus := slices.Compact(slices.Sorted(slices.Values(rapid.SliceOfN(rapid.Int64Range(0, 45), 1, 5).Draw(rt, "taus"))))
		figs, err := gridMode(tr, p, size, seam, back, taus, nil, mode)
		if err != nil {
			rt.Fatal(err)
		}
		q, _ := objective.Parse(qs)
		g, err := window.SumGrid(figs, taus, len(tr.Turns), q, size, seam)
		if err != nil {
			rt.Fatal(err)
		}
		if g.Lower > want || g.Upper < want {
			rt.Fatalf("grid %v, upper ends %v, lower overlap %d: [%d, %d] misses %d", taus, mode, back, g.Lower, g.Upper, want)
		}
	})
}

// TestSLORapidIP: on traces of 10–60 turns the windowed SLO interval
// contains the fewest violations whenever lp/slo with the gonum integer
// program proves it on the whole trace (cases it does not prove within
// its time limit are skipped: their interval is checked by TestSLORapid).
func TestSLORapidIP(t *testing.T) {
	proven := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 8))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(8)
		for k := rapid.IntRange(10, 60).Draw(rt, "turns"); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block * rapid.Int64Range(0, 12).Draw(rt, "blocks"), BlockSize: block}
		s := rapid.Int64Range(0, 150).Draw(rt, "slo")
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		whole, err := slo.Violations(context.Background(), in, s, slo.Options{Backend: gonumlp.Backend{}, TimeLimit: 5 * time.Second})
		if err != nil {
			rt.Fatal(err)
		}
		if !whole.Proven {
			rt.Skipf("lp/slo did not prove [%d, %d]", whole.Lower, whole.Upper)
		}
		proven++
		size := rapid.IntRange(max(1, len(tr.Turns)/8), len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		checkSLO(rt.Fatalf, tr, p, size, seam, s, whole.Lower, whole.Lower)
	})
	if proven == 0 {
		t.Fatal("lp/slo proved no case: the property was never checked")
	}
	t.Logf("%d cases proven by lp/slo and checked", proven)
}
