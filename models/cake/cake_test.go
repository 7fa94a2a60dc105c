package cake

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/tier"
)

// near compares sums of the same costs added in different orders: equal
// up to 1e-12 relative (a few ulps per addition for ≤ 40 terms).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// bruteSplit scans every split point k = 0..n.
func bruteSplit(c Costs) (int, float64) {
	n := c.Chunks()
	bestK, best := -1, math.Inf(1)
	for k := 0; k <= n; k++ {
		var cs, ls float64
		for j := 0; j < k; j++ {
			cs += c.Compute[j]
		}
		for j := k; j < n; j++ {
			ls += c.Load[j]
		}
		if t := math.Max(cs, ls); t < best {
			bestK, best = k, t
		}
	}
	return bestK, best
}

func genCosts(t *rapid.T) Costs {
	n := rapid.IntRange(1, 40).Draw(t, "chunks")
	if rapid.Bool().Draw(t, "affine") {
		return Affine(n, rapid.Float64Range(0, 5).Draw(t, "base"), rapid.Float64Range(0, 2).Draw(t, "slope"),
			rapid.Float64Range(0, 20).Draw(t, "load"))
	}
	c := Costs{Compute: make([]float64, n), Load: make([]float64, n)}
	for j := range n { // arbitrary non-negative costs, with ties and zeros
		c.Compute[j] = float64(rapid.IntRange(0, 9).Draw(t, "c"))
		c.Load[j] = float64(rapid.IntRange(0, 9).Draw(t, "l"))
	}
	return c
}

// The binary-searched static split equals a brute-force scan over split
// points: the same TTFT, reached at the returned k.
func TestStaticSplitMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCosts(t)
		s := StaticSplit(c)
		k, best := bruteSplit(c)
		var cs, ls float64 // TTFT of the returned split, recomputed
		for j := range c.Chunks() {
			if j < s.Computed {
				cs += c.Compute[j]
			} else {
				ls += c.Load[j]
			}
		}
		if !near(s.TTFT, best) || !near(math.Max(cs, ls), best) || s.Loaded != c.Chunks()-s.Computed {
			t.Fatalf("static split k=%d TTFT %v (recomputed %v); brute force k=%d TTFT %v", s.Computed, s.TTFT, math.Max(cs, ls), k, best)
		}
	})
}

// The bidirectional schedule never loses to compute-only or load-only, and
// in this deterministic model it attains the best static split.
func TestBidirectionalNeverLoses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCosts(t)
		b := Bidirectional(c)
		co, lo := ComputeOnly(c), LoadOnly(c)
		if b.TTFT > co.TTFT || b.TTFT > lo.TTFT {
			t.Fatalf("bidirectional %v loses: compute-only %v, load-only %v", b.TTFT, co.TTFT, lo.TTFT)
		}
		_, best := bruteSplit(c)
		if !near(b.TTFT, best) {
			t.Fatalf("bidirectional %v, best static split %v", b.TTFT, best)
		}
		if b.Computed+b.Loaded < c.Chunks() || b.Wasted < 0 {
			t.Fatalf("bidirectional covers %d+%d of %d chunks, wasted %v", b.Computed, b.Loaded, c.Chunks(), b.Wasted)
		}
		cl := BidirectionalClaim(c)
		if cl.Computed+cl.Loaded != c.Chunks() || cl.TTFT < best*(1-1e-12) {
			t.Fatalf("claim variant: %d+%d chunks, TTFT %v below the optimum %v", cl.Computed, cl.Loaded, cl.TTFT, best)
		}
	})
}

// Hand-worked schedules.
func TestHandWorked(t *testing.T) {
	cases := []struct {
		name      string
		c         Costs
		co, lo    float64
		split     int
		splitTTFT float64
		bi        Schedule
		claim     float64
	}{
		{
			// Compute 1,2,3,4 (affine), load 3 each. Splits k=0..4:
			// max(0,12)=12, max(1,9)=9, max(3,6)=6, max(6,3)=6, max(10,0)=10.
			// Bidirectional: compute ends chunks at 1, 3, 6; load at 3, 6.
			// At t=3 compute has 2 and load 1 (3 of 4); the compute starts
			// chunk 2 (ends 6), the load starts chunk 2 too (ends 6): both
			// finish it at 6.
			name: "affine", c: Affine(4, 1, 1, 3), co: 10, lo: 12, split: 2, splitTTFT: 6,
			bi:    Schedule{TTFT: 6, Computed: 3, Loaded: 2, Wasted: 3},
			claim: 6,
		},
		{
			// The claim variant's trap: the load takes chunk 2 at t=0 and
			// finishes it at 100; compute-only is 3.
			name: "slow load", c: Costs{Compute: []float64{1, 1, 1}, Load: []float64{100, 100, 100}},
			co: 3, lo: 300, split: 3, splitTTFT: 3,
			bi:    Schedule{TTFT: 3, Computed: 3, Loaded: 0, Wasted: 3},
			claim: 100,
		},
	}
	for _, c := range cases {
		if got := ComputeOnly(c.c).TTFT; got != c.co {
			t.Errorf("%s: compute-only %v, want %v", c.name, got, c.co)
		}
		if got := LoadOnly(c.c).TTFT; got != c.lo {
			t.Errorf("%s: load-only %v, want %v", c.name, got, c.lo)
		}
		if s := StaticSplit(c.c); s.Computed != c.split || s.TTFT != c.splitTTFT {
			t.Errorf("%s: split %+v, want k=%d TTFT %v", c.name, s, c.split, c.splitTTFT)
		}
		b := Bidirectional(c.c)
		if b.TTFT != c.bi.TTFT || b.Computed != c.bi.Computed || b.Loaded != c.bi.Loaded || b.Wasted != c.bi.Wasted {
			t.Errorf("%s: bidirectional %+v, want %+v", c.name, b, c.bi)
		}
		if got := BidirectionalClaim(c.c).TTFT; got != c.claim {
			t.Errorf("%s: claim variant %v, want %v", c.name, got, c.claim)
		}
	}
}

// FromModel's compute costs sum, whatever the chunking, to the closed form
// of a whole causal prefill, (2·params·N + 2·layers·heads·head_dim·N(N+1))
// / FLOP/s; they grow by the same step from chunk to chunk (but the last,
// shorter one); loads are bytes over bandwidth. For Llama-2-7B on an A100
// at 50% that whole prefill of 10,000 tokens takes 1.03 s, the paper's
// "approximately 1 second" (§2.3).
func TestFromModel(t *testing.T) {
	cfg, _ := kvsize.Preset("llama-2-7b")
	nvme, _ := tier.Lookup("nvme")
	const flops = 156e12
	for _, tc := range []struct{ tokens, chunk int }{{10000, 512}, {10000, 10000}, {4096, 512}, {1000, 7}} {
		c, err := FromModel(cfg, nvme, flops, tc.tokens, tc.chunk, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(tc.tokens)
		want := (2*cfg.Params*n + 2*32*32*128*n*(n+1)) / flops
		if got := ComputeOnly(c).TTFT; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%+v: compute-only %v s, want %v", tc, got, want)
		}
		if got, w := LoadOnly(c).TTFT, n*524288/3e9; math.Abs(got-w) > 1e-9*w {
			t.Errorf("%+v: load-only %v s, want %v", tc, got, w)
		}
		full := tc.tokens / tc.chunk
		for j := 2; j < full; j++ {
			d1, d0 := c.Compute[j]-c.Compute[j-1], c.Compute[j-1]-c.Compute[j-2]
			if math.Abs(d1-d0) > 1e-9*d0 {
				t.Errorf("%+v: chunk %d step %v, previous %v: not affine", tc, j, d1, d0)
			}
		}
		if tc.tokens == 10000 && math.Abs(want-1.03) > 0.01 {
			t.Errorf("10k-token prefill %v s, want ≈ 1.03 s", want)
		}
	}
	if _, err := FromModel(cfg, nvme, flops, 0, 512, 0); err == nil {
		t.Error("zero tokens accepted")
	}
	if err := (Costs{Compute: []float64{1}, Load: []float64{-1}}).Validate(); err == nil {
		t.Error("negative cost accepted")
	}
}

func BenchmarkSchedules(b *testing.B) {
	c := Affine(256, 0.01, 0.001, 0.05)
	b.Run("static", func(b *testing.B) {
		for b.Loop() {
			StaticSplit(c)
		}
	})
	b.Run("bidirectional", func(b *testing.B) {
		for b.Loop() {
			Bidirectional(c)
		}
	})
}
