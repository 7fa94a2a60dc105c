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
	return BackendSolver{Backend: be}.Solve(ctx, NewTask(in, f, relax), opt)
}

// Task is one hindsight problem to solve: formulation Formulation of
// instance In, or its plain LP relaxation when Relax. It builds the
// formulation's model at most once, for whichever solver asks first (auto
// reads its size before choosing, and the chosen backend reuses it).
type Task struct {
	In          *Instance
	Formulation Formulation
	Relax       bool

	built bool
	model *Model
	build time.Duration
	err   error
}

// NewTask returns the task of solving formulation f of in (its LP
// relaxation when relax).
func NewTask(in *Instance, f Formulation, relax bool) *Task {
	return &Task{In: in, Formulation: f, Relax: relax}
}

// Model returns the task's formulation built with default BuildOptions,
// building it on the first call, and the wall time that build took.
func (t *Task) Model() (*Model, time.Duration, error) {
	if !t.built {
		start := time.Now()
		t.model, t.err = Build(t.In, t.Formulation, BuildOptions{})
		t.build, t.built = time.Since(start), true
	}
	return t.model, t.build, t.err
}

// Solver solves hindsight problems at the instance level; every entry of
// the lp/solvers registry is one. Solve returns the result with
// Result.Solver naming who solved it. An error is a failure to run or a
// task the solver refuses (bad input, a relaxation it has no plain form
// of); a solver outcome such as a time limit is a Result.Status.
type Solver interface {
	Solve(ctx context.Context, t *Task, opt Options) (*Result, error)
}

// BackendSolver is a Solver that builds the task's formulation and solves
// the program with Backend (gonum, clp, cbc).
type BackendSolver struct{ Backend Backend }

// Solve builds the task's model (once per task) and solves it with the
// backend; Result.Build is the build's wall time.
func (s BackendSolver) Solve(ctx context.Context, t *Task, opt Options) (*Result, error) {
	m, build, err := t.Model()
	if err != nil {
		return nil, err
	}
	r, err := SolveModel(ctx, m, s.Backend, t.Relax, opt)
	if err != nil {
		return nil, err
	}
	r.Build = build
	return r, nil
}

// FlowSolver is the min-cost flow solver (SolveFlow) as a Solver. It
// solves the compact formulation's integer program whatever the task's
// formulation (the formulations' optima agree: claim 2) and says so in
// Result.Formulation; it refuses relaxations, its own LP being integral.
type FlowSolver struct{}

// Solve runs SolveFlow on the task's instance.
func (FlowSolver) Solve(ctx context.Context, t *Task, opt Options) (*Result, error) {
	if t.Relax {
		return nil, errFlowRelax
	}
	return SolveFlow(ctx, t.In, opt)
}
