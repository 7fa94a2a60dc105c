//go:build coin

package coin

/*
#cgo pkg-config: clp cbc
#include <Clp_C_Interface.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// CLP solves linear programs with COIN-OR CLP (Clp_initialSolveWithOptions:
// presolve, then the chosen method). It refuses problems with integer
// columns unless Options.Relax is set; use CBC for those. Concurrent calls
// are safe.
type CLP struct {
	// Method is the algorithm; the zero value lets CLP choose.
	Method Method
}

// Method is a CLP algorithm (ClpSolve::SolveType).
type Method int

// CLP algorithms. CLP's barrier is left out: Debian's build has no sparse
// Cholesky factorization, and on the interval LP of 10^4 turns it had
// done 8 iterations when stopped after 60 s, against 2 s for the simplex.
const (
	Automatic Method = iota // CLP picks dual or primal simplex, or sprint
	Dual                    // dual simplex
	Primal                  // primal simplex
)

// solveType returns m's ClpSolve::SolveType number.
func (m Method) solveType() (C.int, error) {
	switch m {
	case Automatic:
		return 5, nil
	case Dual:
		return 0, nil
	case Primal:
		return 1, nil
	}
	return 0, fmt.Errorf("coin: unknown clp method %d", int(m))
}

// String returns the method's name.
func (m Method) String() string {
	switch m {
	case Automatic:
		return "automatic"
	case Dual:
		return "dual"
	case Primal:
		return "primal"
	}
	return fmt.Sprintf("method(%d)", int(m))
}

// Name returns "clp".
func (CLP) Name() string { return "clp" }

// Solve solves p (or its LP relaxation when opt.Relax is set). The
// objective is Obj·x (no offset); Iterations counts simplex pivots.
func (c CLP) Solve(ctx context.Context, p *lp.Problem, opt lp.Options) (lp.Solution, error) {
	if err := check(p); err != nil {
		return lp.Solution{}, err
	}
	if p.HasIntegers() && !opt.Relax {
		return lp.Solution{}, errors.New("coin: clp solves LPs only: the problem has integer columns; use cbc, or set Relax to solve the LP relaxation")
	}
	return solveLP(ctx, p, opt, c.Method)
}

// solveLP solves p as an LP with CLP, ignoring integrality marks. p has
// been checked.
func solveLP(ctx context.Context, p *lp.Problem, opt lp.Options, method Method) (lp.Solution, error) {
	solveType, err := method.solveType()
	if err != nil {
		return lp.Solution{}, err
	}
	secs, err := limit(ctx, opt)
	if err != nil {
		return lp.Solution{}, err
	}
	if why := tooLarge(p); why != "" {
		return lp.Solution{Status: lp.TooLarge, Detail: "clp: " + why}, nil
	}
	if p.NumCols == 0 {
		return noColumns(p), nil
	}
	mat := newMatrix(p)

	t0 := time.Now()
	m := C.Clp_newModel()
	defer C.Clp_deleteModel(m)
	C.Clp_setLogLevel(m, 0)
	C.Clp_loadProblem(m, C.int(p.NumCols), C.int(p.NumRows),
		mat.startPtr(), mat.indexPtr(), dbl(p.Value),
		dbl(p.ColLo), dbl(p.ColUp), dbl(p.Obj), dbl(p.RowLo), dbl(p.RowUp))
	if secs > 0 {
		C.Clp_setMaximumSeconds(m, C.double(secs))
	}
	opts := C.ClpSolve_new()
	defer C.ClpSolve_delete(opts)
	// Special option 2 = 1: no SIGINT handler (ClpSolve.hpp: "interrupt
	// handling - 0 yes, 1 no (for threadsafe)").
	C.ClpSolve_setSpecialOption(opts, 2, 1, -1)
	C.ClpSolve_setSolveType(opts, solveType, -1)
	C.Clp_initialSolveWithOptions(m, opts)

	// The header declares the iteration-limit getter without the Clp_
	// prefix.
	status, detail := clpOutcome(int(C.Clp_status(m)), int(C.Clp_secondaryStatus(m)),
		C.Clp_numberIterations(m) >= C.maximumIterations(m))
	sol := lp.Solution{
		Status:     status,
		Iterations: int(C.Clp_numberIterations(m)),
		Detail:     detail,
	}
	if status == lp.Optimal {
		sol.Obj = float64(C.Clp_objectiveValue(m))
		sol.X = goFloats(C.Clp_primalColumnSolution(m), p.NumCols)
	}
	sol.Time = time.Since(t0)
	return sol, nil
}
