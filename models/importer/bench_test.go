package importer

import (
	"bytes"
	"encoding/json"
	"github.com/tailbound/tailbound/internal/shareddata"
	"math/rand/v2"
	"os"
	"testing"
)

// benchImport measures import throughput (bytes of trace per second, as
// MB/s in the benchmark output) of format over data, with the fast path
// ("scanner") and with encoding/json alone ("encoding-json").
func benchImport(b *testing.B, format string, data []byte) {
	for _, c := range []struct {
		name string
		slow bool
	}{{"scanner", false}, {"encoding-json", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := readWith(format, data, c.slow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMooncakeImport reads the published conversation trace.
func BenchmarkMooncakeImport(b *testing.B) {
	data, err := os.ReadFile(shareddata.Mooncake(b, "conversation_trace.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	benchImport(b, "mooncake", data)
}

// BenchmarkBailianImport reads a generated Bailian-schema trace: 5,000
// requests of 16-token blocks, half of them follow-up turns.
func BenchmarkBailianImport(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var next int64
	for i := range 5000 {
		in := 1 + rng.Int64N(4000)
		h := make([]int64, (in+15)/16)
		for j := range h {
			h[j] = next
			next++
		}
		parent := int64(-1)
		turn := 1
		if i > 0 && rng.IntN(2) == 0 {
			parent, turn = int64(i-1), 2
		}
		enc.Encode(map[string]any{"chat_id": i, "parent_chat_id": parent, "timestamp": float64(i) / 10,
			"input_length": in, "output_length": 100, "type": "text", "turn": turn, "hash_ids": h})
	}
	benchImport(b, "bailian", buf.Bytes())
}
