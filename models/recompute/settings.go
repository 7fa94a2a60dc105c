package recompute

import (
	"errors"
	"fmt"

	"github.com/tailbound/tailbound/internal/option"
)

// SearchSettings are the search and grid settings as the command line
// gives them. Each field holds the value of the flag named in its comment.
type SearchSettings struct {
	// RMin and RMax bound the recompute ratio, fractions of tokens
	// (--r-min, --r-max).
	RMin, RMax float64
	// Eps is the golden-section tolerance on the bracket width, a
	// fraction of tokens (--eps).
	Eps float64
	// Tol is the noise tolerance, a fraction of the least TTFT (--tol).
	Tol float64
	// Grid is the number of intervals of the confirming grid scan, 0 for
	// none (--grid).
	Grid int
	// Variants are search variant names, comma-separated (--variant).
	Variants string
}

// Resolve returns the options (their Variant the first of the list) and the
// variants. Errors name the flag at fault.
func (s SearchSettings) Resolve() (Options, []Variant, error) {
	o := Options{RMin: s.RMin, RMax: s.RMax, Eps: s.Eps, GridIntervals: s.Grid, Tol: s.Tol}
	var oe *OptionError
	if err := o.Validate(); errors.As(err, &oe) {
		if oe.Option == "r-min/r-max" {
			// Two flags: the text the command has always printed.
			return o, nil, fmt.Errorf("flags --r-min/--r-max: %w", oe.Err)
		}
		return o, nil, option.Wrap(oe.Option, oe.Err)
	}
	vs, err := ParseVariants(s.Variants)
	if err != nil {
		return o, nil, option.Wrap("variant", err)
	}
	o.Variant = vs[0]
	return o, vs, nil
}
