package recompute

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	ok := DefaultOptions()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, c := range []struct {
		edit   func(*Options)
		option string
	}{
		{func(o *Options) { o.RMin, o.RMax = 0.6, 0.5 }, "r-min/r-max"},
		{func(o *Options) { o.RMax = 1.5 }, "r-min/r-max"},
		{func(o *Options) { o.Eps = 0 }, "eps"},
		{func(o *Options) { o.Eps = 1.01 }, "eps"},
		{func(o *Options) { o.GridIntervals = -1 }, "grid"},
		{func(o *Options) { o.GridIntervals = MaxGridIntervals + 1 }, "grid"},
		{func(o *Options) { o.Tol = math.Inf(1) }, "tol"},
		{func(o *Options) { o.Tol = math.NaN() }, "tol"},
	} {
		o := ok
		c.edit(&o)
		var oe *OptionError
		if err := o.Validate(); !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("%+v: %v, want an error naming %s", o, err, c.option)
		}
	}
}

func TestParseVariants(t *testing.T) {
	vs, err := ParseVariants("paper, ordered")
	if err != nil || !slices.Equal(vs, []Variant{Paper, Ordered}) {
		t.Errorf("got %v, %v", vs, err)
	}
	if _, err := ParseVariants("paper,golden"); err == nil {
		t.Error("unknown variant: no error")
	}
}
