// Claim 2 of SPEC §6 (its §3 defines the three programs): the hindsight
// integer program of the tail-latency paper (seed
// ../shared/seeds/003_d50602792df89471.txt, the program that defines the
// hindsight TEL optimum before Theorem 1), as the compact, the completed
// ("paper") and the printed ("paper-as-written") formulations, each has the
// hindsight TEL optimum; checked against exhaustive search.

package proofscheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// formulationClaims is claim 2 for every formulation lp knows.
func formulationClaims(Sizes) []claim.Claim {
	var out []claim.Claim
	for _, f := range lp.Formulations() {
		out = append(out, formulationClaim(f))
	}
	return out
}

// formulationClaim is claim 2 for formulation f: its integer optimum
// equals the exhaustive optimum (so the three formulations agree exactly
// when each of these claims holds).
func formulationClaim(f lp.Formulation) claim.Claim {
	return claim.Claim{
		Name: "formulation-" + string(f),
		Statement: "Claim 2 (SPEC §3): the " + string(f) + " integer program has the hindsight TEL optimum, B = 1–3, " + modes(f) + "; " +
			"checked against exhaustive search (gonum branch and bound)",
		Generate:   func(r *rand.Rand) claim.Instance { return drawOptimum(r, []int64{1, 2, 3}, f) },
		Exhaustive: optimumEnumeration([]int64{1, 2, 3}, f, false),
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			got, conds, err := solveTiny(inst, f, false)
			if err != nil {
				return false, "", err
			}
			opt := exhaustive.Optimum(inst.Trace(), inst.Params)
			if math.Abs(got-opt) <= telTol {
				return true, "", nil
			}
			return false, fmt.Sprintf("%s IP optimum %v tokens, exhaustive optimum %v tokens (%s; the formulation's conditions: %s)",
				f, got, opt, params(inst), conds), nil
		},
	}
}
