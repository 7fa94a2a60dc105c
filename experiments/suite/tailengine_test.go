package suite

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// The engine T-LRU's record, worked by hand. B = 16 tokens, room for 8
// blocks, N = ξ = 16 tokens (1 block), α = 0.1 ms/token, β = 10 ms.
//
//	turn 0, conversation a, prompt 32: chain a0 a1 (32 tokens), nothing
//	   cached: 32 uncached, TTFT 13.2 ms, TEL max(32 − 16, 0) = 16 tokens.
//	turn 1, conversation b, prompt 20: chain b0 b1 (b1 partial): 20
//	   uncached, TTFT 12 ms, TEL 4.
//	turn 2, conversation a, prompt 16 (history 32 + response 8): load 56,
//	   chain a0 a1 a2' a3 (a2' holds the response and 8 prompt tokens,
//	   a3 8 tokens): the binary search over its 3 full blocks finds a0 a1
//	   cached, a2' not: 32 tokens hit, 24 uncached, TTFT 12.4 ms, TEL 8.
//
// TEL 28 tokens = 2.8 ms; SLO 12.2 ms: turns 0 and 2 violate it.
func TestEngineTLRURecord(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 32, 8)
	tr.Append(1, "b", 20, 0)
	tr.Append(2, "a", 16, 0)
	r, err := engineTLRURecord(tr, 8*16, 16, latency.Default(), 16, 12.2)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"tel_ms": 2.8, "violations": 2, "p50": 12.4, "mean_ms": (13.2 + 12 + 12.4) / 3} {
		if got := r.V(k); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	if r.Key != engineTLRU {
		t.Errorf("key %q", r.Key)
	}
}
