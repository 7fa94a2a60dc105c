// Package lp builds the hindsight TEL integer program of the tail-latency
// paper and its LP relaxation (the formulations), the min-cost flow network
// that solves it exactly (SolveFlow; the algorithms are in lp/mcf), and
// defines the two solver interfaces: Backend, for LP/MIP backends on a
// built Problem (pure-Go lp/gonumlp, and COIN-OR CLP and CBC in lp/coin
// behind the "coin" build tag), and Solver, at the instance level, which
// every entry of the lp/solvers registry implements.
package lp

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
)

// Problem is a linear or mixed-integer program in sparse column-major form:
//
//	minimize    Obj·x
//	subject to  RowLo ≤ A·x ≤ RowUp
//	            ColLo ≤ x ≤ ColUp
//	            x_j integer where Integer[j]
//
// Infinite bounds are math.Inf. A is stored by columns: the non-zeros of
// column j are Value[k] at row RowIndex[k] for ColStart[j] ≤ k <
// ColStart[j+1]. No dense copy is ever made.
type Problem struct {
	NumRows, NumCols int
	Obj              []float64
	ColLo, ColUp     []float64
	RowLo, RowUp     []float64
	ColStart         []int
	RowIndex         []int
	Value            []float64
	// Integer marks integer columns; nil means all continuous.
	Integer []bool
	// ColNames and RowNames are optional, for diagnostics.
	ColNames, RowNames []string
}

// NonZeros returns the number of stored matrix entries.
func (p *Problem) NonZeros() int { return len(p.Value) }

// HasIntegers reports whether any column is integer.
func (p *Problem) HasIntegers() bool {
	for _, b := range p.Integer {
		if b {
			return true
		}
	}
	return false
}

// Validate checks the shapes and bounds of p.
func (p *Problem) Validate() error {
	switch {
	case len(p.Obj) != p.NumCols || len(p.ColLo) != p.NumCols || len(p.ColUp) != p.NumCols:
		return fmt.Errorf("lp: %d columns but %d objective, %d/%d bounds", p.NumCols, len(p.Obj), len(p.ColLo), len(p.ColUp))
	case len(p.RowLo) != p.NumRows || len(p.RowUp) != p.NumRows:
		return fmt.Errorf("lp: %d rows but %d/%d bounds", p.NumRows, len(p.RowLo), len(p.RowUp))
	case len(p.ColStart) != p.NumCols+1 || p.ColStart[0] != 0 || p.ColStart[p.NumCols] != len(p.Value):
		return fmt.Errorf("lp: column starts malformed")
	case len(p.RowIndex) != len(p.Value):
		return fmt.Errorf("lp: %d row indices for %d values", len(p.RowIndex), len(p.Value))
	case p.Integer != nil && len(p.Integer) != p.NumCols:
		return fmt.Errorf("lp: %d integrality marks for %d columns", len(p.Integer), p.NumCols)
	}
	for j := 0; j < p.NumCols; j++ {
		if p.ColStart[j] > p.ColStart[j+1] {
			return fmt.Errorf("lp: column %d starts after column %d", j, j+1)
		}
		if p.ColLo[j] > p.ColUp[j] || math.IsNaN(p.ColLo[j]) || math.IsNaN(p.ColUp[j]) {
			return fmt.Errorf("lp: column %d bounds [%v, %v]", j, p.ColLo[j], p.ColUp[j])
		}
	}
	for _, r := range p.RowIndex {
		if r < 0 || r >= p.NumRows {
			return fmt.Errorf("lp: row index %d out of [0, %d)", r, p.NumRows)
		}
	}
	return nil
}

// Status is the outcome of a solve.
type Status int

// Solver outcomes. Only Optimal carries a trustworthy objective.
const (
	Optimal Status = iota
	Infeasible
	Unbounded
	IterationLimit
	TimeLimit
	Numerical
	TooLarge // the backend refused: the instance is beyond what it can handle
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	case Unbounded:
		return "unbounded"
	case IterationLimit:
		return "iteration-limit"
	case TimeLimit:
		return "time-limit"
	case Numerical:
		return "numerical-trouble"
	case TooLarge:
		return "too-large"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Solution is a backend's answer. X and Obj are meaningful only when Status
// is Optimal (a time-limited MIP may also report its best integer point,
// flagged by Status TimeLimit).
type Solution struct {
	Status     Status
	Obj        float64
	X          []float64
	Iterations int
	Time       time.Duration
	// Detail is the backend's own status text, for reports.
	Detail string
	// Bound, when HasBound, is the backend's best bound on the optimal
	// objective (no feasible point has Obj·x below it), as the solver
	// computed it in floating point: a caller that certifies it must
	// allow for the solver's tolerances. A MIP stopped by a limit may
	// have one (CBC's best possible objective); zero values: none.
	Bound    float64
	HasBound bool
}

// Options bound a solve.
type Options struct {
	// TimeLimit stops the solve (0: none). Backends honour it as well as
	// their library allows and report TimeLimit.
	TimeLimit time.Duration
	// Relax ignores integrality marks (solve the LP relaxation).
	Relax bool
	// Progress, when not nil, is told the solve's phases and how far each
	// is (the flow solver: its windows, then its primal–dual stage).
	Progress progress.Func
	// Start (nil: none) is a feasible integer point, one value per
	// column, that a MIP backend may take as its first incumbent (CBC's
	// MIP start); backends without one ignore it.
	Start []float64
}

// Bound returns ctx cancelled after o.TimeLimit (unchanged when it is 0)
// and the function that releases it, which the caller must call.
func (o Options) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.TimeLimit > 0 {
		return context.WithTimeout(ctx, o.TimeLimit)
	}
	return ctx, func() {}
}

// Backend solves Problems. Implementations: gonumlp.Backend (pure Go, small
// instances), clp (LPs) and cbc (MIPs) with the "coin" build tag.
type Backend interface {
	// Name is the backend's command-line name.
	Name() string
	// Solve solves p. An error is a failure to run (bad input, library
	// error); a solver outcome such as infeasibility is a Status.
	Solve(ctx context.Context, p *Problem, opt Options) (Solution, error)
}
