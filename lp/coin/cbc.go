//go:build coin

package coin

/*
#cgo pkg-config: clp cbc
#include <stdlib.h>
#include <Cbc_C_Interface.h>
*/
import "C"

import (
	"context"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/tailbound/tailbound/lp"
)

// cbcMu serializes CBC's branch-and-bound, which runs through CbcMain1 and
// its global state (see the package documentation). It guards the C
// library, not Go data.
var cbcMu sync.Mutex

// CBC solves mixed-integer programs with COIN-OR CBC's branch and cut
// (Cbc_solve, which runs the cbc command line's default strategy:
// preprocessing, cuts, heuristics). Problems without integer columns, and
// any problem when Options.Relax is set, are solved as LPs by CLP, the LP
// engine CBC itself uses. MIP solves are serialized (see the package
// documentation); a time-limited MIP reports its best integer point, if it
// found one, with Status TimeLimit.
type CBC struct{}

// Name returns "cbc".
func (CBC) Name() string { return "cbc" }

// Solve solves p. The objective is Obj·x (no offset); Iterations counts the
// simplex pivots of the whole search.
func (CBC) Solve(ctx context.Context, p *lp.Problem, opt lp.Options) (lp.Solution, error) {
	if err := check(p); err != nil {
		return lp.Solution{}, err
	}
	if !p.HasIntegers() || opt.Relax {
		sol, err := solveLP(ctx, p, opt)
		sol.Detail = "cbc: LP solved by clp; " + sol.Detail
		return sol, err
	}
	secs, err := limit(ctx, opt)
	if err != nil {
		return lp.Solution{}, err
	}
	if why := tooLarge(p); why != "" {
		return lp.Solution{Status: lp.TooLarge, Detail: "cbc: " + why}, nil
	}
	mat := newMatrix(p)

	cbcMu.Lock()
	defer cbcMu.Unlock()
	t0 := time.Now()
	m := C.Cbc_newModel()
	defer C.Cbc_deleteModel(m)
	C.Cbc_loadProblem(m, C.int(p.NumCols), C.int(p.NumRows),
		mat.startPtr(), mat.indexPtr(), dbl(p.Value),
		dbl(p.ColLo), dbl(p.ColUp), dbl(p.Obj), dbl(p.RowLo), dbl(p.RowUp))
	for j, isInt := range p.Integer {
		if isInt {
			C.Cbc_setInteger(m, C.int(j))
		}
	}
	C.Cbc_setLogLevel(m, 0)
	// Parameters are cbc command-line options, read by CbcMain1; its own
	// defaults would override the model's log level and time limit.
	setParam(m, "log", "0")
	setParam(m, "slog", "0")
	if secs > 0 {
		setParam(m, "timeMode", "elapsed")
		setParam(m, "seconds", strconv.FormatFloat(secs, 'g', -1, 64))
	}
	C.Cbc_solve(m)

	best := C.Cbc_bestSolution(m)
	state := cbcState{
		status:      int(C.Cbc_status(m)),
		secondary:   int(C.Cbc_secondaryStatus(m)),
		optimal:     C.Cbc_isProvenOptimal(m) != 0,
		infeasible:  C.Cbc_isProvenInfeasible(m) != 0,
		unbounded:   C.Cbc_isContinuousUnbounded(m) != 0,
		seconds:     C.Cbc_isSecondsLimitReached(m) != 0,
		nodes:       C.Cbc_isNodeLimitReached(m) != 0,
		solutions:   C.Cbc_isSolutionLimitReached(m) != 0,
		abandoned:   C.Cbc_isAbandoned(m) != 0,
		hasSolution: best != nil,
		nodeCount:   int(C.Cbc_getNodeCount(m)),
		iterCount:   int(C.Cbc_getIterationCount(m)),
	}
	status, detail := cbcOutcome(state)
	sol := lp.Solution{
		Status:     status,
		Iterations: state.iterCount,
		Detail:     detail,
	}
	if best != nil && (status == lp.Optimal || status == lp.TimeLimit) {
		sol.X = goFloats(best, p.NumCols)
		sol.Obj = float64(C.Cbc_getObjValue(m))
	}
	sol.Time = time.Since(t0)
	return sol, nil
}

// setParam sets a cbc command-line parameter of m.
func setParam(m unsafe.Pointer, name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	C.Cbc_setParameter(m, cn, cv)
}
