package trace

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// benchTrace writes a canonical trace of n turns over n/10 conversations
// (arrival times with fractional seconds, a category on every fourth turn),
// the shape the Writer produces.
func benchTrace(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	w := NewWriter(&buf)
	t := 0.0
	for i := 0; i < n; i++ {
		t += rng.ExpFloat64() * 0.01
		r := Record{T: t, Conv: fmt.Sprintf("c%d", rng.IntN(max(n/10, 1))), Prompt: 1 + rng.Int64N(2000), Response: rng.Int64N(1000)}
		if i%4 == 0 {
			r.Category = "search"
		}
		w.Write(r)
	}
	w.Flush()
	return buf.Bytes()
}

// BenchmarkParse reads a 10^6-turn canonical trace with the fast path
// ("scanner"), the fast path on two workers (NewParallelReader,
// "scanner-parallel") and encoding/json alone ("encoding-json"), reporting
// turns/s; -benchtime 1x is one pass.
func BenchmarkParse(b *testing.B) {
	const n = 1_000_000
	data := benchTrace(n)
	for _, c := range []struct {
		name     string
		slow     bool
		parallel bool
	}{{"scanner", false, false}, {"scanner-parallel", false, true}, {"encoding-json", true, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			turns := 0
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), "bench")
				if c.parallel {
					r = NewParallelReader(bytes.NewReader(data), "bench", 2)
				}
				r.slow = c.slow
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					turns++
				}
			}
			b.ReportMetric(float64(turns)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}
