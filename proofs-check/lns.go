// Issue 32 (deliverable 2): the large-neighbourhood search that improves
// lp/slo's schedules never makes one worse, checked against its start and
// against exhaustive search.

package proofscheck

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// lnsClaims are the claims on the search (registered last, so that no
// earlier claim's random stream moves).
func lnsClaims(Sizes) []claim.Claim { return []claim.Claim{sloLNSClaim()} }

// sloLNSClaim: the large-neighbourhood search of lp/slo (issue 32) never
// returns a schedule with more violations than its start, and never one
// with fewer than the exhaustive optimum.
func sloLNSClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-lns",
		Statement: "Issue 32: the large-neighbourhood search of lp/slo never returns more SLO violations than its start (the LP's rounding alone, or nothing carried) nor fewer than the exhaustive optimum, and its schedule is admissible, B = 1–4, optional and forced caching",
		Generate:  func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1, 2, 3, 4}, false) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			ctx := context.Background()
			rounding, err := slo.Violations(ctx, in, inst.S, slo.Options{NoImprove: true})
			if err != nil {
				return false, "", err
			}
			want := minViolations(inst)
			for _, start := range []struct {
				name string
				x    []int64
			}{{"the LP's rounding", rounding.Schedule}, {"nothing carried", make([]int64, in.K())}} {
				imp, err := slo.Improve(ctx, in, inst.S, start.x, 100, 1)
				if err != nil {
					return false, "", err
				}
				if err := in.CheckSchedule(imp.Schedule); err != nil {
					return false, fmt.Sprintf("from %s: schedule not admissible: %v (%s)", start.name, err, params(inst.TraceInstance)), nil
				}
				got := slo.Count(in, imp.Schedule, inst.S)
				limit := imp.Start
				if start.name != "nothing carried" {
					limit = slo.Count(in, start.x, inst.S)
				}
				if got > limit || got < want {
					return false, fmt.Sprintf("from %s: %d violations, start %d, exhaustive optimum %d (%s)", start.name, got, limit, want, params(inst.TraceInstance)), nil
				}
			}
			return true, "", nil
		},
	}
}
