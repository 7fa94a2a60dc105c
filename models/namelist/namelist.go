// Package namelist resolves the comma-separated lists of registered names
// that the policy registries (conversation level and block level) read from
// the command line.
package namelist

import (
	"fmt"
	"strings"
)

// Names returns name(e) for every entry of all, in order.
func Names[E any](all []E, name func(E) string) []string {
	n := make([]string, 0, len(all))
	for _, e := range all {
		n = append(n, name(e))
	}
	return n
}

// Select returns the entries of all named in list (comma-separated, spaces
// around names ignored, empty items skipped), in the order of list. An
// unknown name, or a list naming nothing, is an error that lists the known
// names; kind names what the entries are ("policy", "block policy").
func Select[E any](list string, all []E, name func(E) string, kind string) ([]E, error) {
	known := func() string { return strings.Join(Names(all, name), ", ") }
	var out []E
	for _, want := range strings.Split(list, ",") {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		found := false
		for _, e := range all {
			if name(e) == want {
				out = append(out, e)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown %s %q (known: %s)", kind, want, known())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s named (known: %s)", kind, known())
	}
	return out, nil
}

// ParseEach parses every item of a comma-separated list with parse, spaces
// around items ignored, and stops at the first error.
func ParseEach[T any](list string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, item := range strings.Split(list, ",") {
		v, err := parse(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
