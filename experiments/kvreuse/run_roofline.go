package kvreuse

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/recompute"
)

// RooflineOptions are the settings of "recompute roofline".
type RooflineOptions struct {
	HardwareOptions
	// ToMs is the per-layer fixed pipeline overhead t_o, ms (--to-ms).
	ToMs float64
	// RMin and RMax clip r0, fractions of tokens (--r-min, --r-max).
	RMin, RMax float64
	// Plot is the figure's path, "" for none (--plot).
	Plot string
}

// Run validates o and evaluates the roofline (see Roofline), saving its
// figure to Plot.
func (o *RooflineOptions) Run(env Env) (Output, error) {
	h, err := o.Resolve(env)
	if err != nil {
		return Output{}, err
	}
	if err := recompute.CheckBounds(o.RMin, o.RMax); err != nil {
		return Output{}, fmt.Errorf("flags --r-min/--r-max: %w", err)
	}
	if !(o.ToMs >= 0) || math.IsInf(o.ToMs, 0) {
		return Output{}, option.Errorf("to-ms", "want finite ms ≥ 0, got %v", o.ToMs)
	}
	out, err := Roofline(h, o.ToMs/1e3, o.RMin, o.RMax)
	if err != nil {
		return Output{}, err
	}
	return withPlots(out, o.Plot)
}

// CakeOptions are the settings of "recompute cake".
type CakeOptions struct {
	HardwareOptions
	// Chunk is the chunk size, tokens (--chunk).
	Chunk int
	// ChunkOverheadMs is the fixed compute overhead per chunk, ms
	// (--chunk-overhead-ms).
	ChunkOverheadMs float64
	// Plot is the figure's path, "" for none (--plot).
	Plot string
}

// Run validates o and evaluates the compute-and-load schedules (see Cake),
// saving the figure to Plot.
func (o *CakeOptions) Run(env Env) (Output, error) {
	h, err := o.Resolve(env)
	if err != nil {
		return Output{}, err
	}
	if o.Chunk < 1 {
		return Output{}, option.Errorf("chunk", "want ≥ 1 token, got %d", o.Chunk)
	}
	out, err := Cake(h, o.Chunk, o.ChunkOverheadMs/1e3)
	if err != nil {
		return Output{}, err
	}
	return withPlots(out, o.Plot)
}
