package objective

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/latency"
)

func TestParseString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Objective
		name string // String of the result; "" when Parse must fail
	}{
		{"tel", Objective{Kind: TEL}, "tel"},
		{" SLO ", Objective{Kind: SLO}, "slo"},
		{"p90", Objective{Kind: Percentile, Q: 90}, "p90"},
		{"P99.9", Objective{Kind: Percentile, Q: 99.9}, "p99.9"},
		{"p50", Objective{Kind: Percentile, Q: 50}, "p50"},
		{"p0.5", Objective{Kind: Percentile, Q: 0.5}, "p0.5"},
		{"p0", Objective{}, ""},
		{"p100", Objective{}, ""},
		{"p-5", Objective{}, ""},
		{"p1e1", Objective{}, ""},
		{"pNaN", Objective{}, ""},
		{"pinf", Objective{}, ""},
		{"p", Objective{}, ""},
		{"mean", Objective{}, ""},
		{"", Objective{}, ""},
	} {
		got, err := Parse(c.in)
		if c.name == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want || got.String() != c.name {
			t.Errorf("Parse(%q) = %+v (%q), %v; want %+v (%q)", c.in, got, got, err, c.want, c.name)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(String(%+v)) = %+v, %v", got, back, err)
		}
	}
}

// Rank and MaxExceeding against sorting: the Q-th nearest-rank percentile
// of random values is ≤ τ exactly when at most MaxExceeding of them exceed
// τ, for every τ among the values and around them.
func TestMaxExceedingAgainstSorting(t *testing.T) {
	for _, c := range []struct {
		n    int
		q    float64
		rank int // by hand: ⌈q·n/100⌉, at least 1
	}{
		{10, 90, 9}, {10, 95, 10}, {1, 50, 1}, {3, 50, 2}, {100, 99, 99}, {1000, 99.9, 999}, {7, 1, 1}, {20, 50, 10},
	} {
		if got := Rank(c.n, c.q); got != c.rank {
			t.Errorf("Rank(%d, %v) = %d, want %d", c.n, c.q, got, c.rank)
		}
	}
	r := rand.New(rand.NewPCG(22, 1))
	for it := 0; it < 2000; it++ {
		n := 1 + r.IntN(30)
		q := []float64{50, 90, 95, 99, 99.9, 0.1 + 99.8*r.Float64()}[r.IntN(6)]
		v := make([]int, n)
		for i := range v {
			v[i] = r.IntN(10)
		}
		s := slices.Clone(v)
		slices.Sort(s)
		// nearest rank by its definition: the smallest value with at
		// least q% of the values ≤ it.
		var p int
		for _, x := range s {
			le := 0
			for _, y := range s {
				if y <= x {
					le++
				}
			}
			if new(big.Rat).SetFrac64(int64(le)*100, 1).Cmp(new(big.Rat).Mul(exactQ(q), big.NewRat(int64(n), 1))) >= 0 {
				p = x
				break
			}
		}
		if s[Rank(n, q)-1] != p {
			t.Fatalf("n=%d q=%v %v: rank gives %d, definition %d", n, q, s, s[Rank(n, q)-1], p)
		}
		for tau := -1; tau <= 10; tau++ {
			exceed := 0
			for _, x := range v {
				if x > tau {
					exceed++
				}
			}
			if (p <= tau) != (exceed <= MaxExceeding(n, q)) {
				t.Fatalf("n=%d q=%v τ=%d: P=%d but %d exceed, MaxExceeding %d", n, q, tau, p, exceed, MaxExceeding(n, q))
			}
		}
	}
}

// SLO threshold by hand: α = 0.1 ms/token, β = 10 ms, 200 ms is
// (200 − 10)/0.1 = 1900 tokens; α = 0.5, β = 0: 100 ms is 200 tokens;
// α = 0.1, β = 0: 0.3 ms is 3 tokens on paper, but 0.1·3 evaluates to
// 0.30000000000000004 > 0.3, so (as simulate counts) b = 3 violates and the
// threshold is 2. A negative SLO, in ms or tokens, is refused (one rule
// for every command, issue 35 item 6); an SLO in ms below β is not (every
// turn violates it).
func TestSLOResolve(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	d := latency.Default()
	for _, c := range []struct {
		name  string
		s     SLOSettings
		m     latency.Model
		given []string
		want  int64
		flags []string // nil: no error
	}{
		{"tokens", SLOSettings{SLOMs: 200, SLOTokens: 512.7}, d, []string{"slo-tokens"}, 512, nil},
		{"tokens negative", SLOSettings{SLOTokens: -3.5}, d, []string{"slo-tokens"}, 0, []string{"slo-tokens"}},
		{"tokens zero", SLOSettings{SLOTokens: 0}, d, []string{"slo-tokens"}, 0, nil},
		{"ms negative", SLOSettings{SLOMs: -5}, d, []string{"slo-ms"}, 0, []string{"slo-ms"}},
		{"ms exact", SLOSettings{SLOMs: 100}, latency.Model{AlphaMs: 0.5}, nil, 200, nil},
		{"ms default", SLOSettings{SLOMs: 200}, d, nil, 1900, nil},
		{"ms rounding", SLOSettings{SLOMs: 0.3}, latency.Model{AlphaMs: 0.1}, nil, 2, nil},
		{"ms below beta", SLOSettings{SLOMs: 5}, d, []string{"slo-ms"}, -50, nil},
		{"both", SLOSettings{SLOMs: 200, SLOTokens: 10}, d, []string{"slo-ms", "slo-tokens"}, 0, []string{"slo-ms", "slo-tokens"}},
		{"tokens NaN", DefaultSLOSettings(), d, []string{"slo-tokens"}, 0, []string{"slo-tokens"}},
		{"tokens inf", SLOSettings{SLOTokens: math.Inf(1)}, d, []string{"slo-tokens"}, 0, []string{"slo-tokens"}},
		{"ms inf", SLOSettings{SLOMs: math.Inf(1)}, d, nil, 0, []string{"slo-ms"}},
		{"bad model", SLOSettings{SLOMs: 200}, latency.Model{}, nil, 0, []string{"alpha-ms", "beta-ms"}},
	} {
		got, err := c.s.Resolve(c.m, given(c.given...))
		var oe *option.Error
		switch {
		case c.flags == nil && (err != nil || got != c.want):
			t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
		case c.flags != nil && !errors.As(err, &oe):
			t.Errorf("%s: error %v, want an *option.Error", c.name, err)
		case c.flags != nil && !slices.Equal(oe.Flags, c.flags):
			t.Errorf("%s: flags %v, want %v", c.name, oe.Flags, c.flags)
		}
		if c.flags == nil && !slices.Contains(c.given, "slo-tokens") {
			// the threshold splits b exactly where the model's TTFT crosses the SLO
			if c.m.TTFTMs(float64(got)) > c.s.SLOMs || c.m.TTFTMs(float64(got+1)) <= c.s.SLOMs {
				t.Errorf("%s: threshold %d does not split TTFT at %v ms", c.name, got, c.s.SLOMs)
			}
		}
	}
}

// exactQ is q read as its shortest decimal, exactly.
func exactQ(q float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(q, 'f', -1, 64))
	return r
}

// For the percentiles simulate reports, Rank is models/metrics' rank
// max(1, ⌈p·n⌉) with p the fraction literal.
func TestRankMatchesMetrics(t *testing.T) {
	for _, c := range []struct{ q, p float64 }{{50, 0.5}, {90, 0.9}, {95, 0.95}, {99, 0.99}} {
		for n := 1; n <= 100000; n++ {
			if got, want := Rank(n, c.q), max(1, int(math.Ceil(c.p*float64(n)))); got != want {
				t.Fatalf("Rank(%d, %v) = %d, metrics' rank %d", n, c.q, got, want)
			}
		}
	}
}

// TestParseExactDecimal: a percentile typed with more digits than float64
// holds follows the documented exact-decimal rule (issue 35 item 7):
// p33.3333333333333333 of 300 values is rank ⌈99.9999999999999999⌉ = 100
// by hand, where the float64 nearest to it, 33.333333333333336, gives
// ⌈100.0000000000000008⌉ = 101 (and still does when typed as such). The
// name reads back as typed.
func TestParseExactDecimal(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		rank int
		name string
	}{
		{"p33.3333333333333333", 300, 100, "p33.3333333333333333"},
		{"p33.333333333333336", 300, 101, "p33.333333333333336"},
		{"p66.66666666666666666", 3, 2, "p66.66666666666666666"}, // 1.99999999999999999998 → 2
		{"p99.9", 1000, 999, "p99.9"},
		{"p90", 300, 270, "p90"},
		{"P12.50000000000000000001", 8, 2, "p12.50000000000000000001"}, // 1.00000000000000000000008 → 2
	} {
		o, err := Parse(tc.s)
		if err != nil {
			t.Fatalf("%s: %v", tc.s, err)
		}
		if got := o.Rank(tc.n); got != tc.rank {
			t.Errorf("%s: rank %d of %d, want %d", tc.s, got, tc.n, tc.rank)
		}
		if o.String() != tc.name {
			t.Errorf("%s: name %q, want %q", tc.s, o.String(), tc.name)
		}
	}
	for _, bad := range []string{"p99.99999999999999999999", "p0.000000000000000000001"} {
		// float64 rounds them to 100 and 1e-21 (> 0); the exact rule
		// keeps them inside (0, 100), so they are accepted
		if _, err := Parse(bad); err != nil {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
