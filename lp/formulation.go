package lp

import (
	"fmt"
	"math"
	"strings"
)

// Formulation names one of the hindsight programs.
type Formulation string

// The three formulations of the hindsight TEL problem (SPEC §3).
const (
	// PaperAsWritten is the tail-latency paper's program exactly as
	// printed: x_{i,t} and u_{i,t} ∈ ℕ, capacity (4), history bound (5),
	// no growth (6) and the slack rows; see BuildPaperAsWritten.
	PaperAsWritten Formulation = "paper-as-written"
	// Paper is the printed program plus the conditions the model implies
	// that it leaves out (see PaperConditions).
	Paper Formulation = "paper"
	// Compact has one variable per consecutive pair of turns of a
	// conversation; see BuildCompact.
	Compact Formulation = "compact"
)

// Formulations lists the formulations in presentation order.
func Formulations() []Formulation { return []Formulation{Compact, Paper, PaperAsWritten} }

// ParseFormulation resolves a formulation name.
func ParseFormulation(s string) (Formulation, error) {
	for _, f := range Formulations() {
		if string(f) == s {
			return f, nil
		}
	}
	var names []string
	for _, f := range Formulations() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown formulation %q (want %s)", s, strings.Join(names, "|"))
}

// Condition is a constraint a formulation adds to the printed program, or
// a reading of the printed text.
type Condition struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Model is a built formulation: the Problem and how to read a solution
// back. TEL tokens = Problem.Obj·x + Offset at any feasible point.
type Model struct {
	Formulation Formulation
	Problem     *Problem
	// Offset is the constant part of the TEL, tokens (e.g. the excess of
	// first turns, which nothing can cache).
	Offset float64
	// Conditions are the conditions added to the printed program (paper),
	// or the readings of it (paper-as-written, compact).
	Conditions []Condition
	// blockCol[k] is the column whose value times Block is x_k (the tokens
	// turn k finds cached), -1 when x_k is fixed at 0.
	blockCol []int
	in       *Instance
}

// Options shape a build.
type BuildOptions struct {
	// IntervalRows writes the compact formulation's capacity as one row
	// per step over the pairs that span it (as SPEC §3 words it), instead
	// of the equivalent running-balance rows with O(K) non-zeros.
	IntervalRows bool
	// MaxCells bounds the paper formulations' N·K x-variables (0: the
	// default DefaultMaxCells); beyond it Build refuses with ErrTooLarge.
	MaxCells int64
}

// DefaultMaxCells is the default bound on N·K for the paper formulations:
// 2·10^7 x-variables take about 2 GB as a sparse Problem (about 90 bytes
// per variable: three non-zeros and its bounds), before any solver copies
// it.
const DefaultMaxCells = 20_000_000

// ErrTooLarge reports a formulation too large to build.
var ErrTooLarge = fmt.Errorf("formulation too large to build")

// Build builds formulation f of in.
func Build(in *Instance, f Formulation, opt BuildOptions) (*Model, error) {
	switch f {
	case Compact:
		return BuildCompact(in, opt), nil
	case Paper:
		return buildPaper(in, false, opt)
	case PaperAsWritten:
		return buildPaper(in, true, opt)
	}
	return nil, fmt.Errorf("unknown formulation %q", f)
}

// Schedule reads the cached amount x_k (tokens) of every turn from a
// solution x of the model's Problem, rounding block counts to the nearest
// whole number.
func (m *Model) Schedule(x []float64) []int64 {
	out := make([]int64, len(m.blockCol))
	for k, j := range m.blockCol {
		if j >= 0 {
			out[k] = int64(math.Round(x[j])) * m.in.BlockSize
		}
	}
	return out
}

// IntegralityTol is the tolerance, in blocks, within which a solution's
// block counts are taken as whole numbers: solvers' feasibility tolerances
// are 1e-7 to 1e-9 relative, and block counts here are below 2^40.
const IntegralityTol = 1e-6

// Integral reports whether every integer column of x is within
// IntegralityTol of a whole number.
func (m *Model) Integral(x []float64) bool {
	for j, isInt := range m.Problem.Integer {
		if isInt && math.Abs(x[j]-math.Round(x[j])) > IntegralityTol {
			return false
		}
	}
	return true
}

// Objective returns the TEL, tokens, of solution x as the model values it:
// Obj·x + Offset.
func (m *Model) Objective(x []float64) float64 {
	s := m.Offset
	for j, c := range m.Problem.Obj {
		s += c * x[j]
	}
	return s
}
