// Package solvers names the hindsight solvers of this build and picks one:
// the pure-Go gonum backend and flow solver always, COIN-OR CLP and CBC when
// the program is built with -tags coin (which needs Debian's
// coinor-libclp-dev and coinor-libcbc-dev). The list of backends comes from
// a build-tagged pair of files, available_coin.go and available_nocoin.go.
package solvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/lp"
)

// Auto and Flow are the solver names that are not lp.Backends.
const (
	Auto = "auto"
	Flow = "flow"
)

// Backends returns the LP/MIP backends of this build, best first.
func Backends() []lp.Backend { return available() }

// Coin reports whether this build has the COIN-OR backends.
func Coin() bool { return coinBuilt }

// Names returns every solver name this build accepts: auto, the backends
// and flow.
func Names() []string {
	n := []string{Auto}
	for _, b := range available() {
		n = append(n, b.Name())
	}
	return append(n, Flow)
}

// Backend returns the backend named name.
func Backend(name string) (lp.Backend, error) {
	for _, b := range available() {
		if b.Name() == name {
			return b, nil
		}
	}
	if name == "clp" || name == "cbc" {
		return nil, fmt.Errorf("solver %s needs a build with -tags coin (and coinor-libclp-dev, coinor-libcbc-dev); this build has %s", name, strings.Join(Names(), ", "))
	}
	return nil, fmt.Errorf("unknown solver %q (want %s)", name, strings.Join(Names(), "|"))
}

// AutoCBCMaxCols is the largest compact integer program (columns) that
// auto gives to CBC; beyond it auto uses flow, exact and far faster there:
// measured on this project's machine, CBC took about 10 s on 2.6·10^4
// columns (10^4 turns) and did not finish 3·10^4 turns in 60 s, where flow
// takes well under a second.
const AutoCBCMaxCols = 30000

// Pick resolves name for formulation m (solved as its LP relaxation when
// relax): "auto" is CLP for relaxations and CBC for integer programs when
// built with coin (flow for compact integer programs over AutoCBCMaxCols
// columns); otherwise gonum when the problem is within its size
// limits, else flow for integer programs of the compact formulation. It
// returns "flow" or a backend.
func Pick(name string, m *lp.Model, relax bool) (string, lp.Backend, error) {
	switch name {
	case Flow:
		if relax {
			return "", nil, fmt.Errorf("solver flow solves the integer program (its own LP is integral); the plain LP relaxation needs clp or gonum")
		}
		return Flow, nil, nil
	case Auto:
	default:
		b, err := Backend(name)
		if err != nil {
			return "", nil, err
		}
		return name, b, nil
	}
	if !relax && m.Formulation == lp.Compact && m.Problem.NumCols > AutoCBCMaxCols {
		return Flow, nil, nil
	}
	if coinBuilt {
		want := "cbc"
		if relax {
			want = "clp"
		}
		b, err := Backend(want)
		if err != nil {
			return "", nil, err
		}
		return want, b, nil
	}
	if ok, _ := (lp.Gonum{}).Fits(m.Problem); ok {
		return "gonum", lp.Gonum{}, nil
	}
	if !relax && m.Formulation == lp.Compact {
		return Flow, nil, nil
	}
	_, why := (lp.Gonum{}).Fits(m.Problem)
	return "", nil, fmt.Errorf("auto: no solver in this build for %s %s: %s", m.Formulation, kind(relax), why)
}

func kind(relax bool) string {
	if relax {
		return "LP relaxation"
	}
	return "integer program"
}

// Solve builds formulation f of in and solves it with the named solver
// (auto|clp|cbc|gonum|flow), as its LP relaxation when relax. Flow solves
// the compact formulation's integer program whatever f is (the optima of
// the formulations agree; see the report of claim 2), and says so in
// Result.Formulation.
func Solve(ctx context.Context, in *lp.Instance, f lp.Formulation, name string, relax bool, opt lp.Options) (*lp.Result, error) {
	if name == Flow {
		if relax {
			_, _, err := Pick(name, nil, true)
			return nil, err
		}
		return lp.SolveFlow(ctx, in, opt)
	}
	m, err := lp.Build(in, f, lp.BuildOptions{})
	if err != nil {
		return nil, err
	}
	which, be, err := Pick(name, m, relax)
	if err != nil {
		return nil, err
	}
	if which == Flow {
		return lp.SolveFlow(ctx, in, opt)
	}
	return lp.SolveModel(ctx, m, be, relax, opt)
}
