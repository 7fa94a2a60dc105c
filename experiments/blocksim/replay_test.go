package blocksim_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

var opts = blocksim.Options{Params: instance.Params{BlockSize: 16, Xi: 40}, Model: latency.Default(), SLOMs: 13}

// direct serves s through one cache, request by request, and returns the
// hits (blocks), the hit tokens and the cache.
func direct(t *testing.T, e prefixcache.Entry, capacity int, s *blocktrace.Stream) ([]int, []int64, *prefixcache.Cache) {
	t.Helper()
	par := opts.Params
	par.Capacity = int64(capacity) * par.BlockSize
	p, err := e.New(prefixcache.Config{Params: par})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := prefixcache.New(par.Capacity, par.BlockSize, p)
	in := prefixcache.NewInterner()
	var hits []int
	var tokens []int64
	for i := range s.Requests {
		q, _, err := in.Intern(&s.Requests[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		h, x, err := c.ServeTokens(&q)
		if err != nil {
			t.Fatal(err)
		}
		if _, engine := p.(prefixcache.Engine); !engine && x != min(16*int64(h), q.Input) {
			t.Fatalf("request %d: %d hit blocks, %d tokens", i, h, x)
		}
		hits = append(hits, h)
		tokens = append(tokens, x)
	}
	return hits, tokens, c
}

// The parallel replay of many runs gives each run what one cache served
// alone gives, and its metrics are the per-request sums worked here.
func TestReplayMatchesDirect(t *testing.T) {
	s := randomStream(3, 3000, 5)
	capacities := []int64{0, 16 * 7, 16 * 60}
	results, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(prefixcache.All(), capacities), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(prefixcache.All())*len(capacities) {
		t.Fatalf("%d results", len(results))
	}
	for _, r := range results {
		t.Run(fmt.Sprintf("%s/%d", r.Name, r.CapacityTokens), func(t *testing.T) {
			es, _ := prefixcache.Parse(r.Name)
			hits, tokens, c := direct(t, es[0], int(r.CapacityTokens/16), s)
			var refs, hit int64
			var tel, x, d float64
			viol := int64(0)
			for i, q := range s.Requests {
				refs += int64(len(q.Hashes))
				hit += int64(hits[i])
				b := float64(q.Input - tokens[i]) // the engines count their own hit tokens
				tel += math.Max(b-opts.Xi, 0)
				x += float64(q.Input) - b
				d += float64(q.Input)
				if 10+0.1*b > opts.SLOMs {
					viol++
				}
			}
			m := r.Summary
			if r.Requests != int64(len(s.Requests)) || r.RefBlocks != refs || r.HitBlocks != hit || r.Evictions != c.Evictions() {
				t.Fatalf("requests %d refs %d hits %d evictions %d; direct %d %d %d %d",
					r.Requests, r.RefBlocks, r.HitBlocks, r.Evictions, len(s.Requests), refs, hit, c.Evictions())
			}
			if math.Abs(m.TELTokens-tel) > 1e-9*max(1, tel) || math.Abs(m.HitRatio-x/d) > 1e-12 || m.Violations != viol {
				t.Fatalf("TEL %g hit ratio %g violations %d; direct %g %g %d", m.TELTokens, m.HitRatio, m.Violations, tel, x/d, viol)
			}
			if math.Abs(r.BlockHitRatio-float64(hit)/float64(refs)) > 1e-15 {
				t.Fatalf("block hit ratio %g, want %g", r.BlockHitRatio, float64(hit)/float64(refs))
			}
		})
	}
}

// Ideal figures worked by hand. Chains (B = 16): r0 a→b, r1 a→c, r2 a→b→d,
// r3 e, r4 a. Blocks: a, a/b, a/c, a/b/d, e: 5 distinct of 2+2+3+1+1 = 9
// references, ideal hit ratio 4/9. Live between requests (used before and
// after): after r0 a and a/b (2), after r1 a, a/b (2), after r2 a (1),
// after r3 a (1): peak 2 blocks. Ideal token hits, inputs 30, 32, 40, 10,
// 16: r1 16 of 32, r2 32 of 40, r4 16 of 16: hit ratio 64/128.
func TestIdealHandWorked(t *testing.T) {
	const a, b, c, d, e = 1, 2, 3, 4, 5
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Input: 30, Hashes: []int64{a, b}}, {Time: 1, Input: 32, Hashes: []int64{a, c}},
		{Time: 2, Input: 40, Hashes: []int64{a, b, d}}, {Time: 3, Input: 10, Hashes: []int64{e}},
		{Time: 4, Input: 16, Hashes: []int64{a}},
	}}
	_, id, err := blocksim.Replay(blocktrace.StreamSource(s), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if id.Requests != 5 || id.RefBlocks != 9 || id.Distinct != 5 || id.PeakLiveBlocks != 2 ||
		id.BlockHitRatio != 4.0/9 || id.Summary.HitRatio != 64.0/128 {
		t.Fatalf("ideal %+v", id)
	}
}

// The peak of live blocks against brute force: for every gap between
// requests, count the blocks used both before and after it.
func TestPeakLiveBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		s := randomStream(seed, 200, 4)
		_, id, err := blocksim.Replay(blocktrace.StreamSource(s), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		in := prefixcache.NewInterner()
		uses := map[prefixcache.BlockID][]int{}
		for i := range s.Requests {
			q, _, _ := in.Intern(&s.Requests[i], nil)
			for _, b := range q.Blocks {
				uses[b] = append(uses[b], i)
			}
		}
		var peak int64
		for gap := 0; gap < len(s.Requests); gap++ { // between request gap and gap+1
			var live int64
			for _, u := range uses {
				if u[0] <= gap && u[len(u)-1] > gap {
					live++
				}
			}
			peak = max(peak, live)
		}
		if id.PeakLiveBlocks != peak {
			t.Fatalf("seed %d: peak %d, brute force %d", seed, id.PeakLiveBlocks, peak)
		}
	}
}

// The ideal figures over more blocks than one page of the feeder's table
// of uses (2^16): a single-block stream of 3·10^5 requests to 2·10^5
// objects, against a count by difference array (each reused block is live
// over the gaps [first use, last use)) and the distinct objects counted
// in a map.
func TestPeakLiveManyPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, objects = 300_000, 200_000
	s := &blocktrace.Stream{BlockTokens: 16}
	first, last := map[int64]int{}, map[int64]int{}
	for i := 0; i < n; i++ {
		h := rng.Int64N(objects)
		if i%3 == 0 {
			h = rng.Int64N(100) // a hot set
		}
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i), Input: 16, Hashes: []int64{h}, Conv: -1})
		if _, ok := first[h]; !ok {
			first[h] = i
		}
		last[h] = i
	}
	diff := make([]int64, n+1)
	for h, f := range first {
		if l := last[h]; l > f {
			diff[f]++
			diff[l]--
		}
	}
	var live, peak int64
	for gap := 0; gap < n; gap++ {
		live += diff[gap]
		peak = max(peak, live)
	}
	_, id, err := blocksim.Replay(blocktrace.StreamSource(s), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if id.Distinct != int64(len(first)) || id.RefBlocks != n || id.PeakLiveBlocks != peak || id.Distinct <= 1<<16 {
		t.Fatalf("ideal: %d distinct, %d refs, peak %d; want %d, %d, %d", id.Distinct, id.RefBlocks, id.PeakLiveBlocks, len(first), n, peak)
	}
}

// The ideal block hit ratios of the Mooncake traces as stated in
// shared/data/README.md (references, distinct blocks, ratio to 3 places).
func TestIdealMooncake(t *testing.T) {
	cases := []struct {
		file           string
		refs, distinct int64
		ratio          float64
	}{
		{"conversation_trace.jsonl", 288500, 182790, 0.366},
		{"synthetic_trace.jsonl", 121877, 43924, 0.640},
	}
	for _, tc := range cases {
		s := loadMooncake(t, tc.file)
		o := opts
		o.BlockSize = 512
		_, id, err := blocksim.Replay(blocktrace.StreamSource(s), nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if id.RefBlocks != tc.refs || id.Distinct != tc.distinct || math.Abs(id.BlockHitRatio-tc.ratio) > 0.0005 {
			t.Errorf("%s: %d refs, %d distinct, ratio %.4f; README %d, %d, %.3f", tc.file, id.RefBlocks, id.Distinct, id.BlockHitRatio, tc.refs, tc.distinct, tc.ratio)
		}
	}
}

func TestReplayErrors(t *testing.T) {
	ok := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Input: 4, Hashes: []int64{1}}}}
	lru, _ := prefixcache.Parse("lru")
	cases := []struct {
		name string
		s    *blocktrace.Stream
		runs []blocksim.Run
	}{
		{"capacity not a multiple", ok, []blocksim.Run{{Name: "lru", New: lru[0].New, Capacity: 17}}},
		{"negative input", &blocktrace.Stream{Requests: []blocktrace.Request{{Input: -1}}}, nil},
		{"time going back", &blocktrace.Stream{Requests: []blocktrace.Request{{Time: 2, Input: 1}, {Time: 1, Input: 1}}}, nil},
	}
	for _, tc := range cases {
		if _, _, err := blocksim.Replay(blocktrace.StreamSource(tc.s), tc.runs, opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// The instance is checked before the trace is read: a block size below one
// token, a capacity that is not a whole number of blocks, and forced
// caching (which the block level does not have) are errors.
func TestReplayRejectsBadInstance(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Input: 10, Hashes: []int64{1}}}}
	lru := prefixcache.All()[0]
	bad := func(o blocksim.Options, capacity int64) error {
		_, _, err := blocksim.Replay(blocktrace.StreamSource(s), []blocksim.Run{{Name: lru.Name, New: lru.New, Capacity: capacity}}, o)
		return err
	}
	zeroBlock, forced := opts, opts
	zeroBlock.BlockSize = 0
	forced.Forced = true
	for name, err := range map[string]error{"block 0": bad(zeroBlock, 0), "capacity 20 of 16-token blocks": bad(opts, 20),
		"forced": bad(forced, 32)} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := bad(opts, 32); err != nil {
		t.Errorf("a valid instance: %v", err)
	}
}
