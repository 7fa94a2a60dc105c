package prefixcache_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// req builds request i with the given chain; input is in tokens.
func req(i int, input int64, chain ...int64) blocktrace.Request {
	return blocktrace.Request{Index: i, Time: float64(i), Input: input, Hashes: chain, Conv: -1}
}

// singles is a stream of one-block requests, one per id, at 1 s intervals.
func singles(ids ...int64) []blocktrace.Request {
	var out []blocktrace.Request
	for i, id := range ids {
		out = append(out, req(i, 16, id))
	}
	return out
}

// inBlocks is a configuration of capacity n blocks of 16 tokens.
func inBlocks(n int64) prefixcache.Config {
	return prefixcache.Config{Params: instance.Params{Capacity: 16 * n, BlockSize: 16}}
}

func hitsUnder(t *testing.T, name string, cfg prefixcache.Config, reqs []blocktrace.Request) []int {
	t.Helper()
	es, err := prefixcache.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := es[0].New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := prefixcache.New(cfg.Capacity, cfg.BlockSize, p)
	in := prefixcache.NewInterner()
	var out []int
	for i := range reqs {
		q, _, err := in.Intern(&reqs[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := c.Serve(&q)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Check(); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		out = append(out, h)
	}
	return out
}

// Each case is worked by hand in its comment; hits are in blocks.
func TestHandWorked(t *testing.T) {
	const a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
	prefix := []blocktrace.Request{req(0, 32, a, b), req(1, 16, c), req(2, 32, a, d), req(3, 32, a, b), req(4, 16, c)}
	tlruStream := []blocktrace.Request{req(0, 48, a, b, c), req(1, 16, d), req(2, 16, e), req(3, 16, f), req(4, 48, a, b, c)}
	cases := []struct {
		name   string
		policy string
		cfg    prefixcache.Config
		reqs   []blocktrace.Request
		want   []int
	}{
		// Capacity 3. r0 caches a→b, r1 c. r2 hits a, pins it and evicts the
		// older leaf b (not a, which has a cached child), admits d. r3 hits
		// a, evicts leaf c (used at 1; d was used at 2). r4 misses c and
		// evicts d (used at 2; b at 3).
		{"prefix rule", "lru", inBlocks(3), prefix, []int{0, 0, 1, 1, 0}},
		// Capacity 2, x y x z x: LRU evicts y for z and keeps x.
		{"lru", "lru", inBlocks(2), singles(a, b, a, c, a), []int{0, 0, 1, 0, 1}},
		// FIFO ignores x's hit: z evicts x, the first admitted.
		{"fifo", "fifo", inBlocks(2), singles(a, b, a, c, a), []int{0, 0, 1, 0, 0}},
		// x x y z x: LFU evicts y (1 use) rather than x (2 uses).
		{"lfu", "lfu", inBlocks(2), singles(a, a, b, c, a), []int{0, 1, 0, 0, 1}},
		// x x x y w v x: scores uses + index of latest use. At w (4): x 3+2=5,
		// y 1+3=4 → y goes. At v (5): x 5, w 1+4=5, tie to the older use →
		// x goes, so the last x misses (LFU would keep x: 3 uses vs 1).
		{"aging-lfu", "aging-lfu", inBlocks(2), singles(a, a, a, b, c, d, a), []int{0, 1, 1, 0, 0, 0, 0}},
		{"lfu keeps x", "lfu", inBlocks(2), singles(a, a, a, b, c, d, a), []int{0, 1, 1, 0, 0, 0, 1}},
		// x x x y w v u: H = L + uses. x 3, y 1. w evicts y (L=1), H_w=2. v
		// evicts w (2 < 3; L=2), H_v=3. u: x 3 (used at 2) and v 3 (used at
		// 5) tie, the older x goes (L=3).
		{"gdsf", "gdsf", inBlocks(2), singles(a, a, a, b, c, d, e), []int{0, 1, 1, 0, 0, 0, 0}},
		{"gdsf then x", "gdsf", inBlocks(2), singles(a, a, a, b, c, d, e, a), []int{0, 1, 1, 0, 0, 0, 0, 0}},
		{"lfu then x", "lfu", inBlocks(2), singles(a, a, a, b, c, d, e, a), []int{0, 1, 1, 0, 0, 0, 0, 1}},
		// Capacity 4, B = 16, ξ = 30, Q̂ = 10: a leaf at depth d with reach R
		// is safe iff 16·d ≥ R + 10 − 30. r0 a→b→c (R 48): c safe (32 ≥ 28).
		// r1 d, r2 e, r3 f (R 16, depth 0: 0 ≥ −4, safe). r2 evicts the LRU
		// safe leaf c; r3: leaves b (16 < 28, unsafe), d, e → d. r4 hits a→b
		// (2 blocks: 16 uncached tokens ≤ ξ, no excess).
		{"tlru", "tlru", prefixcache.Config{Params: instance.Params{Capacity: 4 * 16, BlockSize: 16, Xi: 30}, QHat: 10}, tlruStream, []int{0, 0, 0, 0, 2}},
		// LRU evicts b at r3 (used at 0), so r4 hits a only: 32 uncached.
		{"lru on the tlru stream", "lru", inBlocks(4), tlruStream, []int{0, 0, 0, 0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := hitsUnder(t, tc.policy, tc.cfg, tc.reqs); !slices.Equal(got, tc.want) {
				t.Errorf("hits %v, want %v", got, tc.want)
			}
		})
	}
}

// S3-FIFO at capacity 10: small holds 1 block, main 9, the ghost 9 ids.
// a a a fills small with a (2 hits); b1…b9 follow, all in small (main is
// empty, so small gives). c: small's oldest, a, was hit twice and moves to
// main; the next, b1, was not and goes to the ghost. b1 again: found in the
// ghost, admitted to main; b2 leaves for the ghost. a hits (in main). b2 is
// in the ghost: admitted to main. LRU instead evicts a for c and hits b1.
func TestS3FIFOHandWorked(t *testing.T) {
	ids := []int64{1, 1, 1}
	for b := int64(11); b <= 19; b++ {
		ids = append(ids, b)
	}
	ids = append(ids, 20, 11, 1, 12)
	want := []int{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}
	if got := hitsUnder(t, "s3fifo", inBlocks(10), singles(ids...)); !slices.Equal(got, want) {
		t.Errorf("s3fifo hits %v, want %v", got, want)
	}
	wantLRU := []int{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}
	if got := hitsUnder(t, "lru", inBlocks(10), singles(ids...)); !slices.Equal(got, wantLRU) {
		t.Errorf("lru hits %v, want %v", got, wantLRU)
	}
}

// With one category, the workload-aware policy compares only the oldest
// evictable block of that category: it is LRU by time.
func TestWorkloadAwareOneCategoryIsLRU(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		reqs := randomTreeStream(newRand(seed), 1500, 5)
		for _, capacity := range []int{3, 25} {
			lru := engineHits(t, "lru", capacity, reqs)
			wa := engineHits(t, "workload-aware", capacity, reqs)
			if !slices.Equal(lru, wa) {
				t.Fatalf("seed %d capacity %d: workload-aware differs from LRU on a one-category trace", seed, capacity)
			}
		}
	}
}

// Two categories at capacity 2: "fast" blocks are reused 1 s after a use
// (20 times), "slow" ones 100 s after (20 times), each with reuse
// probability 20/40 per use. Fits: fast rate 1/s, lifespan 1.024 s (the
// upper edge of the histogram bin of 1000 ms); slow rate 0.01/s, lifespan
// 110.2 s. A slow contender is used at 200 s and a fast one at 210 s (each
// evicting an older history block). At 270 s a newcomer needs room: the fast
// contender, idle 60 s, is past its lifespan (probability 0), the slow one,
// idle 70 s, is not, so the workload-aware policy evicts the fast one and
// the slow contender hits at 271 s. LRU evicts the slow contender (older).
func TestWorkloadAwarePrefersLikelyReuse(t *testing.T) {
	var reqs []blocktrace.Request
	add := func(tm float64, cat string, id int64) {
		reqs = append(reqs, blocktrace.Request{Index: len(reqs), Time: tm, Input: 16, Hashes: []int64{id}, Category: cat, Conv: -1})
	}
	for i := int64(0); i < 20; i++ {
		add(float64(i), "slow", 1000+i)
		add(float64(i)+0.5, "fast", 2000+i)
		add(float64(i)+1.5, "fast", 2000+i)
	}
	for i := int64(0); i < 20; i++ {
		add(100+float64(i), "slow", 1000+i)
	}
	add(200, "slow", 1)
	add(210, "fast", 2)
	add(270, "fast", 3)
	add(271, "slow", 1)
	slices.SortStableFunc(reqs, func(x, y blocktrace.Request) int { return cmp.Compare(x.Time, y.Time) })
	n := len(reqs)
	if wa := engineHits(t, "workload-aware", 2, reqs); wa[n-1] != 1 {
		t.Errorf("workload-aware: slow contender hit %d blocks, want 1", wa[n-1])
	}
	if lru := engineHits(t, "lru", 2, reqs); lru[n-1] != 0 {
		t.Errorf("lru: slow contender hit %d blocks, want 0", lru[n-1])
	}
}

// Prefix T-LRU's dead-block rule (B = 16, ξ = 30, Q̂ = 10, capacity 3).
// Warm-up: pairs of uses of single blocks one second apart, so every reuse
// time is 1 s and, from 16 reuses on, the lifespan is 1.024 s (the edge of
// the bin of 1000 ms). Then x→y (input 48: the leaf y at depth 1 is unsafe,
// 16 < 48 + 10 − 30) at 50 s, z at 60 s, v at 60.2 s and z at 60.4 s.
// With 20 pairs, y and then x are dead (idle 10 s) and go first, so z
// survives and hits. With 10 pairs (too few reuses, no lifespan) plain
// T-LRU evicts the safe blocks first: the warm-up leftover for z, then z
// itself for v, keeping the dead x→y, and z misses.
func TestTLRUDeadBlocks(t *testing.T) {
	for _, tc := range []struct {
		pairs, want int
	}{{20, 1}, {10, 0}} {
		var reqs []blocktrace.Request
		add := func(tm float64, input int64, chain ...int64) {
			reqs = append(reqs, blocktrace.Request{Index: len(reqs), Time: tm, Input: input, Hashes: chain, Conv: -1})
		}
		for i := 0; i < tc.pairs; i++ {
			add(float64(2*i), 16, int64(100+i))
			add(float64(2*i+1), 16, int64(100+i))
		}
		add(50, 48, 1, 2)
		add(60, 16, 3)
		add(60.2, 16, 4)
		add(60.4, 16, 3)
		got := hitsUnder(t, "tlru", prefixcache.Config{Params: instance.Params{Capacity: 3 * 16, BlockSize: 16, Xi: 30}, QHat: 10}, reqs)
		if got[len(got)-1] != tc.want {
			t.Errorf("%d warm-up pairs: last request hit %d blocks, want %d", tc.pairs, got[len(got)-1], tc.want)
		}
	}
}
