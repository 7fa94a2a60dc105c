package solvers

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// AutoCBCMaxCols is the largest compact integer program (columns) that
// auto gives to CBC; beyond it auto uses flow, exact and far faster there:
// measured on this project's machine, CBC took about 10 s on 2.6·10^4
// columns (10^4 turns) and did not finish 3·10^4 turns in 60 s, where flow
// takes well under a second.
const AutoCBCMaxCols = 30000

// auto is the solver named "auto": it resolves to another entry of its
// registry by the rules of choose, and solves with it.
type auto struct{ r *Registry }

// Solve solves t with the solver choose picks.
func (a auto) Solve(ctx context.Context, t *lp.Task, opt lp.Options) (*lp.Result, error) {
	_, s, err := a.r.Pick(Auto, t)
	if err != nil {
		return nil, err
	}
	return s.Solve(ctx, t, opt)
}

// choose names auto's solver for t: flow for compact integer programs over
// AutoCBCMaxCols columns; else, when this build has the COIN-OR backends,
// clp for relaxations and cbc for integer programs; otherwise gonum when
// the problem is within its size limits, else flow for integer programs
// of the compact formulation.
func (a auto) choose(t *lp.Task) (string, error) {
	m, _, err := t.Model()
	if err != nil {
		return "", err
	}
	compactIP := !t.Relax && m.Formulation == lp.Compact
	if compactIP && m.Problem.NumCols > AutoCBCMaxCols {
		return Flow, nil
	}
	want := "cbc"
	if t.Relax {
		want = "clp"
	}
	if e, ok := a.r.entry(want); ok && e.Available() {
		return want, nil
	}
	ok, why := gonumlp.Backend{}.Fits(m.Problem)
	if ok {
		return "gonum", nil
	}
	if compactIP {
		return Flow, nil
	}
	return "", fmt.Errorf("auto: no solver in this build for %s %s: %s", m.Formulation, kind(t.Relax), why)
}

func kind(relax bool) string {
	if relax {
		return "LP relaxation"
	}
	return "integer program"
}
