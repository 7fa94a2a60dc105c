package suite

import (
	"fmt"
	"strings"
)

// All returns every suite, in presentation order.
func All() []*Suite {
	return []*Suite{TailLatency(), OptimalityGap(), BirthDeath(), BlockPolicies(), Recompute()}
}

// Lookup returns the suite called name, or an error listing the suites.
func Lookup(name string) (*Suite, error) {
	var names []string
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("unknown suite %q (want one of %s; tailbound tables --list)", name, strings.Join(names, ", "))
}
