package latency

import (
	"errors"
	"math"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// Resolve by hand: α = 0.1 ms/token, β = 10 ms and ξ_s = 200 ms give
// ξ = (200 − 10)/0.1 = 1900 tokens; --xi-tokens wins when given; every
// refusal names its flags.
func TestSettingsResolve(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(f string) bool {
			for _, g := range flags {
				if f == g {
					return true
				}
			}
			return false
		}
	}
	d := DefaultSettings()
	for _, c := range []struct {
		name  string
		s     Settings
		given []string
		xi    float64
		flags []string // nil: no error
	}{
		{"defaults", d, nil, 1900, nil},
		{"xi tokens", Settings{AlphaMs: 0.1, BetaMs: 10, XiMs: 200, XiTokens: 150}, []string{"xi-tokens"}, 150, nil},
		{"xi tokens not given", Settings{AlphaMs: 0.1, BetaMs: 10, XiMs: 200, XiTokens: 150}, nil, 1900, nil},
		{"both", d, []string{"xi-ms", "xi-tokens"}, 0, []string{"xi-ms", "xi-tokens"}},
		{"alpha 0", Settings{AlphaMs: 0, BetaMs: 10, XiMs: 200}, nil, 0, []string{"alpha-ms", "beta-ms"}},
		{"xi tokens inf", Settings{AlphaMs: 0.1, BetaMs: 10, XiTokens: math.Inf(1)}, []string{"xi-tokens"}, 0, []string{"xi-tokens"}},
		{"xi ms NaN", Settings{AlphaMs: 0.1, BetaMs: 10, XiMs: math.NaN()}, nil, 0, []string{"xi-ms"}},
	} {
		m, xi, err := c.s.Resolve(given(c.given...))
		var oe *option.Error
		switch {
		case c.flags == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.flags == nil && (math.Abs(xi-c.xi) > 1e-9 || m.AlphaMs != c.s.AlphaMs):
			t.Errorf("%s: ξ = %v tokens, model %+v; want ξ = %v", c.name, xi, m, c.xi)
		case c.flags != nil && !errors.As(err, &oe):
			t.Errorf("%s: error %v, want an *option.Error", c.name, err)
		case c.flags != nil && len(oe.Flags) != len(c.flags):
			t.Errorf("%s: flags %v, want %v", c.name, oe.Flags, c.flags)
		}
	}
}
