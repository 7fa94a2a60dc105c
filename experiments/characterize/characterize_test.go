package characterize

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

func req(t float64, conv int, cat string, chain ...int64) blocktrace.Request {
	return blocktrace.Request{Time: t, Input: int64(16 * len(chain)), Hashes: chain, Conv: conv, Category: cat}
}

// TestHandWorked checks every figure on a stream worked by hand (16-token
// blocks). Blocks: a=(−,1), b=(a,2), c=(b,3), d=(a,4), e=(−,2) — hash 2
// after a and at the root are different blocks.
func TestHandWorked(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		req(0, 0, "text", 1, 2),    // uses a b (new)
		req(2, 1, "search", 1, 4),  // a reused (2 s, prev text-1), d new
		req(5, 0, "text", 1, 2, 3), // a (3 s, prev search-1), b (5 s, prev text-1), c new
		req(6, 2, "text", 2),       // e new
		req(10, 0, "text", 1, 2),   // a (5 s, prev text-2), b (5 s, prev text-2)
	}}
	rep, err := Run(blocktrace.StreamSource(s), 16, Options{MaxTurn: 2})
	if err != nil {
		t.Fatal(err)
	}
	// 2+2+3+1+2 = 10 uses, 5 distinct blocks: ideal hit ratio 1/2.
	if rep.RefBlocks != 10 || rep.DistinctBlocks != 5 || math.Abs(*rep.IdealHitRatio-0.5) > 1e-15 {
		t.Errorf("refs %d distinct %d ratio %v, want 10, 5, 1/2", rep.RefBlocks, rep.DistinctBlocks, *rep.IdealHitRatio)
	}
	// Live after each request: {a,b}; {a,b} (d dead); {a,b} (c dead); {a,b}; {}.
	if c := rep.Capacity; c.PeakLiveBlocks != 2 || c.PeakLiveTokens != 32 || c.PeakAfter != 0 || c.PeakTime != 0 || c.MeanLiveBlocks != 8.0/5 {
		t.Errorf("capacity %+v, want peak 2 blocks (32 tokens) after request 0, mean 8/5", c)
	}
	// Categories: search-1 (uses a d; a's reuse at t=5 after 3 s), text-1
	// (first request and e: uses a b e; reuses of a at 2 s, b at 5 s),
	// text-2+ (turns 2 and 3 pooled: uses a b c a b; reuses a, b at 5 s).
	want := []struct {
		name         string
		uses, reuses int64
		median, mean float64
	}{
		{"search-1", 2, 1, 3, 3},
		{"text-1", 3, 2, 2, 3.5},
		{"text-2+", 5, 2, 5, 5},
	}
	if len(rep.Categories) != len(want) {
		t.Fatalf("categories %+v", rep.Categories)
	}
	for i, w := range want {
		c := rep.Categories[i]
		if c.Name != w.name || c.Uses != w.uses || c.Reuses != w.reuses || c.ReuseTime.P50 != w.median || c.ReuseTime.Mean != w.mean {
			t.Errorf("category %d: %s uses %d reuses %d median %v mean %v, want %+v", i, c.Name, c.Uses, c.Reuses, c.ReuseTime.P50, c.ReuseTime.Mean, w)
		}
	}
	if o := rep.Overall; o.Reuses != 5 || o.Uses != 10 || o.ReuseTime.Mean != 4 || o.ReuseTime.Max != 5 || o.ReuseTime.P10 != 2 {
		t.Errorf("overall %+v", o)
	}
	// Lifespans: a 10, b 10, c 0, d 0, e 0; reused: a, b.
	if l := rep.Lifespan; l.Blocks != 5 || l.Reused != 2 || l.All.P50 != 0 || l.All.Max != 10 || l.All.Mean != 4 || l.ReusedSpan.P10 != 10 {
		t.Errorf("lifespan %+v", l)
	}
	// Hubs: a has children b and d; nothing else branches. a is on 4 of 5
	// requests and b on 3: at share 0.7 only a (depth 1) counts, at 0.5 b
	// (depth 2) does too.
	if len(rep.Hubs) != 1 || rep.Hubs[0] != (Hub{Depth: 1, DepthTokens: 16, Fanout: 2, Requests: 4, Hash: 1}) {
		t.Errorf("hubs %+v", rep.Hubs)
	}
	rep2, _ := Run(blocktrace.StreamSource(s), 16, Options{SharedShare: 0.7})
	rep3, _ := Run(blocktrace.StreamSource(s), 16, Options{SharedShare: 0.5})
	if rep2.SharedPrefixBlocks != 1 || rep3.SharedPrefixBlocks != 2 {
		t.Errorf("shared prefix %d blocks at share 0.7, %d at 0.5; want 1, 2", rep2.SharedPrefixBlocks, rep3.SharedPrefixBlocks)
	}
	if rep.Requests != 5 || rep.SpanS != 10 || rep.InputTokens != 16*10 {
		t.Errorf("requests %d span %v input %d", rep.Requests, rep.SpanS, rep.InputTokens)
	}
}

func TestRejects(t *testing.T) {
	bad := []*blocktrace.Stream{
		{Requests: []blocktrace.Request{req(1, 0, ""), req(0, 0, "")}},
		{Requests: []blocktrace.Request{{Input: -1}}},
	}
	for i, s := range bad {
		if _, err := Run(blocktrace.StreamSource(s), 16, Options{}); err == nil {
			t.Errorf("stream %d accepted", i)
		}
	}
	if _, err := Run(blocktrace.StreamSource(&blocktrace.Stream{}), 0, Options{}); err == nil {
		t.Error("block size 0 accepted")
	}
}

// optimalHits is the offline optimum of a prefix cache of capacity blocks,
// by exhaustive dynamic programming over cache contents: after each
// request the cache may keep any parent-closed set of at most capacity
// blocks among those it held and those the request used; a request hits
// the cached blocks of its chain (a prefix, the set being parent-closed).
// chains are given as node ids (< 16) with parent[id] (−1 for a root).
func optimalHits(chains [][]int, parent []int, capacity int) int {
	closed := func(s uint32) bool {
		for x := s; x != 0; x &= x - 1 {
			id := bits.TrailingZeros32(x)
			if p := parent[id]; p >= 0 && s&(1<<p) == 0 {
				return false
			}
		}
		return true
	}
	best := map[uint32]int{0: 0}
	for _, ch := range chains {
		var used uint32
		for _, id := range ch {
			used |= 1 << id
		}
		next := map[uint32]int{}
		for s, h := range best {
			h += bits.OnesCount32(s & used)
			all := s | used
			for sub := all; ; sub = (sub - 1) & all {
				if bits.OnesCount32(sub) <= capacity && closed(sub) {
					if v, ok := next[sub]; !ok || h > v {
						next[sub] = h
					}
				}
				if sub == 0 {
					break
				}
			}
		}
		best = next
	}
	m := 0
	for _, h := range best {
		m = max(m, h)
	}
	return m
}

// TestCapacityIsMinimal checks on random small streams that the peak live
// count is the least capacity at which the offline optimum reaches the
// infinite-cache hits: at the peak it does, one block below it does not.
func TestCapacityIsMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tried := 0
	peaks := map[int]int{}
	for tried < 300 {
		var reqs []blocktrace.Request
		type key struct {
			parent int
			hash   int64
		}
		ids := map[key]int{}
		var parent []int
		var chains [][]int
		n := 2 + rng.IntN(7)
		for i := range n {
			depth := 1 + rng.IntN(4)
			var chain []int64
			var nodes []int
			p := -1
			for range depth {
				h := int64(rng.IntN(3))
				chain = append(chain, h)
				k := key{p, h}
				id, ok := ids[k]
				if !ok {
					id = len(parent)
					ids[k] = id
					parent = append(parent, p)
				}
				nodes = append(nodes, id)
				p = id
			}
			reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Input: int64(len(chain)), Hashes: chain, Conv: -1})
			chains = append(chains, nodes)
		}
		if len(parent) > 12 {
			continue
		}
		tried++
		rep, err := Run(blocktrace.StreamSource(&blocktrace.Stream{BlockTokens: 1, Requests: reqs}), 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ideal := int(rep.RefBlocks - rep.DistinctBlocks)
		if int(rep.DistinctBlocks) != len(parent) {
			t.Fatalf("distinct %d, brute force %d", rep.DistinctBlocks, len(parent))
		}
		peak := int(rep.Capacity.PeakLiveBlocks)
		peaks[peak]++
		if got := optimalHits(chains, parent, peak); got != ideal {
			t.Fatalf("stream %v: optimum at the peak %d blocks hits %d, ideal %d", chains, peak, got, ideal)
		}
		if peak > 0 {
			if got := optimalHits(chains, parent, peak-1); got >= ideal {
				t.Fatalf("stream %v: optimum at %d blocks (peak − 1) hits %d, ideal %d", chains, peak-1, got, ideal)
			}
		} else if ideal != 0 {
			t.Fatalf("peak 0 with %d ideal hits", ideal)
		}
	}
	if peaks[0] == tried || peaks[2]+peaks[3]+peaks[4] == 0 {
		t.Errorf("generator too narrow: peaks %v", peaks)
	}
}
