package proofscheck

import (
	"fmt"
	"strings"
)

// All returns every claim, in the order of SPEC §6.
func All() []Claim {
	return []Claim{
		theorem1("theorem1", "B = 1 token, whole-token ξ, optional caching", 1, false, false),
		theorem1("theorem1-forced", "B = 1 token, whole-token ξ, forced caching", 1, false, true),
		theorem1("theorem1-fractional-xi", "B = 1 token, ξ = integer + 0.5 tokens, optional caching", 1, true, false),
		theorem1("theorem1-blocks", "B = 2 tokens, whole-token ξ, optional caching", 2, false, false),
		theorem1("theorem1-blocks-forced", "B = 3 tokens, whole-token ξ, forced caching", 3, false, true),
		figure1(),
	}
}

// Select returns the claims named (all of them for no names); a name
// matches a claim or, as a prefix followed by "-", a family of claims.
func Select(names []string) ([]Claim, error) {
	all := All()
	if len(names) == 0 {
		return all, nil
	}
	var out []Claim
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
