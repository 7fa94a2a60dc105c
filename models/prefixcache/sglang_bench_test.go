package prefixcache

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
)

// radixStream returns a fixed stream of n requests for the radix-tree
// benchmark, blocks of 16 tokens: 400 conversations behind 8 shared system
// prompts (2–24 blocks), each turn a random conversation's chain grown by
// 1–8 new blocks (a conversation past 256 blocks starts over as a new
// one), its last block partial by 0–15 tokens. Chains form a tree (an id
// names one prefix), as the Interner's do.
func radixStream(n int) []Req {
	r := rand.New(rand.NewPCG(1, 2))
	next := BlockID(0)
	fresh := func(k int) []BlockID {
		out := make([]BlockID, k)
		for i := range out {
			out[i] = next
			next++
		}
		return out
	}
	var sys [8][]BlockID
	for i := range sys {
		sys[i] = fresh(2 + r.IntN(23))
	}
	convs := make([][]BlockID, 400)
	for i := range convs {
		convs[i] = sys[r.IntN(len(sys))]
	}
	reqs := make([]Req, n)
	for i := range reqs {
		c := r.IntN(len(convs))
		if len(convs[c]) > 256 {
			convs[c] = sys[r.IntN(len(sys))]
		}
		chain := append(append([]BlockID(nil), convs[c]...), fresh(1+r.IntN(8))...)
		convs[c] = chain
		reqs[i] = Req{Index: i, Input: 16*int64(len(chain)) - r.Int64N(16), Blocks: chain, Conv: c}
	}
	return reqs
}

// BenchmarkSGLang replays radixStream(20000) through SGLang's radix cache
// at 4,096 blocks of 16 tokens (the stream holds far more, so it evicts),
// at pages of 1 and 16 tokens; one op is the whole replay.
func BenchmarkSGLang(b *testing.B) {
	reqs := radixStream(20000)
	for _, page := range []string{"1", "16"} {
		b.Run("page="+page, func(b *testing.B) {
			cfg := Config{Params: instance.Params{Capacity: 4096 * 16, BlockSize: 16}, Options: map[string]string{"page-size": page}}
			for b.Loop() {
				p, err := NewSGLang(cfg)
				if err != nil {
					b.Fatal(err)
				}
				e := p.(Engine)
				for i := range reqs {
					if _, _, err := e.ServeEngine(&reqs[i]); err != nil {
						b.Fatal(fmt.Errorf("request %d: %w", i, err))
					}
				}
			}
		})
	}
}
