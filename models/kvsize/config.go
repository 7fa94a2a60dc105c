// Package kvsize computes the size of a transformer's key–value cache from
// its architecture: 2 (a key and a value) × layers × KV heads × head
// dimension × bytes per value, per token. It holds presets for the models
// the recompute and compute-and-load papers use, and reads any other
// configuration from JSON.
package kvsize

import (
	"errors"
	"fmt"
)

// Config is the part of a model's architecture that sets its KV-cache size
// and its prefill cost.
type Config struct {
	// Name identifies the model, e.g. "llama-3-8b".
	Name string `json:"name"`
	// Layers is the number of transformer layers.
	Layers int `json:"layers"`
	// Hidden is the model (residual stream) width, in values.
	Hidden int `json:"hidden"`
	// Heads is the number of query heads.
	Heads int `json:"heads"`
	// KVHeads is the number of key/value heads (Heads for multi-head
	// attention, fewer under grouped-query attention).
	KVHeads int `json:"kv_heads"`
	// HeadDim is the dimension of one head, in values.
	HeadDim int `json:"head_dim"`
	// BytesPerValue is the storage size of one cached value in bytes
	// (2 for fp16/bf16, 1 for fp8 or int8).
	BytesPerValue float64 `json:"bytes_per_value"`
	// Params is the number of parameters (weights); it sets the linear
	// part of the prefill cost, 2·Params FLOPs per token. Zero means unknown.
	Params float64 `json:"params"`
}

// Validate reports a configuration that cannot describe a model.
func (c Config) Validate() error {
	var errs []error
	pos := func(field string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("field %q: want an integer ≥ 1, got %d", field, v))
		}
	}
	pos("layers", c.Layers)
	pos("kv_heads", c.KVHeads)
	pos("head_dim", c.HeadDim)
	if c.Heads != 0 || c.Hidden != 0 {
		pos("heads", c.Heads)
		pos("hidden", c.Hidden)
	}
	if c.Heads > 0 && c.KVHeads > c.Heads {
		errs = append(errs, fmt.Errorf("field %q: %d KV heads exceed %d query heads", "kv_heads", c.KVHeads, c.Heads))
	}
	if !(c.BytesPerValue > 0) || c.BytesPerValue > 64 {
		errs = append(errs, fmt.Errorf("field %q: want bytes in (0, 64], got %v", "bytes_per_value", c.BytesPerValue))
	}
	if !(c.Params >= 0) || c.Params > 1e15 {
		errs = append(errs, fmt.Errorf("field %q: want a parameter count in [0, 1e15], got %v", "params", c.Params))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

// BytesPerTokenLayer is the KV-cache size of one token in one layer, bytes:
// 2 × KV heads × head dimension × bytes per value.
func (c Config) BytesPerTokenLayer() float64 {
	return 2 * float64(c.KVHeads) * float64(c.HeadDim) * c.BytesPerValue
}

// BytesPerToken is the KV-cache size of one token over all layers, bytes:
// 2 × layers × KV heads × head dimension × bytes per value.
func (c Config) BytesPerToken() float64 {
	return float64(c.Layers) * c.BytesPerTokenLayer()
}

// Bytes is the KV-cache size of tokens tokens, bytes.
func (c Config) Bytes(tokens int64) float64 { return float64(tokens) * c.BytesPerToken() }
