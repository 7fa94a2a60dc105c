package kvsize

import (
	"bytes"
	"strings"
	"testing"
)

func TestPresetBytesPerToken(t *testing.T) {
	// Hand-worked: 2 × layers × KV heads × head dim × 2 bytes.
	cases := []struct {
		name string
		want float64 // bytes per token
	}{
		{"llama-2-7b", 2 * 32 * 32 * 128 * 2}, // 524288 = 0.5 MiB, the compute-and-load paper's figure
		{"vicuna-7b", 2 * 32 * 32 * 128 * 2},  // same architecture
		{"llama-3-8b", 2 * 32 * 8 * 128 * 2},  // 131072
		{"llama-3-70b", 2 * 80 * 8 * 128 * 2}, // 327680
		{"qwen2-7b", 2 * 28 * 4 * 128 * 2},    // 57344
		{"mistral-7b", 2 * 32 * 8 * 128 * 2},  // 131072
		{"qwen2.5-32b", 2 * 64 * 8 * 128 * 2}, // 262144
		{"LLAMA-3-8B", 2 * 32 * 8 * 128 * 2},  // names are case-insensitive
	}
	for _, c := range cases {
		cfg, err := Preset(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.BytesPerToken(); got != c.want {
			t.Errorf("%s: %v bytes/token, want %v", c.name, got, c.want)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: preset invalid: %v", c.name, err)
		}
		if cfg.Heads*cfg.HeadDim != cfg.Hidden {
			t.Errorf("%s: heads × head dim = %d, hidden %d", c.name, cfg.Heads*cfg.HeadDim, cfg.Hidden)
		}
	}
	if _, err := Preset("gpt-9"); err == nil || !strings.Contains(err.Error(), "llama-3-8b") {
		t.Errorf("unknown preset: error %v should list the presets", err)
	}
}

// The compute-and-load paper says Llama-3-70B needs "approximately 2.5 MB"
// per token. That is the size without grouped-query attention (all 64 heads
// cached); with its 8 KV heads it is 8 times smaller.
func TestLlama370BWithoutGQA(t *testing.T) {
	c, _ := Preset("llama-3-70b")
	mha := c
	mha.KVHeads = mha.Heads
	if got := mha.BytesPerToken(); got != 2.5*(1<<20) {
		t.Errorf("MHA-equivalent size %v bytes, want 2.5 MiB", got)
	}
	if got := mha.BytesPerToken() / c.BytesPerToken(); got != 8 {
		t.Errorf("MHA/GQA ratio %v, want 64/8 = 8", got)
	}
}

func TestReadJSON(t *testing.T) {
	good := `{"name": "tiny", "layers": 2, "kv_heads": 1, "head_dim": 4, "bytes_per_value": 1}`
	c, err := ReadJSON(strings.NewReader(good), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BytesPerToken(); got != 2*2*1*4*1 {
		t.Errorf("tiny: %v bytes/token, want 16", got)
	}
	bad := []struct{ in, want string }{
		{"", "m.json:1:"},
		{"{\n\"layers\": 2,\n\"kv_heads\": \"x\"}", "m.json:3:"},
		{"{\"layers\": 2, \"kv_head\": 1}", "unknown field"},
		{`{"layers": 0, "kv_heads": 1, "head_dim": 4, "bytes_per_value": 2}`, `field "layers"`},
		{`{"layers": 1, "kv_heads": 9, "heads": 8, "hidden": 8, "head_dim": 4, "bytes_per_value": 2}`, `field "kv_heads"`},
		{`{"layers": 1, "kv_heads": 1, "head_dim": 4, "bytes_per_value": -2}`, `field "bytes_per_value"`},
		{`{"layers": 1, "kv_heads": 1, "head_dim": 4, "bytes_per_value": 2} {}`, "more than one"},
	}
	for _, b := range bad {
		_, err := ReadJSON(strings.NewReader(b.in), "m.json")
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", b.in, err, b.want)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"layers": 2, "kv_heads": 1, "head_dim": 4, "bytes_per_value": 1}`))
	f.Add([]byte("{\n\"layers\": -1}"))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q: want one line starting with the file name", err)
			}
			return
		}
		if !(c.BytesPerToken() > 0) {
			t.Fatalf("accepted %+v with %v bytes/token", c, c.BytesPerToken())
		}
	})
}

func BenchmarkBytesPerToken(b *testing.B) {
	c, _ := Preset("llama-3-70b")
	var s float64
	for b.Loop() {
		s += c.Bytes(4096)
	}
	_ = s
}
