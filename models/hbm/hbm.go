// Package hbm sizes the GPU memory (HBM) a serving instance has left for
// KV cache, the yardstick the workload study (seed 000, §3.5, Figures 21
// and 22) normalises cache sizes by.
//
// Assumptions (stated, not measured): a serving instance is Count GPUs of
// one kind with tensor parallelism; a Reserve share of each GPU's HBM
// holds activations and runtime buffers (0.1: vLLM's default
// gpu_memory_utilization of 0.9); the weights take Params × WeightBytes
// bytes (2: fp16/bf16), spread over the instance; everything else holds
// KV cache. When Count is 0 the instance is the smallest power-of-two
// number of GPUs whose usable HBM is at least twice the weights (1 GPU for
// a 7–8 B model on an 80 GB GPU, 4 for a 70 B model, as in the study).
package hbm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tailbound/tailbound/models/kvsize"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// GPU is an accelerator and its memory.
type GPU struct {
	// Name identifies it, e.g. "a100-80gb".
	Name string `json:"name"`
	// Bytes is its HBM capacity in bytes.
	Bytes float64 `json:"hbm_bytes"`
}

func gpus() []GPU {
	return []GPU{
		{"a100-40gb", 40 * GiB},
		{"a100-80gb", 80 * GiB},
		{"a800-80gb", 80 * GiB},
		{"h100-80gb", 80 * GiB},
		{"h200-141gb", 141 * GiB},
		{"l40s-48gb", 48 * GiB},
	}
}

// GPUNames lists the GPU presets, comma-separated.
func GPUNames() string {
	var s []string
	for _, g := range gpus() {
		s = append(s, g.Name)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// LookupGPU returns the preset named name.
func LookupGPU(name string) (GPU, error) {
	for _, g := range gpus() {
		if g.Name == name {
			return g, nil
		}
	}
	return GPU{}, fmt.Errorf("GPU %q: want one of %s", name, GPUNames())
}

// Instance is a serving instance of a model.
type Instance struct {
	GPU GPU `json:"gpu"`
	// Count is the number of GPUs (0: the smallest power of two whose
	// usable HBM is at least twice the weights).
	Count int `json:"gpus"`
	// Reserve is the share of each GPU's HBM kept for activations, in [0, 1).
	Reserve float64 `json:"reserve_share"`
	// WeightBytes is the storage size of one parameter in bytes.
	WeightBytes float64 `json:"weight_bytes_per_param"`
}

// Budget is an instance's memory split, bytes.
type Budget struct {
	GPUs int `json:"gpus"`
	// Total is Count × the GPU's HBM; Usable = Total × (1 − Reserve).
	Total  float64 `json:"hbm_total_bytes"`
	Usable float64 `json:"hbm_usable_bytes"`
	// Weights = Params × WeightBytes.
	Weights float64 `json:"weights_bytes"`
	// KV = Usable − Weights: the HBM available for KV cache.
	KV float64 `json:"kv_bytes"`
}

// Budget splits the instance's HBM for model m (which must state Params).
func (in Instance) Budget(m kvsize.Config) (Budget, error) {
	switch {
	case m.Params <= 0:
		return Budget{}, fmt.Errorf("model %s: parameter count unknown", m.Name)
	case in.GPU.Bytes <= 0:
		return Budget{}, fmt.Errorf("GPU %q: HBM %g bytes must be > 0", in.GPU.Name, in.GPU.Bytes)
	case !(in.Reserve >= 0 && in.Reserve < 1):
		return Budget{}, fmt.Errorf("HBM reserve %g: must be in [0, 1)", in.Reserve)
	case !(in.WeightBytes > 0):
		return Budget{}, fmt.Errorf("weight bytes per parameter %g: must be > 0", in.WeightBytes)
	case in.Count < 0:
		return Budget{}, fmt.Errorf("GPU count %d: must be ≥ 0", in.Count)
	}
	w := m.Params * in.WeightBytes
	per := in.GPU.Bytes * (1 - in.Reserve)
	n := in.Count
	if n == 0 {
		n = 1
		for float64(n)*per < 2*w {
			if n > 1<<10 {
				return Budget{}, fmt.Errorf("model %s: does not fit on 1024 %s GPUs", m.Name, in.GPU.Name)
			}
			n *= 2
		}
	}
	b := Budget{GPUs: n, Total: float64(n) * in.GPU.Bytes, Usable: float64(n) * per, Weights: w}
	b.KV = b.Usable - w
	if b.KV <= 0 {
		return b, fmt.Errorf("model %s: %d %s GPUs leave no HBM for KV cache (weights %.1f GiB, usable %.1f GiB)",
			m.Name, n, in.GPU.Name, w/GiB, b.Usable/GiB)
	}
	return b, nil
}
