package proofscheck

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/mdp/checks"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// All returns every claim that runs by default, in the order of SPEC §6:
// Theorem 1 (1), the formulations (2), their relaxations (3), the
// belief-MDP claims of mdp/checks at their default sizes (4–7), the first
// figure (8) and the flow solver (10). Claim 9 measures this machine, so
// its results are not reproducible from the seed: it runs only when named
// (see OnRequest).
func All() []claim.Claim {
	out := []claim.Claim{
		theorem1("theorem1", "B = 1 token, whole-token ξ, optional caching", 1, false, false),
		theorem1("theorem1-forced", "B = 1 token, whole-token ξ, forced caching", 1, false, true),
		theorem1("theorem1-fractional-xi", "B = 1 token, ξ = integer + 0.5 tokens, optional caching", 1, true, false),
		theorem1("theorem1-blocks", "B = 2 tokens, whole-token ξ, optional caching", 2, false, false),
		theorem1("theorem1-blocks-forced", "B = 3 tokens, whole-token ξ, forced caching", 3, false, true),
	}
	for _, f := range lp.Formulations() {
		out = append(out, formulationClaim(f))
	}
	for _, f := range lp.Formulations() {
		out = append(out, relaxationClaim(f, "b1", []int64{1}), relaxationClaim(f, "blocks", []int64{2, 3}))
	}
	out = append(out, checks.All(checks.DefaultSizes())...)
	return append(out, figure1(), flowClaim(), flowLPClaim())
}

// OnRequest returns the claims that run only when named: claim 9, the
// roofline optimum against live measurements on this machine.
func OnRequest() []claim.Claim { return []claim.Claim{rooflineClaim()} }

// Select returns the claims named (all of them for no names); a name
// matches a claim or, as a prefix followed by "-", a family of claims.
func Select(names []string) ([]claim.Claim, error) {
	all := All()
	if len(names) == 0 {
		return all, nil
	}
	all = append(all, OnRequest()...)
	var out []claim.Claim
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n || strings.HasPrefix(c.Name, n+"-") {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("unknown claim %q (known: %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}
