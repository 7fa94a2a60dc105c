// What claims 2, 3 and 10 of SPEC §6 share (formulation.go, relaxation.go,
// flow.go): the hindsight programs and the flow solver are compared with
// the exhaustive optimum (lp/exhaustive shares no code with them). The programs
// are solved with the pure-Go gonum backend, so these claims need no system
// library; instances are those of Theorem 1 (up to 6 turns, 3
// conversations, lengths up to 4 tokens), small enough for exhaustive
// search and for gonum's branch and bound.

package proofscheck

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// drawOptimum draws a Theorem 1 instance at a block size taken from blocks,
// in forced caching mode half of the time when formulation f can state it
// (the printed program is optional caching only).
func drawOptimum(r *rand.Rand, blocks []int64, f lp.Formulation) *TraceInstance {
	forced := r.IntN(2) == 1 && f != lp.PaperAsWritten
	in := RandomInstance(r, 6, 3, 4, blocks[r.IntN(len(blocks))], false, forced)
	in.Solve = fmt.Sprintf("--formulation %s --solver gonum", f)
	return in
}

// optimumSpace is the small scope the claims of the programs and the flow
// solver (2, 3 and 10) enumerate in full before their random instances,
// at the block sizes blocks and in the caching modes formulation f can
// state: up to 3 turns over up to 2 conversations, prompts of 1–2 tokens,
// responses of 0–1, 1–2 blocks of capacity, ξ from 0 to 2 tokens. Smaller
// than Theorem 1's (theorem1Space): each instance solves a program with
// gonum.
func optimumSpace(blocks []int64, f lp.Formulation) TraceSpace {
	return TraceSpace{MinTurns: 1, MaxTurns: 3, MaxConvs: 2, MaxPrompt: 2, MaxResponse: 1,
		Blocks: blocks, MaxCapacityBlocks: 2, Xis: xiRange(0, 2), Both: f != lp.PaperAsWritten}
}

// optimumEnumeration is optimumSpace as an enumeration whose instances
// name formulation f and solver gonum (with --relax when relax).
func optimumEnumeration(blocks []int64, f lp.Formulation, relax bool) *claim.Enumeration {
	solve := fmt.Sprintf("--formulation %s --solver gonum", f)
	if relax {
		solve += " --relax"
	}
	return optimumSpace(blocks, f).Enumeration(solve)
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
	return lp.NewInstance(inst.Trace(), inst.Params)
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
	return fmt.Sprintf("B = %d, %s caching", inst.BlockSize, mode)
}

// lpTol is the tolerance on an LP optimum, tokens: gonum's simplex stops
// at a vertex whose objective is exact to about 1e-9 relative on these
// few-dozen-token objectives; 1e-7 relative (at least 1e-7 tokens) leaves
// room for its pivoting tolerances while staying far below the smallest
// possible integrality gap (a fraction of one token).
func lpTol(v float64) float64 { return 1e-7 * math.Max(1, math.Abs(v)) }
