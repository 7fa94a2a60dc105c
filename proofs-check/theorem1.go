package proofscheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// telTol is the tolerance on TEL comparisons, tokens: TELs here sum a few
// dozen integers and halves, which float64 adds exactly; the tolerance only
// guards against a future change of the summation order.
const telTol = 1e-9

// PolicyTEL replays inst under the policy built by f and returns its TEL in
// tokens.
func PolicyTEL(inst *TraceInstance, f policy.Factory) (float64, error) {
	tr := inst.Trace()
	p, err := f(policy.Config{Params: instance.Params{Capacity: inst.Capacity, BlockSize: inst.Block, Xi: inst.Xi, Forced: inst.Forced},
		Future: trace.NewHindsight(tr.Turns, tr.Conversations())})
	if err != nil {
		return 0, err
	}
	res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "p", Policy: p}},
		replay.Options{Params: instance.Params{Capacity: inst.Capacity, BlockSize: inst.Block, Xi: inst.Xi, Forced: inst.Forced}, Model: latency.Default(),
			SLOMs: latency.DefaultSLOMs})
	if err != nil {
		return 0, err
	}
	return res[0].Summary.TELTokens, nil
}

// theorem1 is Theorem 1 on one family of instances: Tail-Optimized Belady's
// TEL equals the exhaustive optimum.
func theorem1(name, scope string, block int64, fractional, forced bool) claim.Claim {
	return claim.Claim{
		Name: name,
		Statement: "Theorem 1 (tail-latency paper): Tail-Optimized Belady attains the hindsight TEL optimum; " + scope +
			"; checked against exhaustive search over all schedules",
		Generate: func(r *rand.Rand) claim.Instance {
			return RandomInstance(r, 6, 3, 4, block, fractional, forced)
		},
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*TraceInstance)
			got, err := PolicyTEL(inst, belady.NewTailOptimized)
			if err != nil {
				return false, "", err
			}
			opt := Exhaustive(inst.Trace(), inst.Capacity, inst.Block, inst.Xi, inst.Forced)
			if got < opt-telTol {
				return false, "", fmt.Errorf("to-belady TEL %v below the exhaustive optimum %v: a bug in one of them", got, opt)
			}
			if math.Abs(got-opt) <= telTol {
				return true, "", nil
			}
			return false, fmt.Sprintf("to-belady TEL %v tokens > optimum %v tokens", got, opt), nil
		},
	}
}
