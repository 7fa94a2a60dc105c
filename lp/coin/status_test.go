//go:build coin

package coin

import (
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// TestCLPOutcome checks the mapping of every CLP status documented in
// ClpModel.hpp, including those the solve tests cannot provoke.
func TestCLPOutcome(t *testing.T) {
	for _, c := range []struct {
		status, secondary int
		iterLimit         bool
		want              lp.Status
		detail            string
	}{
		{0, 0, false, lp.Optimal, "optimal"},
		{0, 6, false, lp.Optimal, "presolve"},
		{0, 2, false, lp.Numerical, "primal infeasibilities"},
		{0, 3, false, lp.Numerical, "dual infeasibilities"},
		{0, 4, false, lp.Numerical, "primal and dual"},
		{0, 7, false, lp.Numerical, "unexpected"},
		{1, 0, false, lp.Infeasible, "primal infeasible"},
		{1, 6, false, lp.Infeasible, "primal infeasible"},
		{2, 0, false, lp.Unbounded, "unbounded"},
		{3, 9, false, lp.TimeLimit, "time"},
		{3, 0, true, lp.IterationLimit, "iterations"},
		{3, 0, false, lp.TimeLimit, "time"},
		{4, 0, false, lp.Numerical, "errors"},
		{5, 100, false, lp.Numerical, "event handler"},
		{-1, 0, false, lp.Numerical, "postsolve"},
		{17, 0, false, lp.Numerical, "unknown"},
	} {
		got, detail := clpOutcome(c.status, c.secondary, c.iterLimit)
		if got != c.want || !strings.Contains(detail, c.detail) {
			t.Errorf("clpOutcome(%d, %d, %v) = %v %q, want %v with %q", c.status, c.secondary, c.iterLimit, got, detail, c.want, c.detail)
		}
	}
}

// TestCBCOutcome checks the mapping of CBC's queries (Cbc_C_Interface.h),
// including those the solve tests cannot provoke, and that proven
// optimality wins over flags the search left set.
func TestCBCOutcome(t *testing.T) {
	for _, c := range []struct {
		name   string
		s      cbcState
		want   lp.Status
		detail string
	}{
		{"optimal", cbcState{optimal: true, hasSolution: true}, lp.Optimal, "proven optimal"},
		{"optimal without point", cbcState{optimal: true}, lp.Numerical, "no solution"},
		{"infeasible", cbcState{infeasible: true, secondary: 1}, lp.Infeasible, "infeasible"},
		{"relaxation infeasible", cbcState{secondary: 1}, lp.Infeasible, "infeasible"},
		{"unbounded", cbcState{unbounded: true}, lp.Unbounded, "unbounded"},
		{"relaxation unbounded", cbcState{secondary: 7}, lp.Unbounded, "unbounded"},
		{"time with point", cbcState{status: 1, secondary: 4, seconds: true, hasSolution: true}, lp.TimeLimit, "with an integer solution"},
		{"time without point", cbcState{status: 1, secondary: 4}, lp.TimeLimit, "without"},
		{"nodes", cbcState{status: 1, nodes: true}, lp.IterationLimit, "node limit"},
		{"solutions", cbcState{status: 1, secondary: 6}, lp.IterationLimit, "solution limit"},
		{"iterations", cbcState{status: 1, secondary: 8}, lp.IterationLimit, "iteration limit"},
		{"abandoned", cbcState{status: 2, abandoned: true}, lp.Numerical, "numerical"},
		{"never started", cbcState{status: -1, secondary: -1}, lp.Numerical, "unexpected"},
		{"optimal and a stale flag", cbcState{optimal: true, hasSolution: true, seconds: true}, lp.Optimal, "proven optimal"},
	} {
		got, detail := cbcOutcome(c.s)
		if got != c.want || !strings.Contains(detail, c.detail) {
			t.Errorf("%s: cbcOutcome = %v %q, want %v with %q", c.name, got, detail, c.want, c.detail)
		}
	}
}
