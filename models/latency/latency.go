// Package latency is the linear time-to-first-token model of the
// tail-latency paper: TTFT = β + α·b for b uncached tokens, and the
// threshold ξ that turns TEL from seconds into tokens.
package latency

import (
	"errors"
	"fmt"
	"math"
)

// Defaults of the model, in milliseconds. They are round numbers in the
// range the tail-latency paper reports for Vicuna-7B on one A100 under vLLM
// (P90 TTFT of a few hundred ms at a few thousand uncached tokens); fit
// your own with Fit.
const (
	// DefaultAlphaMs is the prefill time per uncached token, ms/token.
	DefaultAlphaMs = 0.1
	// DefaultBetaMs is the fixed per-request overhead, ms.
	DefaultBetaMs = 10
	// DefaultXiMs is the TEL threshold ξ_s, ms.
	DefaultXiMs = 200
	// DefaultSLOMs is the SLO used to count violations, ms.
	DefaultSLOMs = 200
)

// CheckSLOMs refuses an SLO on TTFT that is not a finite number of ms
// ≥ 0 (--slo-ms in every command: one rule, issue 35 item 6). An SLO
// below β is allowed: every turn violates it.
func CheckSLOMs(ms float64) error {
	if !(ms >= 0) || math.IsInf(ms, 0) {
		return fmt.Errorf("must be a finite number of ms ≥ 0, got %v", ms)
	}
	return nil
}

// CheckSLOTokens refuses an SLO on uncached tokens that is not a finite
// number of tokens ≥ 0 (--slo-tokens) or is beyond 10^15 tokens.
func CheckSLOTokens(tokens float64) error {
	if !(tokens >= 0 && tokens <= 1e15) {
		return fmt.Errorf("must be a finite number of tokens ≥ 0 (at most 1e15), got %v", tokens)
	}
	return nil
}

// Model is TTFT = BetaMs + AlphaMs·b milliseconds for b uncached tokens.
type Model struct {
	AlphaMs float64 // ms per uncached token, > 0
	BetaMs  float64 // fixed overhead in ms, ≥ 0
}

// Default returns the documented default model.
func Default() Model { return Model{AlphaMs: DefaultAlphaMs, BetaMs: DefaultBetaMs} }

// Validate reports a model that cannot be used.
func (m Model) Validate() error {
	if !(m.AlphaMs > 0) || math.IsInf(m.AlphaMs, 0) {
		return fmt.Errorf("alpha must be a finite number > 0 ms/token, got %v", m.AlphaMs)
	}
	if !(m.BetaMs >= 0) || math.IsInf(m.BetaMs, 0) {
		return fmt.Errorf("beta must be a finite number ≥ 0 ms, got %v", m.BetaMs)
	}
	return nil
}

// TTFTMs returns the time to first token in ms for b uncached tokens.
func (m Model) TTFTMs(b float64) float64 { return m.BetaMs + m.AlphaMs*b }

// XiTokens converts a threshold ξ_s in ms to tokens: ξ = (ξ_s − β)/α. It
// may be negative when ξ_s < β (every turn then exceeds the threshold).
func (m Model) XiTokens(xiMs float64) float64 { return (xiMs - m.BetaMs) / m.AlphaMs }

// XiMs converts a threshold in tokens back to ms: ξ_s = β + α·ξ.
func (m Model) XiMs(xiTokens float64) float64 { return m.BetaMs + m.AlphaMs*xiTokens }

// Excess returns max(b − ξ, 0), the tokens by which a turn with b uncached
// tokens exceeds the threshold ξ (tokens). TEL in ms is AlphaMs times the sum.
func Excess(b int64, xi float64) float64 {
	if e := float64(b) - xi; e > 0 {
		return e
	}
	return 0
}

// Point is one measured (uncached tokens, TTFT ms) pair.
type Point struct {
	Uncached float64 // tokens
	TTFTMs   float64 // ms
}

// Fit returns the least-squares line TTFT = β + α·b through points. It
// needs two distinct b values, and refuses a fit that is not a usable model
// (Model.Validate): a slope α ≤ 0 (TTFT not growing with uncached tokens)
// or an intercept β < 0, naming the fitted values, rather than return a
// model that every command would reject later.
func Fit(points []Point) (Model, error) {
	n := float64(len(points))
	if len(points) < 2 {
		return Model{}, errors.New("latency fit: need at least two points")
	}
	var sx, sy, sxx, sxy float64
	for _, p := range points {
		sx += p.Uncached
		sy += p.TTFTMs
		sxx += p.Uncached * p.Uncached
		sxy += p.Uncached * p.TTFTMs
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return Model{}, errors.New("latency fit: all points have the same uncached-token count")
	}
	a := (n*sxy - sx*sy) / den
	m := Model{AlphaMs: a, BetaMs: (sy - a*sx) / n}
	if err := m.Validate(); err != nil {
		return Model{}, fmt.Errorf("latency fit: the least-squares line (α = %.6g ms/token, β = %.6g ms) is not a TTFT model: %w", m.AlphaMs, m.BetaMs, err)
	}
	return m, nil
}

// RMSE is the root-mean-square error of m's TTFT against the measured
// points, ms (0 for no points).
func (m Model) RMSE(points []Point) float64 {
	if len(points) == 0 {
		return 0
	}
	var ss float64
	for _, p := range points {
		d := p.TTFTMs - m.TTFTMs(p.Uncached)
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(points)))
}
