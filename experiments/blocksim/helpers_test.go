package blocksim_test

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/blocktrace"
)

// loadMooncake reads a Mooncake trace with a minimal parser of its own, or
// skips the test when the data are absent.
func loadMooncake(tb testing.TB, name string) *blocktrace.Stream {
	tb.Helper()
	d := shareddata.Dir()
	if d == "" {
		tb.Skip("shared/data not found above the working directory")
	}
	f, err := os.Open(filepath.Join(d, "mooncake", name))
	if err != nil {
		tb.Skipf("Mooncake trace absent: %v", err)
	}
	defer f.Close()
	s := &blocktrace.Stream{BlockTokens: 512}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec struct {
			Timestamp float64 `json:"timestamp"`
			Input     int64   `json:"input_length"`
			Output    int64   `json:"output_length"`
			Hashes    []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatalf("%s line %d: %v", name, len(s.Requests)+1, err)
		}
		s.Requests = append(s.Requests, blocktrace.Request{Index: len(s.Requests), Time: rec.Timestamp / 1000,
			Input: rec.Input, Output: rec.Output, Hashes: rec.Hashes, Conv: -1})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// randomStream draws n requests whose chains share prefixes (a random
// earlier chain cut at a random length, plus up to 5 random hashes from a
// small alphabet) with inputs that end in a partial block.
func randomStream(seed uint64, n, alphabet int) *blocktrace.Stream {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := &blocktrace.Stream{BlockTokens: 16}
	for i := 0; i < n; i++ {
		var chain []int64
		if i > 0 && rng.IntN(4) > 0 {
			prev := s.Requests[rng.IntN(i)].Hashes
			chain = append(chain, prev[:rng.IntN(len(prev)+1)]...)
		}
		for k := rng.IntN(6); k > 0 || len(chain) == 0; k-- {
			chain = append(chain, int64(rng.IntN(alphabet)))
		}
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i) / 4,
			Input: int64(16*len(chain) - rng.IntN(16)), Output: int64(rng.IntN(50)), Hashes: chain,
			Category: []string{"text", "file"}[rng.IntN(2)], Conv: -1})
	}
	return s
}
