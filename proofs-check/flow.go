// Claim 10 of SPEC §6 (its §3 defines the flow solver): the min-cost-flow
// solver of the hindsight problem (tail-latency paper, seed
// ../shared/seeds/003_d50602792df89471.txt) has the hindsight TEL optimum
// at every block size, and the plain LP relaxation of the compact program
// meets it exactly where it has no integrality gap.

package proofscheck

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// flowClaims is claim 10: the flow optimum against exhaustive search, and
// the compact LP relaxation against the flow optimum.
func flowClaims(Sizes) []claim.Claim { return []claim.Claim{flowClaim(), flowLPClaim()} }

// flowClaim is claim 10's first half: the min-cost-flow optimum equals the
// exhaustive optimum at every block size.
func flowClaim() claim.Claim {
	return claim.Claim{
		Name:       "flow",
		Statement:  "Claim 10: the min-cost-flow optimum (lp.SolveFlow) equals the hindsight TEL optimum, B = 1–4, optional and forced caching; checked against exhaustive search",
		Generate:   func(r *rand.Rand) claim.Instance { return drawOptimum(r, []int64{1, 2, 3, 4}, lp.Compact) },
		Exhaustive: flowEnumeration(""),
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			flow, err := flowTEL(inst)
			if err != nil {
				return false, "", err
			}
			opt := exhaustive.Optimum(inst.Trace(), inst.Params)
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
		Exhaustive: flowEnumeration(""),
		Generate: func(r *rand.Rand) claim.Instance {
			in := drawOptimum(r, []int64{1, 2, 3, 4}, lp.Compact)
			in.Solve = "" // the flow solver, with the LP bound beside it
			return in
		},
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

// flowEnumeration is the flow claims' small scope (optimumSpace at B = 1–3,
// both caching modes), its instances run with the flow solver (solve "").
func flowEnumeration(solve string) *claim.Enumeration {
	return optimumSpace([]int64{1, 2, 3}, lp.Compact).Enumeration(solve)
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
