// Package recompute is the selective-recompute cost model of the recompute
// paper (CacheTune, "Adaptive KV Cache Reuse for Fast Long-Context LLM
// Serving", §4.3) and the search for the measured optimum around it.
//
// A reused context of N tokens is prepared layer by layer: a fraction r of
// its tokens is recomputed (r·N·t_c seconds per layer) while the rest is
// loaded from a storage tier ((1−r)·N·t_i seconds per layer), the two
// overlapped, plus a fixed per-layer overhead t_o:
//
//	T(r) = max(r·N·t_c, (1−r)·N·t_i) + t_o,   TTFT(r) ≈ layers · T(r).
//
// The two branches cross at the roofline optimum r0 = t_i/(t_c + t_i),
// which is clipped to the quality bounds [r_min, r_max] (r_min = 15% by
// default: the paper's floor below which cross-attention recovery suffers).
// The measured optimum r* is found by the paper's Algorithm 1, a
// golden-section search warm-started at r0 over measured mean TTFT (see
// Search), and confirmed by a grid scan (see Analyze).
package recompute

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/tier"
)

// Default quality bounds on the recompute ratio r (fractions of the
// context's tokens) and the default search tolerance.
const (
	// DefaultRMin is the paper's quality floor, 15% of tokens recomputed.
	DefaultRMin = 0.15
	// DefaultRMax is full recompute.
	DefaultRMax = 1.0
	// DefaultEps is the golden-section tolerance on the bracket width,
	// in units of r (one percentage point).
	DefaultEps = 0.01
)

// Profile is the per-layer hardware profile of the roofline model.
type Profile struct {
	// Tc is the cost of recomputing one token in one layer, seconds.
	Tc float64 `json:"tc_s"`
	// Ti is the cost of loading one token's KV for one layer, seconds.
	Ti float64 `json:"ti_s"`
	// To is the fixed per-layer pipeline overhead, seconds.
	To float64 `json:"to_s"`
}

// R0 is the unclipped roofline optimum t_i/(t_c + t_i), a fraction of
// tokens. It is NaN when both costs are zero.
func (p Profile) R0() float64 { return p.Ti / (p.Tc + p.Ti) }

// Validate reports a profile with negative or non-finite costs.
func (p Profile) Validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"t_c", p.Tc}, {"t_i", p.Ti}, {"t_o", p.To}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("profile %s must be a finite number ≥ 0 seconds, got %v", v.name, v.x)
		}
	}
	if p.Tc+p.Ti == 0 {
		return fmt.Errorf("profile: t_c and t_i are both zero")
	}
	return nil
}

// Model is the roofline TTFT model of one context on one hardware tier.
type Model struct {
	Profile
	// Tokens is the context length N, tokens.
	Tokens int `json:"tokens"`
	// Layers is the number of layers the pipeline runs.
	Layers int `json:"layers"`
}

// LayerSeconds is the per-layer time T(r) = max(r·N·t_c, (1−r)·N·t_i) + t_o,
// seconds, at recompute ratio r ∈ [0, 1].
func (m Model) LayerSeconds(r float64) float64 {
	n := float64(m.Tokens)
	return math.Max(r*n*m.Tc, (1-r)*n*m.Ti) + m.To
}

// TTFT is layers × T(r), seconds: the paper's equation (10), start-up and
// tear-down bubbles neglected.
func (m Model) TTFT(r float64) float64 { return float64(m.Layers) * m.LayerSeconds(r) }

// Clip returns r limited to [lo, hi].
func Clip(r, lo, hi float64) float64 { return math.Min(math.Max(r, lo), hi) }

// CheckBounds reports quality bounds that are not 0 ≤ lo ≤ hi ≤ 1.
func CheckBounds(lo, hi float64) error {
	if !(lo >= 0 && lo <= hi && hi <= 1) {
		return fmt.Errorf("recompute bounds must satisfy 0 ≤ r_min ≤ r_max ≤ 1, got r_min=%v r_max=%v", lo, hi)
	}
	return nil
}

// HardwareProfile derives t_c and t_i for a model on a device and a storage
// tier, for a context of tokens tokens:
//
//	t_i = KV bytes per token per layer / tier bandwidth,
//	t_c = (2·params/layers + 2·heads·head_dim·(N+1)) / achieved FLOP/s.
//
// The first term of t_c is the token's share of the layer's weight
// multiplies; the second is its attention over (N+1)/2 keys on average
// (recomputed tokens spread over the context, causal attention, a
// multiply–add for the scores and one for the weighted values, 2 FLOPs
// each). to is the per-layer overhead in seconds. The cfg must give Heads
// and Params.
func HardwareProfile(cfg kvsize.Config, t tier.Tier, flops float64, tokens int, to float64) (Profile, error) {
	if err := cfg.Validate(); err != nil {
		return Profile{}, fmt.Errorf("model %s: %w", cfg.Name, err)
	}
	if cfg.Heads < 1 || !(cfg.Params > 0) {
		return Profile{}, fmt.Errorf("model %s: heads and params are needed for the recompute cost", cfg.Name)
	}
	if err := t.Validate(); err != nil {
		return Profile{}, err
	}
	if !(flops > 0) || math.IsInf(flops, 0) {
		return Profile{}, fmt.Errorf("achieved FLOP/s must be a finite number > 0, got %v", flops)
	}
	if tokens < 1 {
		return Profile{}, fmt.Errorf("context length must be ≥ 1 token, got %d", tokens)
	}
	linear := 2 * cfg.Params / float64(cfg.Layers)
	attn := 2 * float64(cfg.Heads) * float64(cfg.HeadDim) * float64(tokens+1)
	p := Profile{Tc: (linear + attn) / flops, Ti: t.Seconds(cfg.BytesPerTokenLayer()), To: to}
	return p, p.Validate()
}

// BranchR0 is the crossover of the two branches when each has its own
// fixed per-layer cost, o_c + r·N·t_c = o_i + (1−r)·N·t_i:
//
//	r = (o_i − o_c + N·t_i) / (N·(t_c + t_i)),
//
// unclipped. With o_c = o_i it is r0. A measured load stage often has a
// large intercept (the latency of the first read of each layer), which
// the roofline's single shared t_o cannot express; this moves the optimum
// towards more recompute. NaN when t_c + t_i = 0.
func BranchR0(tc, ti, oc, oi float64, tokens int) float64 {
	n := float64(tokens)
	return (oi - oc + n*ti) / (n * (tc + ti))
}
