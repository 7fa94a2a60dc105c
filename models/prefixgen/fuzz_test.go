package prefixgen

import (
	"testing"
)

// FuzzParseModel: any input is either refused with an error or gives a
// model that generates: requests in time order, each chain ⌈input/512⌉
// blocks long, the prefix's blocks kept between a session's turns.
func FuzzParseModel(f *testing.F) {
	f.Add(tiny().JSON())
	f.Add(Cluster().JSON())
	f.Add(Agentic().JSON())
	f.Add(known().JSON())
	f.Add([]byte(`{"sessions_per_s": 1, "categories": [{"name": "a", "weight": 1, "first_tokens": {"mu": 3, "min": 1}, "next_turn": [0.5]}]}`))
	f.Add([]byte(`{"sessions_per_s": 1} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data, "fuzz")
		if err != nil {
			return
		}
		g, err := NewGenerator(m, 1)
		if err != nil {
			t.Fatalf("a parsed model is refused by the generator: %v", err)
		}
		last := 0.0
		for i := 0; i < 30; i++ {
			r := g.Next()
			if r.TimeS > MaxTimeS {
				return // Write refuses it
			}
			if r.TimeS < last || r.TimeS != r.TimeS {
				t.Fatalf("request %d at %v s after %v s", i, r.TimeS, last)
			}
			last = r.TimeS
			if want := (r.Input + BlockTokens - 1) / BlockTokens; int64(len(r.Hashes)) != want {
				t.Fatalf("request %d: %d blocks for %d tokens, want %d", i, len(r.Hashes), r.Input, want)
			}
			if r.Input < 1 || r.Input > MaxInputTokens {
				t.Fatalf("request %d: input %d tokens outside [1, 2^26]", i, r.Input)
			}
		}
	})
}
