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
	"fmt"
	"math"
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
// (Cbc_solve, which runs the cbc command line's strategy: cuts, heuristics,
// and optionally preprocessing). Problems without integer columns, and any
// problem when Options.Relax is set, are solved as LPs by CLP, the LP
// engine CBC itself uses. MIP solves are serialized (see the package
// documentation); a time-limited MIP reports its best integer point, if it
// found one, with Status TimeLimit.
//
// CBC applies a time limit to branch and bound only, not to the LP
// relaxation at the root, which on large programs can take minutes, nor to
// its root cuts and heuristics: at 10^5 turns of the compact formulation a
// 60 s limit returned after 477 s. A time-limited MIP (an Options limit or
// a context deadline) therefore runs in a worker process (see
// inWorker), which is killed at the limit, so the limit holds to
// within about half a second; the best integer point is reported only when
// CBC stops by itself in time. Inside the worker, the relaxation is first
// solved with CLP's dual simplex under the limit (its status returned if
// it does not finish, or is infeasible), and CBC is given what time is
// left. Without a limit CBC runs in this process.
//
// Two defects of CBC 2.10.8 (Debian's) shape the defaults; the package
// documentation gives the evidence:
//
//   - Its MIP preprocessing (CglPreProcess) returns wrong "proven optimal"
//     answers on general-integer programs, so it is off unless Preprocess
//     is set.
//   - On models under 300 rows and 500 columns it solves nodes through
//     OsiClpSolverInterface::crunch, whose assertion can abort the whole
//     process; such models are given free empty rows up to 300, which
//     leave the feasible set unchanged and take that path away.
//
// Options.Start, when set, is handed to CBC as its MIP start
// (Cbc_setMIPStartI: CBC fixes the integer columns to it, checks the
// point and, when it is feasible, takes it as its first incumbent, so a
// MIP that stops on a limit reports a point at least as good). A MIP
// solve reports CBC's best possible objective (Cbc_getBestPossibleObjValue)
// as Solution.Bound when CBC has one that says more than its incumbent
// (see cbcBound).
type CBC struct {
	// Preprocess turns on CBC's MIP preprocessing (see above: it can
	// return wrong optima).
	Preprocess bool
	// MaxNodes (> 0) stops branch and bound after this many nodes
	// (CBC's maxNodes); 0: no limit. A MIP stopped by it reports
	// IterationLimit with its best point and bound.
	MaxNodes int
}

// cbcOwnShare is the part of what is left of a time limit, after the
// root relaxation, that CBC's own limit ("seconds") is set to. CBC checks
// its clock only between nodes and after its root cuts, and a node's
// strong branching, or the root's cut passes, can take tens of seconds on
// programs of thousands of rows under load: given the whole time it
// overran the 0.5 s grace of its worker (killed after 193 s, 199 s and
// 30 s on the SLO programs of the 10^4-turn instances of
// docs/tail-bounds.md at load 30–50), and a killed worker returns neither
// its point nor its bound. Stopping itself a fifth early, it returns both.
const cbcOwnShare = 0.8

// minRows and minCols bound the models CbcMain1 solves with OsiClp's crunch
// (CbcSolver.cpp, "go faster stripes": fewer than 300 rows and 500
// columns).
const minRows, minCols = 300, 500

// Name returns "cbc".
func (CBC) Name() string { return "cbc" }

// Solve solves p. The objective is Obj·x (no offset); Iterations counts the
// simplex pivots of the whole search.
func (c CBC) Solve(ctx context.Context, p *lp.Problem, opt lp.Options) (lp.Solution, error) {
	if err := check(p); err != nil {
		return lp.Solution{}, err
	}
	if !p.HasIntegers() || opt.Relax {
		sol, err := CLP{}.solve(ctx, p, opt)
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
	if opt.Start != nil && len(opt.Start) != p.NumCols {
		return lp.Solution{}, fmt.Errorf("cbc: MIP start of %d values for %d columns", len(opt.Start), p.NumCols)
	}
	if secs > 0 {
		return inWorker(ctx, workerJob{Problem: *p, Seconds: secs, MIP: true, Preprocess: c.Preprocess,
			MaxNodes: c.MaxNodes, Start: opt.Start})
	}
	return c.solveMIP(p, secs, opt.Start)
}

// solveMIP is the branch and cut of Solve in this process, with a time
// limit of secs seconds as CBC honours it (0: none) and MIP start start
// (nil: none).
func (c CBC) solveMIP(p *lp.Problem, secs float64, start []float64) (lp.Solution, error) {
	ctx := context.Background()
	opt := lp.Options{TimeLimit: time.Duration(secs * float64(time.Second))}
	t0 := time.Now()
	if secs > 0 {
		// CBC checks its clock only in branch and bound, after the root
		// LP relaxation (CbcSolver.cpp applies "seconds" to the search
		// alone), so first make sure the relaxation fits in the limit.
		root, err := solveLP(ctx, p, opt, Dual)
		if err != nil {
			return lp.Solution{}, err
		}
		if stop, ok := rootOutcome(root); !ok {
			stop.Time = time.Since(t0)
			return stop, nil
		}
		secs -= time.Since(t0).Seconds()
		if secs <= 0 {
			return lp.Solution{Status: lp.TimeLimit, Iterations: root.Iterations, Time: time.Since(t0),
				Detail: "cbc: the LP relaxation (clp dual) took the whole time limit"}, nil
		}
	}
	mat := newMatrix(p)
	numRows, rowLo, rowUp := p.NumRows, p.RowLo, p.RowUp
	if numRows < minRows && p.NumCols < minCols {
		numRows, rowLo, rowUp = padRows(p.RowLo, p.RowUp, minRows)
	}

	cbcMu.Lock()
	defer cbcMu.Unlock()
	m := C.Cbc_newModel()
	defer C.Cbc_deleteModel(m)
	C.Cbc_loadProblem(m, C.int(p.NumCols), C.int(numRows),
		mat.startPtr(), mat.indexPtr(), dbl(p.Value),
		dbl(p.ColLo), dbl(p.ColUp), dbl(p.Obj), dbl(rowLo), dbl(rowUp))
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
	if !c.Preprocess {
		setParam(m, "preprocess", "off")
	}
	if secs > 0 {
		setParam(m, "timeMode", "elapsed")
		setParam(m, "seconds", strconv.FormatFloat(secs*cbcOwnShare, 'g', -1, 64))
	}
	if c.MaxNodes > 0 {
		setParam(m, "maxNodes", strconv.Itoa(c.MaxNodes))
	}
	if start != nil {
		idx := make([]C.int, len(start))
		for j := range idx {
			idx[j] = C.int(j)
		}
		C.Cbc_setMIPStartI(m, C.int(len(start)), &idx[0], dbl(start))
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
	if best != nil && (status == lp.Optimal || status == lp.TimeLimit || status == lp.IterationLimit) {
		sol.X = goFloats(best, p.NumCols)
		sol.Obj = float64(C.Cbc_getObjValue(m))
	}
	if status == lp.Optimal || status == lp.TimeLimit || status == lp.IterationLimit {
		sol.Bound, sol.HasBound = cbcBound(float64(C.Cbc_getBestPossibleObjValue(m)), sol.Obj, best != nil, status == lp.Optimal)
	}
	sol.Time = time.Since(t0)
	return sol, nil
}

// rootOutcome reports whether branch and bound should follow the LP
// relaxation's outcome root; when not, stop is the MIP's answer.
func rootOutcome(root lp.Solution) (stop lp.Solution, ok bool) {
	switch root.Status {
	case lp.Optimal, lp.Unbounded:
		// An unbounded relaxation leaves the MIP unbounded or
		// infeasible; CBC tells which.
		return lp.Solution{}, true
	case lp.Infeasible:
		return lp.Solution{Status: lp.Infeasible, Iterations: root.Iterations,
			Detail: "cbc: LP relaxation infeasible (clp dual): " + root.Detail}, false
	}
	return lp.Solution{Status: root.Status, Iterations: root.Iterations,
		Detail: "cbc: stopped in the LP relaxation (clp dual), before branch and bound: " + root.Detail}, false
}

// padRows returns row bounds extended to n rows by free rows (−∞, +∞).
func padRows(lo, up []float64, n int) (int, []float64, []float64) {
	plo, pup := make([]float64, n), make([]float64, n)
	copy(plo, lo)
	copy(pup, up)
	for i := len(lo); i < n; i++ {
		plo[i], pup[i] = math.Inf(-1), math.Inf(1)
	}
	return n, plo, pup
}

// setParam sets a cbc command-line parameter of m.
func setParam(m unsafe.Pointer, name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	C.Cbc_setParameter(m, cn, cv)
}

// cbcBound returns the bound on the optimal objective to report from
// CBC's best possible objective value bp (CbcModel::getBestPossibleObjValue,
// the least of its open nodes' LP values and its incumbent's objective
// obj), and whether there is one. CBC starts that value at +∞ (COIN_DBL_MAX)
// and only lowers it from the LP values of its search, so a limit reached
// before the search began leaves it at the incumbent's objective, which
// is not a bound: a value not below the incumbent's is reported only when
// CBC proved the incumbent optimal. Non-finite or huge (≥ 10^300) values
// are none.
func cbcBound(bp, obj float64, hasIncumbent, proven bool) (float64, bool) {
	if math.IsNaN(bp) || math.Abs(bp) >= 1e300 {
		return 0, false
	}
	if hasIncumbent && bp >= obj && !proven {
		return 0, false
	}
	return bp, true
}
