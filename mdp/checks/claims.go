package checks

import (
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// All returns claims 4–7 of SPEC §6 at sizes s, in order.
func All(s Sizes) []claim.Claim {
	return []claim.Claim{
		Lemma1(s),
		CorollaryLRU(s),
		CorollaryTLRU(s, 1, false),
		CorollaryTLRU(s, 2, false),
		CorollaryTLRU(s, 1, true),
		CorollaryUnitPage(s),
		Theorem2("theorem2-paper", "world and belief exp(−μs) (the paper's own belief MDP), rates, prompts, B, ξ, births, turn caps and discounts random",
			s, MDPShape{World: exact.Paper, Belief: exact.Paper}),
		Theorem2("theorem2-bayes", "world and belief the exact birth–death posterior, random rates", s, MDPShape{World: exact.Bayes, Belief: exact.Bayes}),
		Theorem2("theorem2-bayes-equal-rates", "world and belief the exact posterior, one turn rate for all conversations", s,
			MDPShape{World: exact.Bayes, Belief: exact.Bayes, EqualRates: true}),
		Theorem2("theorem2-paper-belief-true-world", "ET-LRU with the paper's exp(−μs) in the true birth–death world (exact posterior), one turn rate", s,
			MDPShape{World: exact.Bayes, Belief: exact.Paper, EqualRates: true}),
		Theorem2("theorem2-forced", "forced caching under appendix C's conditions (fixed prompt length, one turn rate), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, Forced: true, FixedQ: true, EqualRates: true}),
		Theorem2("theorem2-forced-general", "forced caching outside appendix C's conditions (random prompts and rates), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, Forced: true}),
		Theorem2("theorem2-unitpage", "the unit-page case (Q = 0, no responses, one-token histories, ξ = 0), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, UnitPage: true}),
		BeliefClaim("bayes"),
		BeliefClaim("paper"),
	}
}
