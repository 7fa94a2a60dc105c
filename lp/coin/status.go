//go:build coin

package coin

import (
	"fmt"

	"github.com/tailbound/tailbound/lp"
)

// clpOutcome maps CLP's problem status and secondary status
// (Clp_status, Clp_secondaryStatus; ClpModel.hpp documents both) to an
// lp.Status and a description. iterLimit reports whether the iteration
// count reached the model's maximum, which tells the two causes of status
// 3 apart when the secondary status does not.
func clpOutcome(status, secondary int, iterLimit bool) (lp.Status, string) {
	detail := fmt.Sprintf("clp status %d, secondary %d: ", status, secondary)
	switch status {
	case 0:
		switch secondary {
		case 0:
			return lp.Optimal, detail + "optimal"
		case 6:
			// ClpModel::emptyProblem: presolve left no elements and
			// the rest was solved by inspection.
			return lp.Optimal, detail + "optimal (reduced problem empty after presolve)"
		case 2:
			return lp.Numerical, detail + "scaled problem optimal, unscaled problem has primal infeasibilities"
		case 3:
			return lp.Numerical, detail + "scaled problem optimal, unscaled problem has dual infeasibilities"
		case 4:
			return lp.Numerical, detail + "scaled problem optimal, unscaled problem has primal and dual infeasibilities"
		}
		return lp.Numerical, detail + "optimal with an unexpected secondary status"
	case 1:
		return lp.Infeasible, detail + "primal infeasible"
	case 2:
		return lp.Unbounded, detail + "dual infeasible (primal unbounded)"
	case 3:
		switch {
		case secondary == 9:
			return lp.TimeLimit, detail + "stopped on time"
		case iterLimit:
			return lp.IterationLimit, detail + "stopped on iterations"
		}
		return lp.TimeLimit, detail + "stopped on a limit other than iterations (time)"
	case 4:
		return lp.Numerical, detail + "stopped due to errors"
	case 5:
		return lp.Numerical, detail + "stopped by an event handler"
	case -1:
		return lp.Numerical, detail + "unknown (postsolve says not optimal)"
	}
	return lp.Numerical, detail + "unknown status"
}

// cbcState is what CBC reports after a branch-and-bound solve
// (Cbc_C_Interface.h documents each query).
type cbcState struct {
	status, secondary    int  // Cbc_status, Cbc_secondaryStatus
	optimal              bool // Cbc_isProvenOptimal
	infeasible           bool // Cbc_isProvenInfeasible
	unbounded            bool // Cbc_isContinuousUnbounded
	seconds              bool // Cbc_isSecondsLimitReached
	nodes                bool // Cbc_isNodeLimitReached
	solutions            bool // Cbc_isSolutionLimitReached
	abandoned            bool // Cbc_isAbandoned
	hasSolution          bool // Cbc_bestSolution != NULL
	nodeCount, iterCount int
}

// cbcOutcome maps a cbcState to an lp.Status and a description. Proven
// optimality needs an integer solution to report; an unbounded LP
// relaxation is reported as Unbounded (the MIP is unbounded if it is
// feasible at all).
func cbcOutcome(s cbcState) (lp.Status, string) {
	detail := fmt.Sprintf("cbc status %d, secondary %d, %d nodes, %d iterations: ",
		s.status, s.secondary, s.nodeCount, s.iterCount)
	switch {
	case s.optimal && s.hasSolution:
		return lp.Optimal, detail + "proven optimal"
	case s.infeasible || s.secondary == 1:
		return lp.Infeasible, detail + "proven infeasible"
	case s.unbounded || s.secondary == 7:
		return lp.Unbounded, detail + "linear relaxation unbounded"
	case s.seconds || s.secondary == 4:
		if s.hasSolution {
			return lp.TimeLimit, detail + "stopped on time with an integer solution"
		}
		return lp.TimeLimit, detail + "stopped on time without an integer solution"
	case s.nodes || s.secondary == 3:
		return lp.IterationLimit, detail + "stopped on the node limit"
	case s.solutions || s.secondary == 6:
		return lp.IterationLimit, detail + "stopped on the solution limit"
	case s.secondary == 8:
		return lp.IterationLimit, detail + "stopped on the iteration limit"
	case s.abandoned || s.status == 2:
		return lp.Numerical, detail + "abandoned on numerical difficulties"
	case s.optimal:
		return lp.Numerical, detail + "proven optimal but no solution returned"
	}
	return lp.Numerical, detail + "unexpected outcome"
}
