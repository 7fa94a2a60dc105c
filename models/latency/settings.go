package latency

import (
	"math"

	"github.com/tailbound/tailbound/internal/option"
)

// Settings are the latency-model and TEL-threshold settings as a command
// line gives them: α (ms/token) and β (ms), and the threshold either as a
// TTFT ξ_s in ms or directly as ξ in tokens.
type Settings struct {
	AlphaMs, BetaMs float64 // --alpha-ms, --beta-ms
	XiMs            float64 // --xi-ms: ξ_s, ms
	XiTokens        float64 // --xi-tokens: ξ, tokens (NaN when not given)
}

// DefaultSettings are the paper's defaults (DefaultAlphaMs, DefaultBetaMs,
// DefaultXiMs) with no ξ in tokens.
func DefaultSettings() Settings {
	return Settings{AlphaMs: DefaultAlphaMs, BetaMs: DefaultBetaMs, XiMs: DefaultXiMs, XiTokens: math.NaN()}
}

// Resolve returns the model and ξ in tokens: XiTokens when given (changed
// reports which flags, named without dashes, were given), else ξ_s
// converted by the model, (ξ_s − β)/α. A model that is not valid, both
// thresholds at once or a threshold that is not finite is an *option.Error
// naming the flags.
func (s Settings) Resolve(changed func(flag string) bool) (Model, float64, error) {
	m := Model{AlphaMs: s.AlphaMs, BetaMs: s.BetaMs}
	if err := m.Validate(); err != nil {
		return m, 0, &option.Error{Flags: []string{"alpha-ms", "beta-ms"}, Err: err}
	}
	if changed("xi-tokens") {
		if changed("xi-ms") {
			return m, 0, option.Both("xi-ms", "xi-tokens", "give one threshold, not both")
		}
		if math.IsNaN(s.XiTokens) || math.IsInf(s.XiTokens, 0) {
			return m, 0, option.Errorf("xi-tokens", "must be a finite number of tokens")
		}
		return m, s.XiTokens, nil
	}
	if math.IsNaN(s.XiMs) || math.IsInf(s.XiMs, 0) {
		return m, 0, option.Errorf("xi-ms", "must be a finite number of ms")
	}
	return m, m.XiTokens(s.XiMs), nil
}
