package proofscheck

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// Claims 2, 3 and 10 of SPEC §6: the hindsight programs and the flow
// solver against the exhaustive optimum (Exhaustive shares no code with
// lp). The programs are solved with the pure-Go gonum backend, so these
// claims need no system library; instances are those of Theorem 1 (up to
// 6 turns, 3 conversations, lengths up to 4 tokens), small enough for
// exhaustive search and for gonum's branch and bound.

// drawOptimum draws a Theorem 1 instance at a block size taken from blocks,
// in forced caching mode half of the time when formulation f can state it
// (the printed program is optional caching only).
func drawOptimum(r *rand.Rand, blocks []int64, f lp.Formulation) *TraceInstance {
	forced := r.IntN(2) == 1 && f != lp.PaperAsWritten
	return RandomInstance(r, 6, 3, 4, blocks[r.IntN(len(blocks))], false, forced)
}

// modes names the caching modes a formulation's claims draw.
func modes(f lp.Formulation) string {
	if f == lp.PaperAsWritten {
		return "optional caching (the printed program has no forced mode)"
	}
	return "optional and forced caching"
}

// lpInstance converts a claim instance to the solvers' instance.
func lpInstance(inst *TraceInstance) (*lp.Instance, error) {
	return lp.NewInstance(inst.Trace(), instance.Params{Capacity: inst.Capacity, BlockSize: inst.Block, Xi: inst.Xi, Forced: inst.Forced})
}

// solveTiny solves formulation f of inst with gonum (its LP relaxation
// when relax) and returns the optimal TEL, tokens, and the conditions the
// formulation adds or reads into the printed program.
func solveTiny(inst *TraceInstance, f lp.Formulation, relax bool) (float64, string, error) {
	in, err := lpInstance(inst)
	if err != nil {
		return 0, "", err
	}
	res, err := lp.SolveInstance(context.Background(), in, f, gonumlp.Backend{}, relax, lp.Options{})
	if err != nil {
		return 0, "", err
	}
	var names []string
	for _, c := range res.Conditions {
		names = append(names, c.Name)
	}
	conds := strings.Join(names, ", ")
	switch res.Status {
	case lp.Optimal:
		return res.TEL, conds, nil
	case lp.Infeasible, lp.Unbounded:
		// A program that is infeasible or unbounded on an admissible
		// instance disagrees with the model: a result, reported as +Inf
		// (infeasible) or −Inf (unbounded) so that the check fails.
		if res.Status == lp.Infeasible {
			return math.Inf(1), conds, nil
		}
		return math.Inf(-1), conds, nil
	default:
		return 0, "", fmt.Errorf("gonum %s on formulation %s: %s (%s)", res.Status, f, res.Status, res.Detail)
	}
}

// params names an instance's block size and mode for a failure detail.
func params(inst *TraceInstance) string {
	mode := "optional"
	if inst.Forced {
		mode = "forced"
	}
	return fmt.Sprintf("B = %d, %s caching", inst.Block, mode)
}

// formulationClaim is claim 2 for formulation f: its integer optimum
// equals the exhaustive optimum (so the three formulations agree exactly
// when each of these claims holds).
func formulationClaim(f lp.Formulation) claim.Claim {
	return claim.Claim{
		Name: "formulation-" + string(f),
		Statement: "Claim 2 (SPEC §3): the " + string(f) + " integer program has the hindsight TEL optimum, B = 1–3, " + modes(f) + "; " +
			"checked against exhaustive search (gonum branch and bound)",
		Generate: func(r *rand.Rand) claim.Instance { return drawOptimum(r, []int64{1, 2, 3}, f) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			got, conds, err := solveTiny(inst, f, false)
			if err != nil {
				return false, "", err
			}
			opt := Exhaustive(inst.Trace(), inst.Capacity, inst.Block, inst.Xi, inst.Forced)
			if math.Abs(got-opt) <= telTol {
				return true, "", nil
			}
			return false, fmt.Sprintf("%s IP optimum %v tokens, exhaustive optimum %v tokens (%s; the formulation's conditions: %s)",
				f, got, opt, params(inst), conds), nil
		},
	}
}

// relaxationClaim is claim 3 for formulation f at the block sizes given:
// the LP relaxation's optimum equals the integer optimum.
func relaxationClaim(f lp.Formulation, scope string, blocks []int64) claim.Claim {
	return claim.Claim{
		Name: "relaxation-" + string(f) + "-" + scope,
		Statement: fmt.Sprintf("Claim 3: the LP relaxation of the %s program equals the integer optimum (no integrality gap), B ∈ %v, %s; "+
			"LP by gonum, integer optimum by exhaustive search", f, blocks, modes(f)),
		Generate: func(r *rand.Rand) claim.Instance { return drawOptimum(r, blocks, f) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			bound, _, err := solveTiny(inst, f, true)
			if err != nil {
				return false, "", err
			}
			opt := Exhaustive(inst.Trace(), inst.Capacity, inst.Block, inst.Xi, inst.Forced)
			if bound > opt+lpTol(opt) {
				return false, "", fmt.Errorf("%s LP bound %v above the exhaustive optimum %v (%s): a bug in one of them", f, bound, opt, params(inst))
			}
			if opt-bound <= lpTol(opt) {
				return true, "", nil
			}
			return false, fmt.Sprintf("%s LP bound %v tokens < integer optimum %v tokens (%s)", f, bound, opt, params(inst)), nil
		},
	}
}

// lpTol is the tolerance on an LP optimum, tokens: gonum's simplex stops
// at a vertex whose objective is exact to about 1e-9 relative on these
// few-dozen-token objectives; 1e-7 relative (at least 1e-7 tokens) leaves
// room for its pivoting tolerances while staying far below the smallest
// possible integrality gap (a fraction of one token).
func lpTol(v float64) float64 { return 1e-7 * math.Max(1, math.Abs(v)) }

// flowClaim is claim 10's first half: the min-cost-flow optimum equals the
// exhaustive optimum at every block size.
func flowClaim() claim.Claim {
	return claim.Claim{
		Name:      "flow",
		Statement: "Claim 10: the min-cost-flow optimum (lp.SolveFlow) equals the hindsight TEL optimum, B = 1–4, optional and forced caching; checked against exhaustive search",
		Generate:  func(r *rand.Rand) claim.Instance { return drawOptimum(r, []int64{1, 2, 3, 4}, lp.Compact) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			flow, err := flowTEL(inst)
			if err != nil {
				return false, "", err
			}
			opt := Exhaustive(inst.Trace(), inst.Capacity, inst.Block, inst.Xi, inst.Forced)
			if math.Abs(flow-opt) <= telTol {
				return true, "", nil
			}
			return false, fmt.Sprintf("flow optimum %v tokens, exhaustive optimum %v tokens (%s)", flow, opt, params(inst)), nil
		},
	}
}

// flowLPClaim is claim 10's second half, stated so that its failures are
// the answer: the plain LP relaxation of the compact IP equals the flow
// optimum. Where it fails, the relaxation falls below the flow's integer
// optimum (a fractional block saving B tokens per block).
func flowLPClaim() claim.Claim {
	return claim.Claim{
		Name: "flow-lp",
		Statement: "Claim 10: the plain LP relaxation of the compact IP equals the min-cost-flow optimum, B = 1–4, optional and forced caching " +
			"(failures show where the relaxation falls below it)",
		Generate: func(r *rand.Rand) claim.Instance { return drawOptimum(r, []int64{1, 2, 3, 4}, lp.Compact) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			flow, err := flowTEL(inst)
			if err != nil {
				return false, "", err
			}
			bound, _, err := solveTiny(inst, lp.Compact, true)
			if err != nil {
				return false, "", err
			}
			if bound > flow+lpTol(flow) {
				return false, "", fmt.Errorf("compact LP bound %v above the flow optimum %v (%s): a bug in one of them", bound, flow, params(inst))
			}
			if flow-bound <= lpTol(flow) {
				return true, "", nil
			}
			return false, fmt.Sprintf("compact LP bound %v tokens < flow optimum %v tokens (%s)", bound, flow, params(inst)), nil
		},
	}
}

// flowTEL returns the flow solver's optimum of inst, tokens; a status
// other than optimal is an error (the tiny instances have no time limit).
func flowTEL(inst *TraceInstance) (float64, error) {
	in, err := lpInstance(inst)
	if err != nil {
		return 0, err
	}
	res, err := lp.SolveFlow(context.Background(), in, lp.Options{})
	if err != nil {
		return 0, err
	}
	if res.Status != lp.Optimal {
		return 0, fmt.Errorf("flow: %s (%s)", res.Status, res.Detail)
	}
	return res.TEL, nil
}
