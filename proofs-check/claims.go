package proofscheck

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// Family returns the claims of one claim family (the claims whose names
// share a prefix, e.g. every "theorem1-*" scope), drawing random instances
// no larger than s allows where the family is sized by it. Each family is
// one file of this package that names its source.
type Family func(s Sizes) []claim.Claim

// defaultFamilies registers every claim family that 'tailbound check' runs
// by default, one line each, in the order of SPEC §6. A claim's random
// stream depends only on the seed and its name (claim.Stream), so a family
// may go anywhere in the list.
func defaultFamilies() []Family {
	return []Family{
		theorem1Claims,        // 1: theorem1.go
		formulationClaims,     // 2: formulation.go
		relaxationClaims,      // 3: relaxation.go
		lemma1Claims,          // 4: lemma1.go
		corollaryClaims,       // 5: corollary.go
		theorem2Claims,        // 6: theorem2.go
		beliefClaims,          // 7: belief.go
		figure1Claims,         // 8: figure1.go
		flowClaims,            // 10: flow.go
		tailClaims,            // 12: tailbounds.go (issue 22, SPEC §3b)
		blockTailClaims,       // 11: blocktail.go (issue 23, SPEC §8)
		sloCutClaims,          // 12: slocuts.go (issue 32, SPEC §3b)
		lnsClaims,             // 13: lns.go (issue 32)
		sloStretchLayerClaims, // 14: slostretch.go (issue 32)
	}
}

// onRequestFamilies registers the claim families that run only when
// named: their results depend on this machine, not on the seed.
func onRequestFamilies() []Family {
	return []Family{
		rooflineClaims, // 9: roofline.go
	}
}

// gather concatenates the claims of families at sizes s.
func gather(families []Family, s Sizes) []claim.Claim {
	var out []claim.Claim
	for _, f := range families {
		out = append(out, f(s)...)
	}
	return out
}

// All returns every claim that runs by default, at the default sizes, in
// the order of SPEC §6: Theorem 1 (1), the formulations (2), their
// relaxations (3), the belief-MDP claims (4–7), the first figure (8) and
// the flow solver (10). Claim 9 measures this machine, so its results are
// not reproducible from the seed: it runs only when named (see OnRequest).
func All() []claim.Claim { return gather(defaultFamilies(), DefaultSizes()) }

// OnRequest returns the claims that run only when named: claim 9, the
// roofline optimum against live measurements on this machine.
func OnRequest() []claim.Claim { return gather(onRequestFamilies(), DefaultSizes()) }

// Select returns the claims named (all of them for no names), each once
// and in the registration order however they were named; a name matches a
// claim or, as a prefix followed by "-", a family of claims.
func Select(names []string) ([]claim.Claim, error) {
	all := All()
	if len(names) == 0 {
		return all, nil
	}
	all = append(all, OnRequest()...)
	chosen := make([]bool, len(all))
	for _, n := range names {
		found := false
		for i, c := range all {
			if c.Name == n || strings.HasPrefix(c.Name, n+"-") {
				chosen[i] = true
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
	var out []claim.Claim
	for i, c := range all {
		if chosen[i] {
			out = append(out, c)
		}
	}
	return out, nil
}
