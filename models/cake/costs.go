// Package cake is the compute-and-load model of "Compute or Load KV Cache?
// Why Not Both?" (Cake): a context is prefilled in chunks; chunk j can be
// computed on the accelerator, at a cost that grows with j because its
// tokens attend to every earlier token, or loaded from a storage tier, at a
// cost that does not depend on j. It holds the paper's baselines
// (compute-only, load-only), the best static split (compute the first k
// chunks while loading the rest), and the paper's bidirectional schedule
// (compute from the front while loading from the back until they meet).
package cake

import (
	"errors"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/tier"
)

// Costs are the per-chunk costs of one prefill, in chunk order.
type Costs struct {
	// Compute[j] is the time to compute chunk j's KV cache, seconds.
	Compute []float64
	// Load[j] is the time to load chunk j's KV cache, seconds.
	Load []float64
}

// Validate reports costs of unequal length, none, or negative or
// non-finite entries.
func (c Costs) Validate() error {
	if len(c.Compute) != len(c.Load) {
		return fmt.Errorf("cake: %d compute costs but %d load costs", len(c.Compute), len(c.Load))
	}
	if len(c.Compute) == 0 {
		return errors.New("cake: no chunks")
	}
	for j := range c.Compute {
		for _, v := range []float64{c.Compute[j], c.Load[j]} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("cake: chunk %d: costs must be finite seconds ≥ 0, got %v", j, v)
			}
		}
	}
	return nil
}

// Chunks is the number of chunks.
func (c Costs) Chunks() int { return len(c.Compute) }

// Affine returns n chunks with compute cost base + slope·j and a constant
// load cost, all in seconds: the paper's finding 2 (chunk latency grows
// linearly with its index) and finding 1 (loading is linear in size).
func Affine(n int, base, slope, load float64) Costs {
	c := Costs{Compute: make([]float64, n), Load: make([]float64, n)}
	for j := range n {
		c.Compute[j] = base + slope*float64(j)
		c.Load[j] = load
	}
	return c
}

// FromModel derives the costs of prefilling tokens tokens in chunks of
// chunk tokens (the last one may be shorter) for model cfg on an
// accelerator achieving flops FLOP/s, loading from storage tier t. A chunk
// of s tokens starting at position p costs
//
//	compute: (2·params·s + 2·layers·heads·head_dim·s·(2p + s + 1)) / flops + overhead
//	load:    s · KV bytes per token / bandwidth
//
// seconds: the weight multiplies, plus causal attention of each token q
// over q + 1 keys (scores and weighted values, 2 FLOPs per multiply–add),
// plus a fixed per-chunk overhead in seconds. The compute cost is affine in
// the chunk index.
func FromModel(cfg kvsize.Config, t tier.Tier, flops float64, tokens, chunk int, overhead float64) (Costs, error) {
	if err := cfg.Validate(); err != nil {
		return Costs{}, fmt.Errorf("model %s: %w", cfg.Name, err)
	}
	if cfg.Heads < 1 || !(cfg.Params > 0) {
		return Costs{}, fmt.Errorf("model %s: heads and params are needed for the compute cost", cfg.Name)
	}
	if err := t.Validate(); err != nil {
		return Costs{}, err
	}
	if !(flops > 0) || math.IsInf(flops, 0) {
		return Costs{}, fmt.Errorf("achieved FLOP/s must be a finite number > 0, got %v", flops)
	}
	if tokens < 1 || chunk < 1 {
		return Costs{}, fmt.Errorf("tokens (%d) and chunk size (%d tokens) must be ≥ 1", tokens, chunk)
	}
	if !(overhead >= 0) || math.IsInf(overhead, 0) {
		return Costs{}, fmt.Errorf("per-chunk overhead must be finite seconds ≥ 0, got %v", overhead)
	}
	attn := 2 * float64(cfg.Layers) * float64(cfg.Heads) * float64(cfg.HeadDim)
	var c Costs
	for p := 0; p < tokens; p += chunk {
		s := float64(min(chunk, tokens-p))
		c.Compute = append(c.Compute, (2*cfg.Params*s+attn*s*(2*float64(p)+s+1))/flops+overhead)
		c.Load = append(c.Load, t.Seconds(s*cfg.BytesPerToken()))
	}
	return c, nil
}
