// Issue 22 (SPEC §3b): hindsight bounds on the tail metrics the
// tail-latency paper (seed ../shared/seeds/003_d50602792df89471.txt)
// reports in its tables — the fewest SLO violations over all admissible
// schedules (lp/slo) — checked against exhaustive search, together with
// the properties the optimum must have and one conjecture about a simple
// rule that might attain it.

package proofscheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// tailClaims are the SLO-violation claims.
func tailClaims(Sizes) []claim.Claim {
	return []claim.Claim{sloIPClaim(), sloBoundsClaim(), sloMonotoneClaim(), sloTELClaim(), sloFNUClaim()}
}

// SLOInstance is a trace instance with an SLO of S uncached tokens.
type SLOInstance struct {
	*TraceInstance
	S int64 // tokens: a turn violates the SLO iff b > S
}

// Shrink shrinks the trace instance (keeping S) or S towards 0.
func (in *SLOInstance) Shrink() []claim.Instance {
	var out []claim.Instance
	for _, t := range in.TraceInstance.Shrink() {
		out = append(out, &SLOInstance{t.(*TraceInstance), in.S})
	}
	if in.S > 0 {
		out = append(out, &SLOInstance{in.TraceInstance, in.S / 2})
	}
	return out
}

// Size adds S to the trace instance's size.
func (in *SLOInstance) Size() int { return in.TraceInstance.Size() + int(max(in.S, 0)) }

// Export adds the SLO to the trace instance's export.
func (in *SLOInstance) Export() any {
	m := in.TraceInstance.Export().(map[string]any)
	m["slo_tokens"] = in.S
	return m
}

// Command is the trace piped into 'tailbound solve --objective slo'.
func (in *SLOInstance) Command() string {
	return pipeTrace(in.records(), "solve", fmt.Sprintf("%s --objective slo --slo-tokens %d --solver gonum", paramFlags(in.Params), in.S))
}

// drawSLO draws a tiny instance (B in blocks, optional or forced caching
// unless optionalOnly) and an SLO: a return turn's load minus 0..min(H, C)
// tokens (where capacity decides), or now and then any value in [−1, max D].
func drawSLO(r *rand.Rand, blocks []int64, optionalOnly bool) *SLOInstance {
	forced := !optionalOnly && r.IntN(2) == 1
	t := RandomInstance(r, 7, 3, 4, blocks[r.IntN(len(blocks))], false, forced)
	t.Xi = 0
	in, err := lpInstance(t)
	if err != nil {
		panic(err) // RandomInstance draws valid instances
	}
	var maxD int64
	var returns []int
	for k := range in.Turns {
		maxD = max(maxD, in.Load(k))
		if in.Prev[k] >= 0 {
			returns = append(returns, k)
		}
	}
	if len(returns) == 0 || r.IntN(4) == 0 {
		return &SLOInstance{t, r.Int64N(maxD+2) - 1}
	}
	k := returns[r.IntN(len(returns))]
	return &SLOInstance{t, in.Load(k) - 1 - r.Int64N(min(in.History[k], in.Capacity)+1)}
}

// minViolations is the exhaustive optimum: K − the most turns meeting S.
func minViolations(in *SLOInstance) int {
	return len(in.Turns) - exhaustive.MaxMeeting(in.Trace(), in.Params, in.S)
}

// sloSolve runs lp/slo on inst.
func sloSolve(inst *SLOInstance, opt slo.Options) (*slo.Result, error) {
	in, err := lpInstance(inst.TraceInstance)
	if err != nil {
		return nil, err
	}
	return slo.Violations(context.Background(), in, inst.S, opt)
}

func sloIPClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-ip",
		Statement: "Issue 22: the 0/1 program of the fewest SLO violations (lp/slo, gonum branch and bound, no LP or heuristic help) has the exhaustive optimum, B = 1–4, optional and forced caching, first turns counted",
		Generate:  func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1, 2, 3, 4}, false) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			res, err := sloSolve(inst, slo.Options{Backend: gonumlp.Backend{}, NoLP: true, NoImprove: true})
			if err != nil {
				return false, "", err
			}
			want := minViolations(inst)
			if res.Proven && res.Upper == want {
				return true, "", nil
			}
			return false, fmt.Sprintf("integer program [%d, %d] (proven %v), exhaustive %d (%s)", res.Lower, res.Upper, res.Proven, want, params(inst.TraceInstance)), nil
		},
	}
}

func sloBoundsClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-bounds",
		Statement: "Issue 22: the flow LP bound and the heuristic schedule of lp/slo bracket the fewest SLO violations (lower ≤ optimum ≤ upper, the schedule admissible with upper violations), B = 1–4, optional and forced caching",
		Generate:  func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1, 2, 3, 4}, false) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			res, err := sloSolve(inst, slo.Options{})
			if err != nil {
				return false, "", err // Violations checks the schedule itself
			}
			want := minViolations(inst)
			if res.Lower <= want && want <= res.Upper {
				return true, "", nil
			}
			return false, fmt.Sprintf("bounds [%d, %d] miss the exhaustive optimum %d (%s)", res.Lower, res.Upper, want, params(inst.TraceInstance)), nil
		},
	}
}

func sloMonotoneClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-monotone",
		Statement: "Issue 22: the fewest SLO violations never increase with one more block of capacity or one more token of SLO (exhaustive optimum), B = 1–4, optional and forced caching",
		Generate:  func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1, 2, 3, 4}, false) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			base := minViolations(inst)
			more := *inst.TraceInstance
			more.Capacity += more.BlockSize
			byC := minViolations(&SLOInstance{&more, inst.S})
			byS := minViolations(&SLOInstance{inst.TraceInstance, inst.S + 1})
			if byC <= base && byS <= base {
				return true, "", nil
			}
			return false, fmt.Sprintf("%d violations; %d with C + B, %d with s + 1 (%s)", base, byC, byS, params(inst.TraceInstance)), nil
		},
	}
}

func sloTELClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-tel",
		Statement: "Issue 22: a TEL-optimal schedule (flow, ξ = s) has at least as many SLO violations as the SLO optimum (lp/slo with gonum, proven), B = 1–4, optional and forced caching",
		Generate:  func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1, 2, 3, 4}, false) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			t := *inst.TraceInstance
			t.Xi = float64(inst.S)
			in, err := lpInstance(&t)
			if err != nil {
				return false, "", err
			}
			tel, err := lp.SolveFlow(context.Background(), in, lp.Options{})
			if err != nil {
				return false, "", err
			}
			res, err := sloSolve(inst, slo.Options{Backend: gonumlp.Backend{}})
			if err != nil {
				return false, "", err
			}
			if !res.Proven {
				return false, "", fmt.Errorf("SLO optimum not proven on a tiny instance: [%d, %d]", res.Lower, res.Upper)
			}
			v := slo.Count(in, tel.Schedule, inst.S)
			if v >= res.Upper {
				return true, "", nil
			}
			return false, fmt.Sprintf("TEL-optimal schedule has %d violations, below the SLO optimum %d (%s)", v, res.Upper, params(inst.TraceInstance)), nil
		},
	}
}

// sloFNUClaim is a conjecture, stated so that its failures are the
// answer: at B = 1 under optional caching, the SLO-aware furthest-next-use
// rule attains the fewest violations.
func sloFNUClaim() claim.Claim {
	return claim.Claim{
		Name: "slo-fnu-b1",
		Statement: "Issue 22 (conjecture): at B = 1, optional caching, the SLO-aware furthest-next-use rule (after each turn keep exactly what each conversation's next turn needs to meet s, if it can; over capacity, drop whole conversations, furthest next turn first) has the fewest SLO violations " +
			"(failures show where it does not)",
		Generate: func(r *rand.Rand) claim.Instance { return drawSLO(r, []int64{1}, true) },
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			got := slo.Count(in, fnuSchedule(in, inst.S), inst.S)
			want := minViolations(inst)
			if got == want {
				return true, "", nil
			}
			return false, fmt.Sprintf("furthest-next-use rule %d violations, optimum %d", got, want), nil
		},
	}
}

// fnuSchedule is the SLO-aware furthest-next-use rule's schedule (cached
// tokens at each turn's arrival), optional caching.
func fnuSchedule(in *lp.Instance, s int64) []int64 {
	K := in.K()
	hold := map[int]int64{} // conversation → tokens held
	x := make([]int64, K)
	for k := 0; k < K; k++ {
		c := in.Turns[k].Conv
		x[k] = hold[c]
		delete(hold, c)
		if n := in.Next[k]; n >= 0 {
			need := max(in.Load(n)-s, 0)
			blocks := (need + in.BlockSize - 1) / in.BlockSize
			if need > 0 && blocks <= in.MaxKeep(k) {
				hold[c] = blocks * in.BlockSize
			}
		}
		var total int64
		var convs []int
		for v, a := range hold {
			total += a
			convs = append(convs, v)
		}
		// furthest next turn first: the conversation whose next turn is
		// latest (each held conversation has one)
		next := func(v int) int {
			last := k
			for j := k; j >= 0; j-- {
				if in.Turns[j].Conv == v {
					last = j
					break
				}
			}
			return in.Next[last]
		}
		slices.SortFunc(convs, func(a, b int) int { return next(b) - next(a) })
		for _, v := range convs {
			if total <= in.Capacity {
				break
			}
			total -= hold[v]
			delete(hold, v)
		}
	}
	return x
}
