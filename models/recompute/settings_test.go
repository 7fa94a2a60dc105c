package recompute

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

func TestSearchSettingsResolve(t *testing.T) {
	s := SearchSettings{RMin: 0.1, RMax: 0.9, Eps: 0.01, Tol: 0.05, Grid: 8, Variants: "ordered, paper"}
	o, vs, err := s.Resolve()
	want := Options{RMin: 0.1, RMax: 0.9, Eps: 0.01, GridIntervals: 8, Tol: 0.05, Variant: Ordered}
	if err != nil || o != want || !slices.Equal(vs, []Variant{Ordered, Paper}) {
		t.Errorf("got %+v %v %v, want %+v [ordered paper]", o, vs, err, want)
	}
	for _, c := range []struct {
		edit func(*SearchSettings)
		flag string
	}{
		{func(s *SearchSettings) { s.Eps = 0 }, "eps"},
		{func(s *SearchSettings) { s.Grid = -1 }, "grid"},
		{func(s *SearchSettings) { s.Tol = math.NaN() }, "tol"},
		{func(s *SearchSettings) { s.Variants = "golden" }, "variant"},
		{func(s *SearchSettings) { s.Variants = "" }, "variant"},
	} {
		b := s
		c.edit(&b)
		var oe *option.Error
		if _, _, err := b.Resolve(); !errors.As(err, &oe) || !slices.Equal(oe.Flags, []string{c.flag}) {
			t.Errorf("%+v: %v, want an error naming --%s", b, err, c.flag)
		}
	}
	b := s
	b.RMin = 0.95
	if _, _, err := b.Resolve(); err == nil || !strings.HasPrefix(err.Error(), "flags --r-min/--r-max: ") {
		t.Errorf("r_min > r_max: %v", err)
	}
}
