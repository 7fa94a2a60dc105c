package kvsize

import (
	"fmt"
	"sort"
	"strings"
)

// presets are the published architectures (the models' config.json files
// on their release pages) of the models the papers evaluate, with fp16/bf16
// caches. Params are the published totals.
func presets() []Config {
	return []Config{
		// Llama-2-7B; Vicuna-7B and LongAlpaca-7B are fine-tunes of it
		// (the compute-and-load paper's 0.5 MB per token).
		{Name: "llama-2-7b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, BytesPerValue: 2, Params: 6.74e9},
		{Name: "vicuna-7b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, BytesPerValue: 2, Params: 6.74e9},
		{Name: "llama-3-8b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, BytesPerValue: 2, Params: 8.03e9},
		{Name: "llama-3-70b", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, BytesPerValue: 2, Params: 70.6e9},
		{Name: "qwen2-7b", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, BytesPerValue: 2, Params: 7.62e9},
		{Name: "mistral-7b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, BytesPerValue: 2, Params: 7.24e9},
		{Name: "qwen2.5-32b", Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, BytesPerValue: 2, Params: 32.8e9},
	}
}

// Presets returns the preset configurations sorted by name.
func Presets() []Config {
	p := presets()
	sort.Slice(p, func(i, j int) bool { return p[i].Name < p[j].Name })
	return p
}

// PresetNames returns the preset names, sorted and comma-separated, for
// flag help.
func PresetNames() string {
	var names []string
	for _, c := range Presets() {
		names = append(names, c.Name)
	}
	return strings.Join(names, ",")
}

// Preset returns the preset named name (case-insensitive).
func Preset(name string) (Config, error) {
	for _, c := range presets() {
		if strings.EqualFold(c.Name, name) {
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("unknown model %q (presets: %s)", name, PresetNames())
}
