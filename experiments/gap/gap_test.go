package gap

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// tol: TELs are sums of a few dozen terms with half-token fractions, exact
// in float64; solvers are accurate to 1e-9 relative.
const tol = 1e-6

func splitBlock() *trace.Trace {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	return tr
}

// TestSolveHandWorked: the split-block instance (see lp's hand tests):
// optimum 1 token, LP bound 0, fractional; to-belady evicts b's block (b
// returns last), so a's return is served and b's has excess 1: TEL 1.
func TestSolveHandWorked(t *testing.T) {
	tr := splitBlock()
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2, BlockSize: 2, Xi: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []lp.Formulation{lp.Compact, lp.Paper} {
		r, err := Solve(context.Background(), tr, in, Spec{Formulation: f, Solver: "auto", CrossCheck: true, Model: latency.Default()})
		if err != nil {
			t.Fatal(err)
		}
		if *r.TELOptTokens != 1 || *r.LPBoundTokens != 0 || *r.Integral || r.BeladyTELTokens != 1 || *r.FlowTELTokens != 1 ||
			len(r.Disagreements) != 0 || r.ScheduleCheck != "ok" || r.Status != "optimal" {
			t.Errorf("%s: %+v", f, r)
		}
	}
	// As printed: u ∈ ℕ counts each excess in whole 2-token blocks, so
	// each return costs one block (2 tokens) unless cached; only one can
	// be: optimum 2, reported as disagreeing with flow's 1.
	r, err := Solve(context.Background(), tr, in, Spec{Formulation: lp.PaperAsWritten, Solver: "gonum", CrossCheck: true, Model: latency.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if *r.TELOptTokens != 2 || len(r.Disagreements) == 0 {
		t.Errorf("paper-as-written: %+v", r)
	}
	// Relax only: no integer optimum, the LP bound, its solver.
	r, err = Solve(context.Background(), tr, in, Spec{Formulation: lp.Compact, Solver: "gonum", Relax: true, Model: latency.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if r.TELOptTokens != nil || *r.LPBoundTokens != 0 || r.Solver != "gonum" {
		t.Errorf("relax: %+v", r)
	}
	// flow cannot relax.
	if _, err := Solve(context.Background(), tr, in, Spec{Formulation: lp.Compact, Solver: "flow", Relax: true}); err == nil {
		t.Error("flow --relax: no error")
	}
}

// TestGapAgainstExhaustive: on random small traces every policy's TEL is
// at least the optimum, which equals exhaustive search (lp/exhaustive,
// written independently of lp); gaps are computed as defined; to-belady
// has gap 0 at B = 1 with whole-token ξ (Theorem 1).
func TestGapAgainstExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 60; i++ {
		block := int64(1 + i%3)
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 2 + r.IntN(5); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(4*block), r.Int64N(4*block))
		}
		caps := []int64{0, block, 3 * block}
		xis := []float64{0, 2, 1.5}
		rows, err := Run(context.Background(), tr, Config{Block: block, Capacities: caps, Xis: xis,
			Policies: policies.All()[:9], Model: latency.Default(), Workers: 2, Thresholds: []int64{0, 4}})
		if err != nil {
			t.Fatal(err)
		}
		if want := len(caps) * len(xis) * 10; len(rows) != want { // 9 policies, threshold-lru twice
			t.Fatalf("%d rows, want %d", len(rows), want)
		}
		for _, row := range rows {
			opt := exhaustive.Optimum(tr, instance.Params{Capacity: row.CapacityTokens, BlockSize: block, Xi: row.XiTokens})
			switch {
			case math.Abs(row.TELOptTokens-opt) > tol:
				t.Fatalf("instance %d %+v: optimum %v, exhaustive %v", i, row, row.TELOptTokens, opt)
			case row.TELTokens < opt-tol:
				t.Fatalf("instance %d %+v: policy below the optimum", i, row)
			case math.Abs(row.AbsGapTokens-(row.TELTokens-opt)) > tol:
				t.Fatalf("%+v: absolute gap", row)
			case opt > 0 && math.Abs(*row.RelGap-(row.TELTokens-opt)/opt) > tol:
				t.Fatalf("%+v: relative gap", row)
			case opt == 0 && (row.RelGap != nil || (row.TELTokens == 0) != (row.OptZero == "both zero")):
				t.Fatalf("%+v: TEL_opt = 0 case", row)
			case row.Policy == "to-belady" && block == 1 && row.XiTokens == math.Floor(row.XiTokens) && math.Abs(row.AbsGapTokens) > tol:
				t.Fatalf("instance %d %+v: to-belady off the optimum at B=1", i, row)
			}
		}
	}
}

func TestRelGapText(t *testing.T) {
	g := 0.125
	cases := []struct {
		r    Row
		want string
	}{
		{Row{RelGap: &g}, "12.50%"},
		{Row{OptZero: "both zero"}, "0% (both 0)"},
		{Row{OptZero: "infinite"}, "∞ (opt 0)"},
	}
	for _, c := range cases {
		if got := c.r.RelGapText(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
