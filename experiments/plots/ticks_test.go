package plots

import (
	"fmt"
	"strings"
	"testing"
)

// TestCCDF: the tail of a hand-made CDF: 4 values 10, 20, 20, 40 have
// CDF points (10, .25), (20, .75), (40, 1); above 10 lie 3/4 of them,
// above 20 a quarter, above 40 none (left out: a log axis cannot show 0).
func TestCCDF(t *testing.T) {
	x, y := CCDF([]float64{10, 20, 40}, []float64{0.25, 0.75, 1})
	if len(x) != 2 || x[0] != 10 || x[1] != 20 || y[0] != 0.75 || y[1] != 0.25 {
		t.Errorf("got %v %v, want [10 20] [0.75 0.25]", x, y)
	}
	f := TailFigure("T", "turns", []string{"a"}, [][]float64{{10, 20, 40}}, [][]float64{{0.25, 0.75, 1}})
	if !f.LogY || len(f.Levels) != 3 || f.Levels[2].Name != "P99" || f.Levels[2].Y != 0.01 || f.Levels[0].Y != 0.1 {
		t.Errorf("tail figure: log %v, levels %+v", f.LogY, f.Levels)
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		v, step, top float64
		want         string
	}{
		{1250, 250, 2250, "1250"}, // not "1250.00"
		{0.5, 0.1, 1, "0.5"},
		{0.25, 0.05, 1, "0.25"},
		{0.5, 2, 6.5, "0.5"}, // the value's own decimals, though the step has none
		{131072, 20000, 262144, "131.072k"},
		{20000, 20000, 32768, "20k"},
		{700000, 100000, 1.1e6, "0.7M"},
		{2.5e6, 5e5, 3e6, "2.5M"},
		{0, 5, 10, "0"},
		{-10, 5, 10, "-10"},
	} {
		if got := labelIn(c.v, c.step, c.top); got != c.want {
			t.Errorf("labelIn(%v, %v, %v) = %q, want %q", c.v, c.step, c.top, got, c.want)
		}
	}
}

// TestTicks: a linear axis 0.2..6.5 is labelled at 0, 2, 4, 6 (step 1
// would give 7 labels, 2 gives 4 ≥ the range/5 = 1.26); a log axis from
// 0.001 to 0.8 at 1, 2, 5 times the powers of ten; one from 16384 to 32768
// (within a decade) at 20k and 30k, 2 and 3 times 10⁴.
func TestTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		log    bool
		want   string
	}{
		{0.2, 6.5, false, "2 4 6"},
		{0, 1, false, "0 0.2 0.4 0.6 0.8 1"},
		{0.001, 0.8, true, "0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.5"},
		{3000, 30000, true, "5k 10k 20k"}, // one unit along the axis
		{16384, 32768, true, "20k 30k"},
		{524287, 524289, false, "524288"}, // one capacity: one tick at it
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (Ticks{Log: c.log}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("ticks %v..%v (log %v): %q, want %q", c.lo, c.hi, c.log, strings.Join(got, " "), c.want)
		}
	}
}

// TestStyles: the first 12 series (40 in fact) differ pairwise in colour, dashes or
// marker, and any two with the same colour differ in dashes or marker (so
// greyscale keeps them apart).
func TestStyles(t *testing.T) {
	type st struct{ c, d, m string }
	seen := map[st]int{}
	for i := 0; i < 12; i++ {
		c, d, m := Style(i)
		k := st{strings.TrimSpace(fmtAny(c)), fmtAny(d), fmtAny(m)}
		if j, ok := seen[k]; ok {
			t.Errorf("series %d looks like series %d", i, j)
		}
		seen[k] = i
		seen[st{"", k.d, k.m}] = i
	}
	for i := 0; i < 12; i++ {
		for j := i + 1; j < 12; j++ {
			_, di, mi := Style(i)
			_, dj, mj := Style(j)
			if fmtAny(di) == fmtAny(dj) && fmtAny(mi) == fmtAny(mj) {
				t.Errorf("series %d and %d have the same dashes and marker", i, j)
			}
		}
	}
}

func fmtAny(v any) string { return fmt.Sprintf("%#v", v) }
