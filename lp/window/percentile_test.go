package window_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// percentile runs window.RunPercentile on tr in memory.
func percentile(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam int, q string, maxProbes int) *window.PercentileBounds {
	return percentileMode(fatalf, tr, p, size, seam, q, maxProbes, window.UpperFull)
}

// percentileMode is percentile with the windows' upper ends searched as
// mode says.
func percentileMode(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam int, q string, maxProbes int, mode window.SLOUpper) *window.PercentileBounds {
	return percentileOverlap(fatalf, tr, p, size, seam, 0, q, maxProbes, mode)
}

// percentileOverlap is percentileMode with each window's relaxation
// widened back by back steps (SLOOptions.LowerOverlap).
func percentileOverlap(fatalf func(string, ...any), tr *trace.Trace, p instance.Params, size, seam, back int, q string, maxProbes int, mode window.SLOUpper) *window.PercentileBounds {
	o, err := objective.Parse(q)
	if err != nil {
		fatalf("%v", err)
	}
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	b, err := window.RunPercentile(context.Background(), open, window.PercentileOptions{
		SLO: window.SLOOptions{Params: p, WindowTurns: size, SeamTurns: seam, LowerOverlap: back, Upper: mode}, Objective: o, MaxProbes: maxProbes})
	if err != nil {
		fatalf("%v", err)
	}
	for _, pr := range b.Probes {
		if pr.Decided == "achieved" && pr.Tau < b.Upper || pr.Decided == "too low" && pr.Tau >= b.Lower {
			fatalf("probe %+v outside the interval [%d, %d]", pr, b.Lower, b.Upper)
		}
	}
	return b
}

// bruteP is the lowest Q-th percentile of uncached tokens over every
// admissible schedule, by enumeration (lp/exhaustive).
func bruteP(tr *trace.Trace, p instance.Params, q string) int64 {
	o, _ := objective.Parse(q)
	return exhaustive.MinPercentile(tr, p, o.Rank(len(tr.Turns)))
}

// TestPercentileBrute: on tiny traces the windowed percentile interval
// contains the optimum found by enumeration, for every window size and
// seam, and with a budget of 1 or 2 probes too.
func TestPercentileBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 33))
	for i := 0; i < 150; i++ {
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 1 + r.IntN(7); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(21))
		}
		block := int64(1 + r.IntN(4))
		p := instance.Params{Capacity: block * r.Int64N(5), BlockSize: block}
		q := []string{"p50", "p75", "p90", "p99"}[r.IntN(4)]
		want := bruteP(tr, p, q)
		for size := 1; size <= len(tr.Turns); size++ {
			for _, seam := range []int{0, 2} {
				for _, probes := range []int{0, 1, 2} {
					b := percentile(t.Fatalf, tr, p, size, seam, q, probes)
					if b.Lower > want || b.Upper < want {
						t.Fatalf("case %d, %s, %v, windows of %d, seams ±%d, %d probes: [%d, %d] misses %d", i, q, p, size, seam, probes, b.Lower, b.Upper, want)
					}
				}
			}
		}
		// one window is the whole trace: lp/slo's own bounds
		if b := percentile(t.Fatalf, tr, p, len(tr.Turns), 0, q, 0); b.Windows != 1 {
			t.Fatalf("%d windows", b.Windows)
		}
	}
}

// TestPercentileRapid: on random traces the windowed
// interval meets lp/slo's percentile interval on the whole trace (up to
// 100 turns, windows of at least a tenth of them: each probe is a pass
// over every window; TestPercentileBrute takes every window size).
func TestPercentileRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 5))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(12)
		for k := 5 + r.IntN(100); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 2, 8, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block * rapid.Int64Range(0, 40).Draw(rt, "blocks"), BlockSize: block}
		q := rapid.SampledFrom([]string{"p50", "p90", "p95", "p99"}).Draw(rt, "q")
		size := rapid.IntRange(max(1, len(tr.Turns)/10), len(tr.Turns)).Draw(rt, "size")
		seam := rapid.IntRange(0, size).Draw(rt, "seam")
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		o, _ := objective.Parse(q)
		whole, err := slo.PercentileOf(context.Background(), in, o, slo.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		b := percentile(rt.Fatalf, tr, p, size, seam, q, 0)
		if b.Lower > whole.Upper || b.Upper < whole.Lower {
			rt.Fatalf("windows of %d, seams ±%d: [%d, %d] misses lp/slo's [%d, %d]", size, seam, b.Lower, b.Upper, whole.Lower, whole.Upper)
		}
		if b.StartLower > b.Lower || b.Upper > b.StartUpper {
			rt.Fatalf("[%d, %d] outside its start [%d, %d]", b.Lower, b.Upper, b.StartLower, b.StartUpper)
		}
	})
}
