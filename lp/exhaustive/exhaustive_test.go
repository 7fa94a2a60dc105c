package exhaustive_test

import (
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// handTrace builds a trace from (conversation, prompt, response) triples.
func handTrace(turns ...[3]int64) *trace.Trace {
	tr := &trace.Trace{}
	for k, t := range turns {
		tr.Append(float64(k), string(rune('a'+t[0])), t[1], t[2])
	}
	return tr
}

// TestHandWorked checks the optimum on instances worked by hand.
func TestHandWorked(t *testing.T) {
	cases := []struct {
		name string
		tr   *trace.Trace
		p    instance.Params
		want float64
	}{
		// No turns, no latency.
		{"empty", handTrace(), instance.Params{Capacity: 4, BlockSize: 1}, 0},
		// No cache: every turn's whole load D_k = H_k + p_k counts beyond
		// ξ = 1: (3−1) + (3+1+2−1) = 7.
		{"no cache", handTrace([3]int64{0, 3, 1}, [3]int64{0, 2, 0}), instance.Params{Capacity: 0, BlockSize: 1, Xi: 1}, 7},
		// One conversation, B = 1, C = 2, ξ = 0: the first turn's 3 tokens
		// are all excess; its return (D = 5) finds at most 2 cached: 3 + 3.
		{"capacity bound", handTrace([3]int64{0, 3, 0}, [3]int64{0, 2, 0}), instance.Params{Capacity: 2, BlockSize: 1}, 6},
		// a (2 tokens), b (2), a returns with 1, b with 1; B = 2, one block,
		// ξ = 2: first turns have no excess; each return has D = 3, excess
		// 1 unless its block is cached, and the block serves only one.
		{"split block", handTrace([3]int64{0, 2, 0}, [3]int64{1, 2, 0}, [3]int64{0, 1, 0}, [3]int64{1, 1, 0}), instance.Params{Capacity: 2, BlockSize: 2, Xi: 2}, 1},
		// B = 4, C = 4, ξ = 0: a history of 3 tokens is under one block,
		// so nothing can be cached: 3 + (3+2) = 8.
		{"below a block", handTrace([3]int64{0, 3, 0}, [3]int64{0, 2, 0}), instance.Params{Capacity: 4, BlockSize: 4}, 8},
		// Forced, B = 1, C = 1: a (1), b (1), a returns (1). b must keep its
		// token, evicting a's: a's return has D = 2 uncached: 1 + 1 + 2.
		{"forced evicts", handTrace([3]int64{0, 1, 0}, [3]int64{1, 1, 0}, [3]int64{0, 1, 0}), instance.Params{Capacity: 1, BlockSize: 1, Forced: true}, 4},
		// The same with optional caching keeps a's token: 1 + 1 + 1.
		{"optional keeps", handTrace([3]int64{0, 1, 0}, [3]int64{1, 1, 0}, [3]int64{0, 1, 0}), instance.Params{Capacity: 1, BlockSize: 1}, 3},
		// Fractional ξ = 0.5, B = 1, C = 1: a (2) then a (1): 1.5, then D = 3
		// with one token cached: 3 − 1 − 0.5 = 1.5; 3 in all.
		{"fractional xi", handTrace([3]int64{0, 2, 0}, [3]int64{0, 1, 0}), instance.Params{Capacity: 1, BlockSize: 1, Xi: 0.5}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.p.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := exhaustive.Optimum(c.tr, c.p); got != c.want {
				t.Errorf("Optimum = %v tokens, want %v", got, c.want)
			}
		})
	}
}

// Two conversations share a one-block cache (B = 2 tokens, ξ = 2 tokens):
// each returns needing one block, and only one can have it.
func ExampleOptimum() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 2, 0)
	tr.Append(2, "a", 1, 0)
	tr.Append(3, "b", 1, 0)
	fmt.Println(exhaustive.Optimum(tr, instance.Params{Capacity: 2, BlockSize: 2, Xi: 2}))
	// Output: 1
}
