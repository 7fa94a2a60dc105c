// Package solvers is the registry of hindsight solvers: every name the
// --solver flags take (auto|clp|cbc|gonum|flow), with its documentation,
// what it solves, whether this build has it and how to make it. Commands
// resolve names and write their help from it.
//
// The pure-Go gonum backend and the min-cost flow solver are in every
// build; COIN-OR CLP and CBC only when the program is built with -tags
// coin (which needs Debian's coinor-libclp-dev and coinor-libcbc-dev), as
// the build-tagged pair coin.go and nocoin.go says.
//
// Adding a solver is one file implementing lp.Solver and one line in
// Default (or Registry.Add at run time).
package solvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// Auto and Flow are the names of the default choice and of the min-cost
// flow solver (the reference the other solvers are cross-checked against).
const (
	Auto = "auto"
	Flow = "flow"
)

// Programs says which programs a solver solves.
type Programs int

// The programs: integer programs (the hindsight optimum) and their plain
// LP relaxations (a lower bound).
const (
	IP Programs = 1 << iota
	LP
)

// Entry is one solver of the registry.
type Entry struct {
	// Name is the solver's --solver name.
	Name string
	// Doc says in one line what the solver is.
	Doc string
	// Solves says which programs it solves; asked for another it refuses.
	Solves Programs
	// RelaxBy names the solver of the plain LP relaxation reported beside
	// this one's integer optimum (and solved for --relax): "" for itself,
	// or another entry's name (CBC's relaxations go to auto, which gives
	// them to CLP).
	RelaxBy string
	// New returns the solver, or an error saying what this build lacks to
	// run it.
	New func() (lp.Solver, error)
}

// Available reports whether this build can run the solver.
func (e Entry) Available() bool {
	_, err := e.New()
	return err == nil
}

// Registry is a list of solvers, in the order help texts name them.
type Registry struct {
	entries []Entry
}

// Default returns the registry of this project's solvers: auto, clp, cbc,
// gonum and flow. To add a solver, add its line here.
func Default() *Registry {
	r := &Registry{}
	r.entries = []Entry{
		{Name: Auto, Doc: "clp for LP relaxations and cbc for integer programs with -tags coin (flow for compact integer programs over AutoCBCMaxCols columns); else gonum when the problem fits, else flow", Solves: IP | LP, New: func() (lp.Solver, error) { return auto{r}, nil }},
		{Name: "clp", Doc: "COIN-OR CLP, simplex: LP relaxations", Solves: LP, New: newCLP},
		{Name: "cbc", Doc: "COIN-OR CBC, branch and cut: integer programs", Solves: IP | LP, RelaxBy: Auto, New: newCBC},
		{Name: "gonum", Doc: "pure Go: gonum's dense simplex and branch and bound, small problems only", Solves: IP | LP, New: func() (lp.Solver, error) { return lp.BackendSolver{Backend: gonumlp.Backend{}}, nil }},
		{Name: Flow, Doc: "min-cost flow: the compact integer program exactly, at any size", Solves: IP, RelaxBy: Auto, New: func() (lp.Solver, error) { return lp.FlowSolver{}, nil }},
	}
	return r
}

// Add appends e to the registry; a name already there is an error.
func (r *Registry) Add(e Entry) error {
	if _, ok := r.entry(e.Name); ok {
		return fmt.Errorf("solver %q is already registered", e.Name)
	}
	if e.New == nil {
		return fmt.Errorf("solver %q: no constructor", e.Name)
	}
	r.entries = append(r.entries, e)
	return nil
}

// Entries returns the registered solvers, available or not.
func (r *Registry) Entries() []Entry { return append([]Entry(nil), r.entries...) }

// Entry returns the entry named name, whether or not this build can run
// it (Lookup refuses those it cannot).
func (r *Registry) Entry(name string) (Entry, bool) { return r.entry(name) }

func (r *Registry) entry(name string) (Entry, bool) {
	for _, e := range r.entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Names returns the names of the solvers this build has, in order.
func (r *Registry) Names() []string {
	var n []string
	for _, e := range r.entries {
		if e.Available() {
			n = append(n, e.Name)
		}
	}
	return n
}

// Help is the help text of a --solver flag whose command solves programs
// p: every solver that solves them, and those this build has, e.g.
// "auto|clp|cbc|gonum|flow (this build: auto,gonum,flow)".
func (r *Registry) Help(p Programs) string {
	var here []string
	for _, e := range r.entries {
		if e.Solves&p != 0 && e.Available() {
			here = append(here, e.Name)
		}
	}
	return r.Choices(p) + " (this build: " + strings.Join(here, ",") + ")"
}

// Choices lists every registered solver of programs p, available or not,
// as "auto|clp|cbc|gonum|flow".
func (r *Registry) Choices(p Programs) string {
	var all []string
	for _, e := range r.entries {
		if e.Solves&p != 0 {
			all = append(all, e.Name)
		}
	}
	return strings.Join(all, "|")
}

// Lookup returns the entry named name, or an error naming what this build
// lacks or the names it has.
func (r *Registry) Lookup(name string) (Entry, error) {
	e, ok := r.entry(name)
	if !ok {
		return Entry{}, fmt.Errorf("unknown solver %q (want %s)", name, strings.Join(r.Names(), "|"))
	}
	if _, err := e.New(); err != nil {
		return Entry{}, fmt.Errorf("solver %s %w; this build has %s", name, err, strings.Join(r.Names(), ", "))
	}
	return e, nil
}

// Pick resolves name for task t: auto becomes the solver its rules choose
// (see auto), any other name itself. It returns the resolved name and
// solver.
func (r *Registry) Pick(name string, t *lp.Task) (string, lp.Solver, error) {
	if name == Auto {
		which, err := auto{r}.choose(t)
		if err != nil {
			return "", nil, err
		}
		name = which
	}
	e, err := r.Lookup(name)
	if err != nil {
		return "", nil, err
	}
	s, err := e.New()
	return name, s, err
}

// Solve builds formulation f of in and solves it with the named solver,
// as its LP relaxation when relax.
func (r *Registry) Solve(ctx context.Context, in *lp.Instance, f lp.Formulation, name string, relax bool, opt lp.Options) (*lp.Result, error) {
	t := lp.NewTask(in, f, relax)
	_, s, err := r.Pick(name, t)
	if err != nil {
		return nil, err
	}
	return s.Solve(ctx, t, opt)
}

// Names returns the solver names of this build in the default registry.
func Names() []string { return Default().Names() }

// Help is Default().Help(p).
func Help(p Programs) string { return Default().Help(p) }

// Find is Default().Entry(name): the entry named name, available or not.
func Find(name string) (Entry, bool) { return Default().Entry(name) }

// Choices is Default().Choices(p).
func Choices(p Programs) string { return Default().Choices(p) }

// Lookup is Default().Lookup(name).
func Lookup(name string) (Entry, error) { return Default().Lookup(name) }

// Pick is Default().Pick(name, t).
func Pick(name string, t *lp.Task) (string, lp.Solver, error) { return Default().Pick(name, t) }

// Solve is Default().Solve: formulation f of in solved by the named solver
// (auto|clp|cbc|gonum|flow), as its LP relaxation when relax. Flow solves
// the compact formulation's integer program whatever f is (the optima of
// the formulations agree; see the report of claim 2), and says so in
// Result.Formulation.
func Solve(ctx context.Context, in *lp.Instance, f lp.Formulation, name string, relax bool, opt lp.Options) (*lp.Result, error) {
	return Default().Solve(ctx, in, f, name, relax, opt)
}

// Backend returns the LP/MIP backend of the solver named name (clp, cbc,
// gonum), for programs other than the hindsight formulations (lp/prefix):
// the lp.Backend its registry entry wraps.
func Backend(name string) (lp.Backend, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	s, err := e.New()
	if err != nil {
		return nil, err
	}
	if bs, ok := s.(lp.BackendSolver); ok {
		return bs.Backend, nil
	}
	return nil, fmt.Errorf("solver %s solves hindsight instances, not LP/MIP programs: want one of the backends clp, cbc, gonum", name)
}

// Coin reports whether this build has the COIN-OR backends (CLP and CBC).
func Coin() bool {
	e, ok := Find("clp")
	return ok && e.Available()
}
