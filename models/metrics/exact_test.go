package metrics

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/latency"
)

// TestExactEqualsAdd: turns counted in integers (Exact), split at random
// over several Exacts and merged in any order, then handed to an empty
// accumulator (SetExact, the uncached counts by AddLaterCount), give the
// summary of the same turns added one by one with Add, bit for bit — under
// thresholds ξ that are integers (negative too) or dyadic fractions, and
// loads up to 2^40 tokens, while their costs (Cost) sum to at most
// ExactLimit.
func TestExactEqualsAdd(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		xi := rapid.SampledFrom([]float64{0, 1, 30, 1900, -7, 0.5, 12.25, -3.75, 1900.125, math.Ldexp(3, -20)}).Draw(rt, "xi")
		m := latency.Model{AlphaMs: rapid.SampledFrom([]float64{0.1, 1, 0.037}).Draw(rt, "alpha"), BetaMs: 7}
		slo := rapid.Float64Range(0, 100).Draw(rt, "slo ms")
		terms, ok := NewTerms(xi, m, slo)
		if !ok {
			rt.Fatalf("ξ = %v: no exact terms", xi)
		}
		all, got := New(xi, m, slo), New(xi, m, slo)
		parts := make([]Exact, rapid.IntRange(1, 4).Draw(rt, "parts"))
		n := rapid.IntRange(0, 300).Draw(rt, "turns")
		var cost int64
		for i := 0; i < n; i++ {
			d := rapid.OneOf(rapid.Int64Range(0, 300), rapid.Int64Range(0, 1<<40)).Draw(rt, "d")
			if cost+terms.Cost(d) > ExactLimit {
				break // the caller adds turns one by one from here on
			}
			cost += terms.Cost(d)
			h := rapid.Int64Range(0, d).Draw(rt, "h")
			x := rapid.Int64Range(0, h).Draw(rt, "x")
			all.Add(h, x, d)
			got.AddLaterCount(d-x, 1)
			p := &parts[rapid.IntRange(0, len(parts)-1).Draw(rt, "part")]
			p.AddLoad(h, d)
			terms.Add(p, x, d-x)
		}
		var sum Exact
		for _, i := range rapid.Permutation([]int{0, 1, 2, 3}[:len(parts)]).Draw(rt, "merge order") {
			sum.Merge(parts[i])
		}
		got.SetExact(terms, sum)
		if a, b := fmt.Sprintf("%+v", all.Summary()), fmt.Sprintf("%+v", got.Summary()); a != b {
			rt.Fatalf("summaries differ:\nAdd      %s\nSetExact %s", a, b)
		}
	})
}

// TestNewTerms: ξ is carried exactly when it is an integer or a dyadic
// fraction (k the fraction's bits), and refused when it is not finite or
// its binary fraction leaves no room for sums (0.1, 1/3). Cost is
// d·2^k + |ξ|·2^k, and more than ExactLimit when that exceeds it.
func TestNewTerms(t *testing.T) {
	m := latency.Default()
	for _, c := range []struct {
		xi    float64
		ok    bool
		scale uint
	}{
		{0, true, 0}, {1900, true, 0}, {-12, true, 0}, {0.5, true, 1}, {-3.75, true, 2}, {1900.125, true, 3},
		{math.Ldexp(1, -40), true, 40}, {0.1, false, 0}, {1.0 / 3, false, 0}, {math.NaN(), false, 0}, {math.Inf(1), false, 0},
		{math.Ldexp(1, 60), false, 0},
	} {
		terms, ok := NewTerms(c.xi, m, 200)
		if ok != c.ok || (ok && terms.scale != c.scale) {
			t.Errorf("ξ = %v: ok %v scale %d, want %v %d", c.xi, ok, terms.scale, c.ok, c.scale)
		}
	}
	terms, _ := NewTerms(-3.75, m, 200) // X = −15, k = 2
	for _, c := range []struct{ d, want int64 }{
		{0, 15}, {10, 55}, {(ExactLimit - 15) / 4, (ExactLimit-15)/4*4 + 15}, {(ExactLimit-15)/4 + 1, ExactLimit + 1}, {-1, ExactLimit + 1},
	} {
		if got := terms.Cost(c.d); got != c.want {
			t.Errorf("Cost(%d) = %d, want %d", c.d, got, c.want)
		}
	}
	if e := terms.Excess(2); e != 23 { // (2 + 3.75)·4
		t.Errorf("Excess(2) = %d, want 23", e)
	}
}
