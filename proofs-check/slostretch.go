package proofscheck

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// sloStretchLayerClaims is the family of claims on how lp/slo lays its
// stretches over the rows (issue 32): registered after the LNS's so that
// the earlier claims keep their random streams.
func sloStretchLayerClaims(Sizes) []claim.Claim {
	return []claim.Claim{sloReshapeClaim(), sloFlowStretchClaim()}
}

// sloReshapeClaim checks how the stretches change when their shares
// stall (lp/slo/layer.go): neighbouring stretches merged at the current
// shares (each member's share the sum of its two), a merge kept where its
// branch and bound finishes; or a second layer added, offset by half a
// stretch, at zero shares. The lower bound on violations is never above
// the exhaustive fewest, from stretches of one to three rows merged up to
// 2–8 rows or layered after one or two steps without gain, by either
// rule.
func sloReshapeClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-stretch-reshape-valid",
		Statement: "Issue 32: lp/slo's stretches of rows reshaped whenever the shares stall — merged with their neighbours (each member's share in the merged stretch the sum of its two; kept where the branch and bound closes; 1–3 rows merged up to 2–8) or joined by a second layer offset by half a stretch at zero shares, after 1–2 steps without gain, bundle method or deflected subgradient — bound the fewest SLO violations from below: at most the exhaustive optimum, B = 1–4, optional and forced caching",
		Generate:  drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			return stretchBoundsHold(i.(*SLOInstance), 3, "reshaped stretches", func(span int) []slo.StretchOptions {
				return []slo.StretchOptions{
					{Span: span, Iterations: 30, Rule: slo.StretchBundle, Coarsen: 2 * span, StallSteps: 1},
					{Span: span, Iterations: 30, Rule: slo.StretchSubgradient, Coarsen: 8, StallSteps: 2},
					{Span: span, Iterations: 30, Rule: slo.StretchBundle, AddLayer: true, StallSteps: 1},
					{Span: span, Iterations: 30, Rule: slo.StretchSubgradient, AddLayer: true, StallSteps: 2},
				}
			})
		},
	}
}

// sloFlowStretchClaim checks the stretches solved by the flow LP's branch
// and bound (lp/slo/stretchflow.go; StretchOptions.Flow): from the LP's
// split with 0–20 bundle steps, stretches of one to three rows bound the
// fewest violations from below, and one stretch holding every row of a
// component, solved to the end, gives the fewest violations themselves:
// the branch and bound, its reduced-cost fixing and its dominance
// weighted by the shares keep an optimum.
func sloFlowStretchClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-stretch-flow-exact",
		Statement: "Issue 32: lp/slo's stretches of rows solved by a best-first branch and bound over their flow LP (reduced-cost fixing, dominance weighted by the shares, reliability branching) bound the fewest SLO violations from below for stretches of 1–3 rows and 0–20 bundle steps, and a stretch holding every row of each component gives the exhaustive optimum exactly; B = 1–4, optional and forced caching",
		Generate:  drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			ok, msg, err := stretchBoundsHold(inst, 3, "flow stretches", func(span int) []slo.StretchOptions {
				return []slo.StretchOptions{{Flow: true, Span: span}, {Flow: true, Span: span, Iterations: 20}}
			})
			if !ok || err != nil {
				return ok, msg, err
			}
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			got, err := slo.StretchBoundWith(context.Background(), in, inst.S, slo.StretchOptions{Flow: true, Span: 1 << 30})
			if err != nil {
				return false, "", err
			}
			if want := minViolations(inst); got != want {
				return false, fmt.Sprintf("one stretch per component: %d violations, exhaustive %d (%s)", got, want, params(inst.TraceInstance)), nil
			}
			return true, "", nil
		},
	}
}
