package gap

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// fig1 is examples/fig1.jsonl: a (100), b (100), a (100), no responses.
func fig1() *trace.Trace {
	tr := &trace.Trace{}
	tr.Append(0, "a", 100, 0)
	tr.Append(1, "b", 100, 0)
	tr.Append(2, "a", 100, 0)
	return tr
}

// TestSolveHugeCapacity: capacities gonum's simplex cannot take (2^30 and
// 2^58 blocks of 1 token; issue 17: a panic inside gonum at 2^58, "solver
// failure" at 2^30 even with --solver flow) are solved by flow, and the LP
// bound is skipped with a stated status instead of failing (with -tags
// coin, CLP solves it). By hand, with
// ξ = 50: loads 100, 100, 200; with a's 100-token history cached (capacity
// is no constraint) the excesses are 50, 50, 50: TEL optimum 150 tokens.
func TestSolveHugeCapacity(t *testing.T) {
	tr := fig1()
	for _, c := range []int64{1 << 30, 1 << 58} {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: c, BlockSize: 1, Xi: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, solver := range []string{"auto", "flow"} {
			r, err := Solve(context.Background(), tr, in, Spec{Formulation: lp.Compact, Solver: solver, CrossCheck: true, Model: latency.Default()})
			if err != nil {
				t.Fatalf("C=%d %s: %v", c, solver, err)
			}
			if r.TELOptTokens == nil || *r.TELOptTokens != 150 || r.BeladyTELTokens != 150 {
				t.Errorf("C=%d %s: optimum %v, to-belady %v, want 150 and 150", c, solver, r.TELOptTokens, r.BeladyTELTokens)
			}
			switch {
			case solvers.Coin(): // CLP takes the LP: capacity binds nowhere, so the bound is the optimum
				if r.LPBoundTokens == nil || math.Abs(*r.LPBoundTokens-150) > tol {
					t.Errorf("C=%d %s: LP bound %v (%s), want 150", c, solver, r.LPBoundTokens, r.LPStatus)
				}
			case r.LPBoundTokens != nil || r.LPStatus != "not solved" || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "magnitude"):
				t.Errorf("C=%d %s: LP bound %v, status %q, notes %q; want it skipped, naming the magnitude", c, solver, r.LPBoundTokens, r.LPStatus, r.Notes)
			}
		}
		// Asked for gonum by name: refused in one line, no panic.
		_, err = Solve(context.Background(), tr, in, Spec{Formulation: lp.Compact, Solver: "gonum", Model: latency.Default()})
		if err == nil || !strings.Contains(err.Error(), "magnitude") {
			t.Errorf("C=%d gonum: error %v, want a refusal naming the magnitude", c, err)
		}
	}
}

// TestSolveFlowOnlyCompact: flow solves the compact program, so asking it
// for another formulation is refused, naming what it solves (issue 17: it
// silently solved compact).
func TestSolveFlowOnlyCompact(t *testing.T) {
	tr := fig1()
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 64, BlockSize: 16, Xi: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []lp.Formulation{lp.Paper, lp.PaperAsWritten} {
		_, err := Solve(context.Background(), tr, in, Spec{Formulation: f, Solver: "flow", Model: latency.Default()})
		if err == nil || !strings.Contains(err.Error(), "only the compact formulation") {
			t.Errorf("%s with flow: error %v, want a refusal naming compact", f, err)
		}
	}
	if _, err := Solve(context.Background(), tr, in, Spec{Formulation: lp.Compact, Solver: "flow", Model: latency.Default()}); err != nil {
		t.Errorf("compact with flow: %v", err)
	}
}
