package solvers_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// simplexFlow is a custom solver: the min-cost flow construction solved by
// the network simplex instead of the default windows method.
type simplexFlow struct{}

// Solve implements lp.Solver.
func (simplexFlow) Solve(ctx context.Context, t *lp.Task, opt lp.Options) (*lp.Result, error) {
	if t.Relax {
		return nil, fmt.Errorf("simplex-flow solves integer programs only")
	}
	r, err := lp.SolveFlowWith(ctx, t.In, opt, mcf.NetworkSimplex)
	if err != nil {
		return nil, err
	}
	r.Solver = "simplex-flow"
	return r, nil
}

// Adding a solver: one type implementing lp.Solver (above) and one entry
// in the registry — in solvers.Default for every command, or with Add as
// here. The registry then resolves its name and lists it in help texts.
func Example_addingASolver() {
	reg := solvers.Default()
	err := reg.Add(solvers.Entry{Name: "simplex-flow", Doc: "min-cost flow by the network simplex", Solves: solvers.IP, RelaxBy: solvers.Auto,
		New: func() (lp.Solver, error) { return simplexFlow{}, nil }})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Two conversations share a one-block cache (B = 2 tokens, ξ = 2
	// tokens): each returns needing one block, and only one can have it.
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	in, _ := lp.NewInstance(tr, instance.Params{Capacity: 2, BlockSize: 2, Xi: 2})
	r, err := reg.Solve(context.Background(), in, lp.Compact, "simplex-flow", false, lp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s, TEL %.1f tokens\n", r.Solver, r.Status, r.TEL)
	fmt.Println(reg.Names()[len(reg.Names())-1])
	// Output:
	// simplex-flow: optimal, TEL 1.0 tokens
	// simplex-flow
}
