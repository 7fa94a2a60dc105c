// Claim 3 of SPEC §6: the LP relaxation of each hindsight integer program
// (the tail-latency paper's program, seed
// ../shared/seeds/003_d50602792df89471.txt, in the formulations of SPEC §3)
// equals its integer optimum, at B = 1 and at B > 1; LP by gonum, integer
// optimum by exhaustive search.

package proofscheck

import (
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// relaxationClaims is claim 3 for every formulation, at B = 1 and at
// B = 2–3.
func relaxationClaims(Sizes) []claim.Claim {
	var out []claim.Claim
	for _, f := range lp.Formulations() {
		out = append(out, relaxationClaim(f, "b1", []int64{1}), relaxationClaim(f, "blocks", []int64{2, 3}))
	}
	return out
}

// relaxationClaim is claim 3 for formulation f at the block sizes given:
// the LP relaxation's optimum equals the integer optimum.
func relaxationClaim(f lp.Formulation, scope string, blocks []int64) claim.Claim {
	return claim.Claim{
		Name: "relaxation-" + string(f) + "-" + scope,
		Statement: fmt.Sprintf("Claim 3: the LP relaxation of the %s program equals the integer optimum (no integrality gap), B ∈ %v, %s; "+
			"LP by gonum, integer optimum by exhaustive search", f, blocks, modes(f)),
		Exhaustive: optimumEnumeration(blocks, f, true),
		Generate: func(r *rand.Rand) claim.Instance {
			in := drawOptimum(r, blocks, f)
			in.Solve += " --relax"
			return in
		},
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			bound, _, err := solveTiny(inst, f, true)
			if err != nil {
				return false, "", err
			}
			opt := exhaustive.Optimum(inst.Trace(), inst.Params)
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
