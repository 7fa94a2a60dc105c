// Issue 32 (SPEC §3b): the valid inequalities lp/slo adds to the LP
// relaxation of the fewest SLO violations, and the pure-Go branch and
// bound built on them, checked against exhaustive search over every
// schedule — a cut that removed every optimum, or a search that proved a
// wrong optimum, would make the lower bound on violations too high.

package proofscheck

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// sloCutClaims are the claims on lp/slo's cuts and branch and bound.
func sloCutClaims(Sizes) []claim.Claim {
	return []claim.Claim{sloCutClaim("cardinality"), sloCutClaim("cover"), sloDominanceClaim(), sloSearchClaim(), sloDecompClaim(), sloStretchClaim()}
}

// drawContestedSLO draws a tiny instance (2–6 turns over up to 3
// conversations, prompts 1–3 and responses 0–3 tokens, B = 1–4, optional
// or forced caching) and, three times in four, a capacity (1–6 blocks) and
// an SLO (tokens) at which some step binds — two or more pairs compete for
// it — drawing the trace again (up to 8 times) when it has none; else
// drawSLO's own SLO. Without competition there is no cut to check, and
// drawSLO's instances rarely have any.
func drawContestedSLO(r *rand.Rand) claim.Instance {
	blocks := []int64{1, 2, 3, 4}
	draw := func() *SLOInstance {
		forced := r.IntN(2) == 1
		t := RandomInstance(r, 6, 3, 3, blocks[r.IntN(len(blocks))], false, forced)
		t.Xi = 0
		return &SLOInstance{t, 0}
	}
	inst := draw()
	if r.IntN(4) > 0 {
		for try := 0; try < 8; try++ {
			type setting struct{ c, s int64 }
			var binding []setting
			var total int64
			for _, t := range inst.Turns {
				total += t.Prompt + t.Response
			}
			for k := int64(1); k <= 6; k++ {
				t := *inst.TraceInstance
				t.Capacity = k * t.BlockSize
				in, err := lpInstance(&t)
				if err != nil {
					continue
				}
				for s := int64(0); s <= total; s++ {
					if cs, err := slo.EnumerateCuts(in, s, 16); err == nil && len(cs.Cuts) > 0 {
						binding = append(binding, setting{t.Capacity, s})
					}
				}
			}
			if len(binding) > 0 {
				b := binding[r.IntN(len(binding))]
				inst.Capacity, inst.S = b.c, b.s
				return inst
			}
			inst = draw()
		}
	}
	in, err := lpInstance(inst.TraceInstance)
	if err != nil {
		panic(err) // RandomInstance draws valid instances
	}
	var maxD int64
	for k := range in.Turns {
		maxD = max(maxD, in.Load(k))
	}
	inst.S = r.Int64N(maxD+2) - 1
	return inst
}

// sloCutClaim checks one cut family: every inequality of the family holds
// at every admissible schedule (exhaustive.AllUncached) in which the free
// turns meet the SLO, and the best of those schedules meets it on as many
// turns as the exhaustive optimum — so the cuts never remove an optimum.
func sloCutClaim(family string) claim.Claim {
	what := map[string]string{
		"cardinality": "at most k_t of the pairs spanning a step t meet the SLO, k_t the most of their smallest demands that fit in the step's capacity",
		"cover":       "for every minimal cover C of a step (pairs spanning it whose demands exceed its capacity), at most |C| − 1 of C and the pairs spanning the step with a demand at least C's largest meet the SLO (extended cover)",
	}[family]
	return claim.Claim{
		Name: "slo-cut-" + family,
		Statement: "Issue 32: lp/slo's " + family + " inequalities (" + what + ") hold at every admissible schedule that serves the free pairs, " +
			"and such a schedule is optimal (exhaustive search over all schedules), B = 1–4, optional and forced caching",
		Generate: drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			cs, err := slo.EnumerateCuts(in, inst.S, 16)
			if err != nil {
				return false, "", err
			}
			var cuts []slo.Cut
			for _, c := range cs.Cuts {
				if c.Family == family {
					cuts = append(cuts, c)
				}
			}
			best, broken := -1, ""
			exhaustive.AllUncached(inst.Trace(), inst.Params, func(b []int64) {
				if broken != "" {
					return
				}
				if !allMeet(b, cs.Free, inst.S) {
					return
				}
				best = max(best, meeting(b, inst.S))
				for _, c := range cuts {
					got := 0
					for _, n := range c.Turns {
						if b[n] <= inst.S {
							got++
						}
					}
					if got > c.Max {
						broken = fmt.Sprintf("%s cut at step %d: at most %d of turns %v meet the SLO, but the schedule with uncached tokens %v meets %d", family, c.Step, c.Max, c.Turns, b, got)
						return
					}
				}
			})
			if broken != "" {
				return false, broken + " (" + params(inst.TraceInstance) + ")", nil
			}
			if want := exhaustive.MaxMeeting(inst.Trace(), inst.Params, inst.S); best != want {
				return false, fmt.Sprintf("the best schedule serving the free pairs meets the SLO on %d turns, the optimum on %d (%s)", best, want, params(inst.TraceInstance)), nil
			}
			return true, "", nil
		},
	}
}

// sloDominanceClaim checks the dominance order of lp/slo's wide windows
// (pair a dominates pair b when d_a ≤ d_b and a's span lies inside b's,
// ties by index): among the admissible schedules in which the free turns
// meet the SLO and which meet it at a whenever at b, for every relation,
// the best meets it on as many turns as the exhaustive optimum — so
// imposing them never removes every optimum.
func sloDominanceClaim() claim.Claim {
	return claim.Claim{
		Name: "slo-dominance",
		Statement: "Issue 32: imposing lp/slo's dominance relations (a pair of no larger demand whose span lies inside another's is served whenever that one is) keeps an optimal schedule " +
			"(exhaustive search over all schedules), B = 1–4, optional and forced caching",
		Generate: drawDominatedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			free, rel := slo.EnumerateDominance(in, inst.S)
			best := -1
			exhaustive.AllUncached(inst.Trace(), inst.Params, func(b []int64) {
				if !allMeet(b, free, inst.S) {
					return
				}
				for _, r := range rel {
					if b[r.B] <= inst.S && b[r.A] > inst.S {
						return
					}
				}
				best = max(best, meeting(b, inst.S))
			})
			if want := exhaustive.MaxMeeting(inst.Trace(), inst.Params, inst.S); best != want {
				return false, fmt.Sprintf("the best schedule respecting %d dominance relations %v meets the SLO on %d turns, the optimum on %d (%s)", len(rel), rel, best, want, params(inst.TraceInstance)), nil
			}
			return true, "", nil
		},
	}
}

// drawDominatedSLO draws drawContestedSLO's instances until one has a
// dominance relation (up to 16 draws; about one in eight has one), so that
// slo-dominance checks relations rather than instances without any.
func drawDominatedSLO(r *rand.Rand) claim.Instance {
	var inst claim.Instance
	for try := 0; try < 16; try++ {
		inst = drawContestedSLO(r)
		s := inst.(*SLOInstance)
		in, err := lpInstance(s.TraceInstance)
		if err != nil {
			panic(err) // RandomInstance draws valid instances
		}
		if _, rel := slo.EnumerateDominance(in, s.S); len(rel) > 0 {
			break
		}
	}
	return inst
}

// sloSearchClaim checks that the pure-Go branch and bound proves every
// open component and its optimum is the exhaustive one.
func sloSearchClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-search",
		Statement: "Issue 32: lp/slo's pure-Go branch and bound (Lagrangian flow bound with cuts) proves every open component, and the fewest SLO violations it proves are the exhaustive optimum, B = 1–4, optional and forced caching",
		Generate:  drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			res, err := sloSolve(inst, slo.Options{Backend: gonumlp.Backend{}})
			if err != nil {
				return false, "", err // Violations replays and checks the schedule itself
			}
			want := minViolations(inst)
			if res.Proven && res.Upper == want && res.ProvenBySearch == res.ProvenByIP {
				return true, "", nil
			}
			return false, fmt.Sprintf("[%d, %d] proven %v (%d of %d components by the search), exhaustive %d (%s)", res.Lower, res.Upper, res.Proven, res.ProvenBySearch, res.ProvenByIP, want, params(inst.TraceInstance)), nil
		},
	}
}

// sloDecompClaim checks the Lagrangian decomposition into windows of rows
// (lp/slo/decomp.go): its lower bound on violations is never above the
// exhaustive fewest, and never below the LP relaxation's lower bound.
func sloDecompClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-decomp-valid",
		Statement: "Issue 32: lp/slo's Lagrangian decomposition into windows of one or two steps' rows, each window's 0/1 program solved exactly, bounds the fewest SLO violations from below: at most the exhaustive optimum and at least the LP relaxation's bound, B = 1–4, optional and forced caching",
		Generate:  drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			inst := i.(*SLOInstance)
			in, err := lpInstance(inst.TraceInstance)
			if err != nil {
				return false, "", err
			}
			got, err := slo.DecompBound(context.Background(), in, inst.S, 30)
			if err != nil {
				return false, "", err
			}
			lpRes, err := sloSolve(inst, slo.Options{NoImprove: true, NoLNS: true})
			if err != nil {
				return false, "", err
			}
			want := minViolations(inst)
			if got <= want && got >= lpRes.Lower {
				return true, "", nil
			}
			return false, fmt.Sprintf("decomposition bound %d, LP bound %d, exhaustive %d (%s)", got, lpRes.Lower, want, params(inst.TraceInstance)), nil
		},
	}
}

// sloStretchClaim checks the Lagrangian decomposition into stretches of
// consecutive rows (lp/slo/stretch.go), each stretch's 0/1 program solved
// exactly: its lower bound on violations is never above the exhaustive
// fewest, for stretches of one to four rows and the shares after a few
// steps from the LP's split, by either rule (the bundle method and the
// deflected subgradient), in one layer and in two layers offset by half a
// span, and with stretches halved when a node budget of one node stops
// their branch and bound.
func sloStretchClaim() claim.Claim {
	return claim.Claim{
		Name:      "slo-stretch-valid",
		Statement: "Issue 32: lp/slo's Lagrangian decomposition into stretches of consecutive steps' rows (1–4 rows each; one layer, or two offset by half a span; halved when a node budget stops them), each stretch's 0/1 program solved exactly, with the shares moved by the bundle method or the deflected subgradient, bounds the fewest SLO violations from below: at most the exhaustive optimum, B = 1–4, optional and forced caching",
		Generate:  drawContestedSLO,
		Check: func(i claim.Instance) (bool, string, error) {
			return stretchBoundsHold(i.(*SLOInstance), 4, "stretches", func(span int) []slo.StretchOptions {
				return []slo.StretchOptions{
					{Span: span, Iterations: 20, Rule: slo.StretchBundle},
					{Span: span, Iterations: 20, Rule: slo.StretchSubgradient},
					{Span: span, Iterations: 20, Layers: 2},
					{Span: span, Iterations: 20, Nodes: 1, MinSpan: 1},
				}
			})
		},
	}
}

// stretchBoundsHold checks that lp/slo's stretch bound, for spans 1 …
// maxSpan and each of the options opts gives for a span, is never above
// the exhaustive fewest violations of inst; what names the options in a
// failure's message.
func stretchBoundsHold(inst *SLOInstance, maxSpan int, what string, opts func(span int) []slo.StretchOptions) (bool, string, error) {
	in, err := lpInstance(inst.TraceInstance)
	if err != nil {
		return false, "", err
	}
	want := minViolations(inst)
	for span := 1; span <= maxSpan; span++ {
		for _, o := range opts(span) {
			got, err := slo.StretchBoundWith(context.Background(), in, inst.S, o)
			if err != nil {
				return false, "", err
			}
			if got > want {
				return false, fmt.Sprintf("%s %+v: bound %d, exhaustive %d (%s)", what, o, got, want, params(inst.TraceInstance)), nil
			}
		}
	}
	return true, "", nil
}

// allMeet reports whether every turn of turns has at most s uncached
// tokens in b (tokens per turn).
func allMeet(b []int64, turns []int, s int64) bool {
	for _, n := range turns {
		if b[n] > s {
			return false
		}
	}
	return true
}

// meeting is the number of turns with at most s uncached tokens in b.
func meeting(b []int64, s int64) int {
	n := 0
	for _, v := range b {
		if v <= s {
			n++
		}
	}
	return n
}
