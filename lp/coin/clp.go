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
//
// When the LP has the shape of the compact TEL program (lp.BuildCompact,
// either row form), CLP solves it through the compact reduction
// (reduce.go): the excess rows u + B·z ≥ D − ξ and their u columns are
// eliminated exactly for the LP (z capped at (D − ξ)/B, its cost −1 per
// token), running-balance rows are summed back to interval rows, and the
// answer is mapped back to the columns as given and checked against the
// rows as given. Solution.Detail then starts with "compact reduction". The
// optimum is the same (TestCompactReduction); the time is not: at 10^5
// turns of the default birth–death trace 9–11 s instead of 51–79 s (interval
// rows) or over 60 s (running-balance rows). Set Direct to solve as given.
type CLP struct {
	// Method is the algorithm; the zero value lets CLP choose.
	Method Method
	// Direct solves the LP as given, without the compact reduction
	// (reduce.go), which CLP otherwise applies when it recognizes the
	// compact TEL program's excess rows.
	Direct bool
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
	return c.solve(ctx, p, opt)
}

// solve solves checked p as an LP, ignoring integrality marks: in a worker
// process killed at the limit when there is one (CLP counts process CPU
// seconds and checks them only between iterations, see the package
// documentation), else here.
func (c CLP) solve(ctx context.Context, p *lp.Problem, opt lp.Options) (lp.Solution, error) {
	secs, err := limit(ctx, opt)
	if err != nil {
		return lp.Solution{}, err
	}
	if secs > 0 {
		return inWorker(ctx, workerJob{Problem: *p, Seconds: secs, Method: c.Method, Direct: c.Direct})
	}
	return solveLPWith(ctx, p, opt, c.Method, c.Direct)
}

// solveLP solves p as an LP with CLP, ignoring integrality marks. p has
// been checked.
func solveLP(ctx context.Context, p *lp.Problem, opt lp.Options, method Method) (lp.Solution, error) {
	return solveLPWith(ctx, p, opt, method, false)
}

// solveLPWith is solveLP; direct skips the compact reduction (reduce.go).
func solveLPWith(ctx context.Context, p *lp.Problem, opt lp.Options, method Method, direct bool) (lp.Solution, error) {
	solveType, err := method.solveType()
	if err != nil {
		return lp.Solution{}, err
	}
	tu := tuning{solveType: int(solveType), startup: -1, scaling: -1}
	if direct || tooLarge(p) != "" {
		return solveTuned(ctx, p, opt, tu)
	}
	t0 := time.Now()
	r := reduceCompact(p)
	if r == nil {
		return solveTuned(ctx, p, opt, tu)
	}
	sol, err := solveTuned(ctx, r.reduced, opt, tu)
	if err != nil {
		return sol, err
	}
	what := fmt.Sprintf("%s (excess rows eliminated", reduceName)
	if r.balance {
		what += ", running-balance rows summed to interval rows"
	}
	what += fmt.Sprintf("; %d×%d, %d non-zeros solved for %d×%d, %d non-zeros)",
		r.reduced.NumRows, r.reduced.NumCols, r.reduced.NonZeros(), p.NumRows, p.NumCols, p.NonZeros())
	if sol.Status == lp.Optimal {
		x := r.expand(sol.X)
		if !feasible(p, x) {
			// Not expected (the reduction is exact); solve as given.
			direct, err := solveTuned(ctx, p, opt, tu)
			direct.Detail = what + " gave a point off the original rows; solved as given: " + direct.Detail
			direct.Time = time.Since(t0)
			return direct, err
		}
		sol.X = x
		sol.Obj = 0
		for j, c := range p.Obj {
			sol.Obj += c * x[j]
		}
	} else {
		sol.X = nil
	}
	sol.Detail = what + ": " + sol.Detail
	sol.Time = time.Since(t0)
	return sol, nil
}

// tuning holds the CLP settings of one solve.
type tuning struct {
	solveType    int     // ClpSolve::SolveType
	presolveOff  bool    // ClpSolve presolveOff
	startup      int     // special option 0 (dual) or 1 (primal) startup; -1 = CLP's
	startupExtra int     // its extra info; -1 = none
	perturbation int     // Clp_setPerturbation; 0 = CLP's
	scaling      int     // Clp_scaling; -1 = CLP's
	dualBound    float64 // Clp_setDualBound; 0 = CLP's
	logLevel     int
	colStatus    []int // Clp_setColumnStatus for each column; nil = none
	rowStatus    []int
}

func solveTuned(ctx context.Context, p *lp.Problem, opt lp.Options, tu tuning) (lp.Solution, error) {
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
	C.Clp_setLogLevel(m, C.int(tu.logLevel))
	C.Clp_loadProblem(m, C.int(p.NumCols), C.int(p.NumRows),
		mat.startPtr(), mat.indexPtr(), dbl(p.Value),
		dbl(p.ColLo), dbl(p.ColUp), dbl(p.Obj), dbl(p.RowLo), dbl(p.RowUp))
	if tu.colStatus != nil {
		for j, v := range tu.colStatus {
			C.Clp_setColumnStatus(m, C.int(j), C.int(v))
		}
		for i, v := range tu.rowStatus {
			C.Clp_setRowStatus(m, C.int(i), C.int(v))
		}
	}
	if tu.perturbation != 0 {
		C.Clp_setPerturbation(m, C.int(tu.perturbation))
	}
	if tu.scaling >= 0 {
		C.Clp_scaling(m, C.int(tu.scaling))
	}
	if tu.dualBound > 0 {
		C.Clp_setDualBound(m, C.double(tu.dualBound))
	}
	if secs > 0 {
		C.Clp_setMaximumSeconds(m, C.double(secs))
	}
	opts := C.ClpSolve_new()
	defer C.ClpSolve_delete(opts)
	// Special option 2 = 1: no SIGINT handler (ClpSolve.hpp: "interrupt
	// handling - 0 yes, 1 no (for threadsafe)").
	C.ClpSolve_setSpecialOption(opts, 2, 1, -1)
	C.ClpSolve_setSolveType(opts, C.int(tu.solveType), -1)
	if tu.presolveOff {
		C.ClpSolve_setPresolveType(opts, 1, -1)
	}
	if tu.startup >= 0 {
		which := C.int(0)
		if tu.solveType == 1 {
			which = 1
		}
		C.ClpSolve_setSpecialOption(opts, which, C.int(tu.startup), C.int(tu.startupExtra))
	}
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
