package objective

import (
	"math"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/latency"
)

// SLOSettings are the SLO threshold as a command line gives it: a TTFT in
// ms (--slo-ms, through the latency model) or directly a number of
// uncached tokens (--slo-tokens).
type SLOSettings struct {
	SLOMs     float64 // --slo-ms: SLO on TTFT, ms
	SLOTokens float64 // --slo-tokens: SLO on uncached tokens, tokens (NaN when not given)
}

// DefaultSLOSettings is latency.DefaultSLOMs with no threshold in tokens.
func DefaultSLOSettings() SLOSettings {
	return SLOSettings{SLOMs: latency.DefaultSLOMs, SLOTokens: math.NaN()}
}

// Resolve returns the SLO threshold s as a whole number of uncached
// tokens: a turn meets the SLO iff b ≤ s and violates it iff b > s.
// With --slo-tokens (changed reports which flags, named without dashes,
// were given) s = ⌊slo-tokens⌋; otherwise s is the largest b with
// m.TTFTMs(b) ≤ slo-ms, i.e. ⌊(slo_ms − β)/α⌋ decided by the same
// floating-point comparison models/metrics uses to count violations, so a
// bound and simulate's count classify every turn alike. Both flags at once
// (neither overrides the other), or a value that is negative or not finite
// (latency.CheckSLOMs, latency.CheckSLOTokens) is an *option.Error naming
// the flags; m must be valid (latency.Settings.Resolve checks it). Every
// command with an SLO resolves it here or checks --slo-ms with
// latency.CheckSLOMs: one rule.
func (s SLOSettings) Resolve(m latency.Model, changed func(flag string) bool) (int64, error) {
	if changed("slo-tokens") {
		if changed("slo-ms") {
			return 0, option.Both("slo-ms", "slo-tokens", "give one SLO, not both")
		}
		if err := latency.CheckSLOTokens(s.SLOTokens); err != nil {
			return 0, option.Wrap("slo-tokens", err)
		}
		return int64(math.Floor(s.SLOTokens)), nil
	}
	if err := latency.CheckSLOMs(s.SLOMs); err != nil {
		return 0, option.Wrap("slo-ms", err)
	}
	if err := m.Validate(); err != nil {
		return 0, &option.Error{Flags: []string{"alpha-ms", "beta-ms"}, Err: err}
	}
	t := m.XiTokens(s.SLOMs)
	if math.Abs(t) > 1e15 {
		return 0, option.Errorf("slo-ms", "SLO of %v ms is %v tokens, out of range", s.SLOMs, t)
	}
	b := int64(math.Floor(t))
	for m.TTFTMs(float64(b+1)) <= s.SLOMs {
		b++
	}
	for m.TTFTMs(float64(b)) > s.SLOMs {
		b--
	}
	return b, nil
}
