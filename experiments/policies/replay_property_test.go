package policies_test

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/replay/replaytest"
	"github.com/tailbound/tailbound/models/trace"
)

// TestInvariants replays random traces under every policy and checks after
// every turn, by its own bookkeeping: each amount is a whole number of
// blocks, at most the conversation's history, never grown between its
// turns, and the sum is within capacity; and that the reported TEL equals
// the sum of the per-turn excesses max(b − ξ, 0).
func TestInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 6, MinTurns: 1, MaxTurns: 40, MaxPrompt: 300, MaxResponse: 300}).Draw(t, "trace")
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(t, "block")
		capacity := block * rapid.Int64Range(0, 64).Draw(t, "capacity blocks")
		xi := rapid.Float64Range(-50, 600).Draw(t, "xi")
		forced := rapid.Bool().Draw(t, "forced")
		fut := trace.NewHindsight(tr.Turns, tr.Conversations())
		for _, e := range policies.All() {
			p, err := e.New(policy.Config{Params: instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced}, Threshold: 200, Future: fut})
			if err != nil {
				t.Fatal(err)
			}
			s, _ := cache.New(instance.Params{Capacity: capacity, BlockSize: block, Forced: forced})
			hist := map[int]int64{}
			prev := map[int]int64{}
			var tel float64
			for _, u := range tr.Turns {
				h, x := s.Begin(u.Conv, u.Prompt, u.Response)
				if h != hist[u.Conv] || x != prev[u.Conv] {
					t.Fatalf("%s turn %d: engine reports H=%d x=%d, own bookkeeping H=%d x=%d", e.Name, u.Index, h, x, hist[u.Conv], prev[u.Conv])
				}
				tel += math.Max(float64(h+u.Prompt-x)-xi, 0)
				hist[u.Conv] += u.Prompt + u.Response
				if err := p.Update(s, u); err != nil {
					t.Fatalf("%s turn %d: %v", e.Name, u.Index, err)
				}
				if err := s.End(); err != nil {
					t.Fatalf("%s turn %d: %v", e.Name, u.Index, err)
				}
				var total int64
				for c := 0; c < tr.Conversations(); c++ {
					a := s.Cached(c)
					total += a
					switch {
					case a%block != 0:
						t.Fatalf("%s turn %d: conversation %d holds %d tokens, not whole %d-token blocks", e.Name, u.Index, c, a, block)
					case a > hist[c]:
						t.Fatalf("%s turn %d: conversation %d holds %d tokens, history %d", e.Name, u.Index, c, a, hist[c])
					case c != u.Conv && a > prev[c]:
						t.Fatalf("%s turn %d: conversation %d grew from %d to %d between its turns", e.Name, u.Index, c, prev[c], a)
					case forced && c == u.Conv && a != min(hist[c]/block*block, capacity):
						t.Fatalf("%s turn %d: forced caching kept %d of %d tokens", e.Name, u.Index, a, hist[c])
					}
					prev[c] = a
				}
				if total > capacity {
					t.Fatalf("%s turn %d: %d tokens cached, capacity %d", e.Name, u.Index, total, capacity)
				}
			}
			p2, _ := e.New(policy.Config{Params: instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced}, Threshold: 200, Future: fut})
			res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: e.Name, Policy: p2}},
				replay.Options{Params: instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced}, Model: latency.Default(), SLOMs: 200})
			if err != nil {
				t.Fatal(err)
			}
			// Both sums add the same float64 terms in the same order.
			if got := res[0].Summary.TELTokens; got != tel {
				t.Fatalf("%s: replay TEL %v, sum of per-turn excesses %v", e.Name, got, tel)
			}
		}
	})
}
