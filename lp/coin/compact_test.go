//go:build coin

package coin

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// compactInstance returns the hindsight instance of a default birth–death
// trace cut at turns turns (no duration bound), with optional caching.
func compactInstance(tb testing.TB, turns int, seed uint64, capacity, block int64, xi float64) *lp.Instance {
	tb.Helper()
	p := birthdeath.Default()
	p.Duration = 0
	p.MaxTurns = turns
	tr, err := birthdeath.Trace(p, seed)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: capacity, BlockSize: block, Xi: xi})
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// TestCompactAgreesWithFlow solves the compact TEL program of small
// birth–death instances (300 turns, a capacity of 8192 tokens that binds)
// with CBC as an integer program, and checks its optimum against the
// package lp min-cost-flow solver, an independent exact method, at block
// sizes 1, 16 and 64 tokens, in both capacity-row forms. CLP's LP
// relaxation must not exceed it. Tolerance: 1e-6·(1+TEL) tokens, for
// CBC's integrality and feasibility tolerances (1e-7 and below) times
// block counts of at most 8192/B.
func TestCompactAgreesWithFlow(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		for _, block := range []int64{1, 16, 64} {
			in := compactInstance(t, 300, seed, 8192, block, 300)
			flow, err := lp.SolveFlow(context.Background(), in, lp.Options{})
			if err != nil || flow.Status != lp.Optimal {
				t.Fatalf("flow: %v, %v", flow, err)
			}
			// The capacity must bind: with room for everything the TEL
			// is lower.
			free, err := lp.SolveFlow(context.Background(), compactInstance(t, 300, seed, 1<<30, block, 300), lp.Options{})
			if err != nil || !(free.TEL < flow.TEL) {
				t.Fatalf("capacity does not bind: TEL %v with 8192 tokens, %v with 2^30 (%v)", flow.TEL, free.TEL, err)
			}
			for _, interval := range []bool{false, true} {
				t.Run(fmt.Sprintf("seed=%d/B=%d/interval=%v", seed, block, interval), func(t *testing.T) {
					m := lp.BuildCompact(in, lp.BuildOptions{IntervalRows: interval})
					tol := 1e-6 * (1 + flow.TEL)
					mip, err := CBC{}.Solve(context.Background(), m.Problem, lp.Options{})
					if err != nil || mip.Status != lp.Optimal {
						t.Fatalf("cbc: %v (%s), %v", mip.Status, mip.Detail, err)
					}
					if got := mip.Obj + m.Offset; math.Abs(got-flow.TEL) > tol {
						t.Errorf("cbc TEL %v tokens, flow %v", got, flow.TEL)
					}
					if !m.Integral(mip.X) {
						t.Errorf("cbc block counts not whole")
					}
					relax, err := CLP{}.Solve(context.Background(), m.Problem, lp.Options{Relax: true})
					if err != nil || relax.Status != lp.Optimal {
						t.Fatalf("clp: %v (%s), %v", relax.Status, relax.Detail, err)
					}
					if got := relax.Obj + m.Offset; got > flow.TEL+tol {
						t.Errorf("LP bound %v tokens above the integer optimum %v", got, flow.TEL)
					}
				})
			}
		}
	}
}
