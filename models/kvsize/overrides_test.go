package kvsize

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// given returns a Changed function reporting exactly the named flags.
func given(flags ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(flags, f) }
}

// Overrides replace a preset's fields only when their flag was given; the
// sizes are worked by hand from Llama-3-8B's 32 layers, 8 KV heads, head
// dimension 128 and 2 bytes per value.
func TestOverridesResolve(t *testing.T) {
	for _, c := range []struct {
		name     string
		o        Overrides
		changed  func(string) bool
		layers   int
		perLayer float64 // bytes per token per layer
	}{
		{"preset", Overrides{Name: "llama-3-8b"}, nil, 32, 2 * 8 * 128 * 2},
		{"preset, case-insensitive", Overrides{Name: "LLAMA-3-8B"}, given(), 32, 4096},
		{"values not given are ignored", Overrides{Name: "llama-3-8b", Layers: 3, KVHeads: 1}, given(), 32, 4096},
		{"kv-heads and fp8", Overrides{Name: "llama-3-8b", KVHeads: 4, BytesPerValue: 1}, given("kv-heads", "bytes-per-value"), 32, 2 * 4 * 128 * 1},
		{"layers and head-dim", Overrides{Name: "llama-3-8b", Layers: 10, HeadDim: 64}, given("model-layers", "head-dim"), 10, 2 * 8 * 64 * 2},
	} {
		cfg, err := c.o.Resolve(c.changed)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if cfg.Layers != c.layers || cfg.BytesPerTokenLayer() != c.perLayer {
			t.Errorf("%s: %d layers, %v bytes/token/layer; want %d and %v", c.name, cfg.Layers, cfg.BytesPerTokenLayer(), c.layers, c.perLayer)
		}
	}
	cfg, err := Overrides{Name: "llama-3-8b", Params: 1e9, Heads: 16}.Resolve(given("params", "heads"))
	if err != nil || cfg.Params != 1e9 || cfg.Heads != 16 {
		t.Errorf("params and heads: %+v, %v", cfg, err)
	}
}

// A JSON file wins over the preset name; a missing file or an unknown
// preset is an error naming its flag; a given override of 0 is refused,
// naming the model and every field at fault on one line.
func TestOverridesErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, []byte(`{"name": "tiny", "layers": 4, "kv_heads": 2, "head_dim": 8, "bytes_per_value": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Overrides{Name: "llama-3-8b", JSON: path}.Resolve(nil)
	if err != nil || cfg.Name != "tiny" || cfg.BytesPerTokenLayer() != 2*2*8*2 {
		t.Errorf("JSON: %+v, %v; want tiny with 64 bytes/token/layer", cfg, err)
	}
	for _, c := range []struct {
		o    Overrides
		flag string
	}{
		{Overrides{Name: "gpt-9"}, "model"},
		{Overrides{Name: "llama-3-8b", JSON: filepath.Join(t.TempDir(), "none.json")}, "model-json"},
	} {
		var oe *option.Error
		if _, err := c.o.Resolve(nil); !errors.As(err, &oe) || !slices.Equal(oe.Flags, []string{c.flag}) {
			t.Errorf("%+v: %v, want an error naming --%s", c.o, err, c.flag)
		}
	}
	_, err = Overrides{Name: "llama-3-8b"}.Resolve(given("model-layers", "kv-heads"))
	want := `model llama-3-8b: field "layers": want an integer ≥ 1, got 0; field "kv_heads": want an integer ≥ 1, got 0`
	if err == nil || err.Error() != want || strings.Contains(err.Error(), "\n") {
		t.Errorf("overrides of 0: %v, want %q", err, want)
	}
}
