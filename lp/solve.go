package lp

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Result is the outcome of solving one formulation of an instance.
type Result struct {
	Formulation Formulation
	Solver      string
	Relax       bool
	// Status is the solver's outcome; TEL and Schedule are meaningful
	// only when it is Optimal (or TimeLimit/IterationLimit with a point,
	// flagged as such).
	Status Status
	Detail string
	// TEL is the optimum, tokens: Obj·x + Offset as the formulation values
	// the solution (for a relaxation, the LP bound).
	TEL float64
	// Integral reports whether the solution's block counts are whole
	// (within IntegralityTol).
	Integral bool
	// Schedule is x_k, tokens, per turn, read from the solution (block
	// counts rounded); ScheduleTEL its TEL recomputed from the trace, and
	// ScheduleErr the first model rule it breaks (nil when admissible).
	Schedule    []int64
	ScheduleTEL float64
	ScheduleErr error
	// Sizes of what was solved.
	Rows, Cols, NonZeros int
	// Build and Solve are wall-clock times.
	Build, Solve time.Duration
	// Conditions are the formulation's added conditions or readings.
	Conditions []Condition
	// Points is filled when the solver has a solution vector.
	Points bool
}

// SolveModel solves a built model with backend be.
func SolveModel(ctx context.Context, m *Model, be Backend, relax bool, opt Options) (*Result, error) {
	opt.Relax = relax
	p := m.Problem
	r := &Result{Formulation: m.Formulation, Solver: be.Name(), Relax: relax, Rows: p.NumRows, Cols: p.NumCols,
		NonZeros: p.NonZeros(), Conditions: m.Conditions}
	start := time.Now()
	sol, err := be.Solve(ctx, p, opt)
	r.Solve = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", be.Name(), err)
	}
	r.Status, r.Detail = sol.Status, sol.Detail
	r.TEL = math.NaN()
	if sol.X != nil && len(sol.X) == p.NumCols && (sol.Status == Optimal || sol.Status == TimeLimit || sol.Status == IterationLimit) {
		r.Points = true
		r.TEL = m.Objective(sol.X)
		r.Integral = m.Integral(sol.X)
		r.Schedule = m.Schedule(sol.X)
		r.ScheduleTEL = m.in.TEL(r.Schedule)
		r.ScheduleErr = m.in.CheckSchedule(r.Schedule)
	}
	return r, nil
}

// SolveInstance builds formulation f of in and solves it with be (its LP
// relaxation when relax).
func SolveInstance(ctx context.Context, in *Instance, f Formulation, be Backend, relax bool, opt Options) (*Result, error) {
	start := time.Now()
	m, err := Build(in, f, BuildOptions{})
	if err != nil {
		return nil, err
	}
	build := time.Since(start)
	r, err := SolveModel(ctx, m, be, relax, opt)
	if err != nil {
		return nil, err
	}
	r.Build = build
	return r, nil
}
