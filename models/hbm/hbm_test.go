package hbm

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/kvsize"
)

func TestBudget(t *testing.T) {
	a100, err := LookupGPU("a100-80gb")
	if err != nil {
		t.Fatal(err)
	}
	qwen, _ := kvsize.Preset("qwen2-7b")
	llama, _ := kvsize.Preset("llama-3-70b")
	per := 80.0 * (1 << 30) * 0.9 // 77,309,411,328 bytes usable per GPU
	cases := []struct {
		name  string
		m     kvsize.Config
		count int
		gpus  int
		kv    float64
	}{
		// 7.62e9 params × 2 B = 15.24e9 B ≤ per/2: one GPU.
		{"qwen auto", qwen, 0, 1, per - 15.24e9},
		// 70.6e9 × 2 = 141.2e9 B: 2 GPUs give 154.6e9 < 2 × 141.2e9, 4 give 309.2e9.
		{"llama auto", llama, 0, 4, 4*per - 141.2e9},
		{"llama on 2", llama, 2, 2, 2*per - 141.2e9},
	}
	for _, c := range cases {
		b, err := Instance{GPU: a100, Count: c.count, Reserve: 0.1, WeightBytes: 2}.Budget(c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.GPUs != c.gpus || math.Abs(b.KV-c.kv) > 1 {
			t.Errorf("%s: %d GPUs, KV %g B; want %d, %g", c.name, b.GPUs, b.KV, c.gpus, c.kv)
		}
	}
}

func TestBudgetErrors(t *testing.T) {
	a100, _ := LookupGPU("a100-40gb")
	llama, _ := kvsize.Preset("llama-3-70b")
	for _, c := range []struct {
		in   Instance
		m    kvsize.Config
		want string
	}{
		{Instance{GPU: a100, Count: 1, Reserve: 0.1, WeightBytes: 2}, llama, "no HBM for KV"},
		{Instance{GPU: a100, Reserve: 1, WeightBytes: 2}, llama, "reserve"},
		{Instance{GPU: a100, Reserve: 0.1, WeightBytes: 2}, kvsize.Config{Name: "x"}, "parameter count"},
	} {
		if _, err := c.in.Budget(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := LookupGPU("tpu"); err == nil {
		t.Error("unknown GPU accepted")
	}
}

func ExampleInstance_Budget() {
	gpu, _ := LookupGPU("a100-80gb")
	m, _ := kvsize.Preset("qwen2-7b")
	b, _ := Instance{GPU: gpu, Reserve: 0.1, WeightBytes: 2}.Budget(m)
	fmt.Printf("%d GPU, %.1f GiB for KV cache = %.0f k tokens\n", b.GPUs, b.KV/GiB, b.KV/m.BytesPerToken()/1000)
	// Output: 1 GPU, 57.8 GiB for KV cache = 1082 k tokens
}
