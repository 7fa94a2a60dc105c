package gap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// TestWindowedBracketsExact: on random traces, every row of the windowed
// sweep has the TEL of the exact sweep's row (the same replay), an
// interval containing the exact sweep's TEL_opt (solved by flow), and
// relative gaps on either side of the exact one.
func TestWindowedBracketsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 41))
	for i := 0; i < 12; i++ {
		tr := &trace.Trace{}
		convs := 3 + r.IntN(10)
		for k := 0; k < 40+r.IntN(200); k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(40), r.Int64N(40))
		}
		cfg := Config{Block: 4, Capacities: []int64{0, 16, 64, 256}, Xis: []float64{0, 7.5}, Forced: i%3 == 2,
			Policies: policies.All()[:6], Model: latency.Default(), Workers: 1, Thresholds: []int64{0, 4}}
		exact, err := Run(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Windows = 1 + r.IntN(6)
		win, err := RunWindowed(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(win) != len(exact) {
			t.Fatalf("%d windowed rows, %d exact", len(win), len(exact))
		}
		for j, w := range win {
			e := exact[j]
			if w.Policy != e.Policy || w.CapacityTokens != e.CapacityTokens || w.XiTokens != e.XiTokens || w.TELTokens != e.TELTokens {
				t.Fatalf("row %d: windowed %+v, exact %+v", j, w, e)
			}
			if w.Lower > e.TELOptTokens+tol*max(1, e.TELOptTokens) || w.Upper < e.TELOptTokens-tol*max(1, e.TELOptTokens) {
				t.Fatalf("row %d (%d windows): [%v, %v] misses TEL_opt %v", j, cfg.Windows, w.Lower, w.Upper, e.TELOptTokens)
			}
			if e.RelGap != nil && (w.RelGapAtLeast != nil && *w.RelGapAtLeast > *e.RelGap+tol || w.RelGapAtMost != nil && *w.RelGapAtMost < *e.RelGap-tol) {
				t.Fatalf("row %d: relative gap %v outside [%v, %v]", j, *e.RelGap, *w.RelGapAtLeast, *w.RelGapAtMost)
			}
			if cfg.Windows == 1 && !w.ProvenOptimal {
				t.Fatalf("one window: interval [%v, %v] not closed", w.Lower, w.Upper)
			}
		}
	}
}

// TestWindowedTailBracketsExact: on tiny random traces, every row of the
// windowed sweep for slo and pQ has the value of RunTail's row (the same
// replay), an interval containing the optimum found by enumerating every
// schedule (lp/exhaustive), whatever mode searches the windows' upper
// ends and whatever lower overlap, and a value at least that optimum; with one
// window and seams the interval is lp/slo's on the whole trace, so it
// meets RunTail's.
func TestWindowedTailBracketsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 42))
	for i := 0; i < 40; i++ {
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 0; k < 2+r.IntN(6); k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(20))
		}
		block := int64(1 + r.IntN(3))
		cfg := Config{Block: block, Capacities: []int64{0, block * (1 + r.Int64N(4)), block * 12}, Xis: []float64{0, 3}, Policies: policies.All()[:6],
			Model: latency.Default(), Workers: 1}
		obj := objective.Objective{Kind: objective.SLO}
		spec := TailSpec{Objective: obj, SLOTokens: r.Int64N(25), Solver: "gonum", Model: cfg.Model}
		if i%2 == 1 {
			spec.Objective, _ = objective.Parse([]string{"p50", "p75", "p90"}[r.IntN(3)])
			spec.SLOTokens = 0
		}
		exact, err := RunTail(context.Background(), tr, cfg, spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Windows = 1 + r.IntN(len(tr.Turns))
		o := TailWindowOptions{MaxProbes: r.IntN(3), Upper: window.SLOUpper(r.IntN(3)), LowerOverlap: r.IntN(len(tr.Turns) + 1)}
		win, err := RunTailWindowed(context.Background(), tr, cfg, spec, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(win) != len(exact) {
			t.Fatalf("%d windowed rows, %d exact", len(win), len(exact))
		}
		for j, w := range win {
			e := exact[j]
			if w.Policy != e.Policy || w.CapacityTokens != e.CapacityTokens || w.XiTokens != e.XiTokens || w.Value != e.Value {
				t.Fatalf("case %d row %d: windowed %+v, whole %+v", i, j, w, e)
			}
			p := instance.Params{Capacity: w.CapacityTokens, BlockSize: block}
			var opt int64
			if spec.Objective.Kind == objective.SLO {
				opt = int64(len(tr.Turns) - exhaustive.MaxMeeting(tr, p, spec.SLOTokens))
			} else {
				opt = exhaustive.MinPercentile(tr, p, spec.Objective.Rank(len(tr.Turns)))
			}
			if w.LowerBound > opt || w.UpperBound < opt || w.Value < opt {
				t.Fatalf("case %d row %d (%s, %d windows, upper ends %v, lower overlap %d): [%d, %d], value %d, optimum %d", i, j, spec.Objective, cfg.Windows, o.Upper, o.LowerOverlap, w.LowerBound, w.UpperBound, w.Value, opt)
			}
			if w.AboveLower != w.Value-w.LowerBound || w.AboveUpper != w.Value-w.UpperBound || w.Solver != WindowedSolver || w.Windows < 1 {
				t.Fatalf("case %d row %d: %+v", i, j, w)
			}
			if w.Proven != (w.LowerBound == w.UpperBound) {
				t.Fatalf("case %d row %d: proven %v for [%d, %d]", i, j, w.Proven, w.LowerBound, w.UpperBound)
			}
		}
	}
}
