package prefixcache_test

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// engineStep is one request of a hand-worked engine replay and what the
// engine's rules give for it, worked out by hand in the comments.
type engineStep struct {
	blocks    []prefixcache.BlockID
	input     int64 // tokens
	hit       int   // blocks
	tokens    int64 // hit tokens
	evictions int64 // blocks evicted so far
}

// replayEngine serves steps through engine name at capacity blocks of 16
// tokens and checks each step's hit and evictions and the invariants.
func replayEngine(t *testing.T, name string, capacity int64, opts map[string]string, steps []engineStep, after func(i int, p prefixcache.Policy)) {
	t.Helper()
	es, err := prefixcache.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := es[0].New(prefixcache.Config{Params: instance.Params{Capacity: capacity * 16, BlockSize: 16, Xi: 16}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	c, err := prefixcache.New(capacity*16, 16, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		k, x, err := c.ServeTokens(&prefixcache.Req{Index: i, Input: s.input, Blocks: s.blocks})
		if err != nil {
			t.Fatalf("%s request %d: %v", name, i, err)
		}
		if err := c.Check(); err != nil {
			t.Fatalf("%s request %d: %v", name, i, err)
		}
		if k != s.hit || x != s.tokens || c.Evictions() != s.evictions {
			t.Fatalf("%s request %d: hit %d blocks, %d tokens, %d evictions; want %d, %d, %d", name, i, k, x, c.Evictions(), s.hit, s.tokens, s.evictions)
		}
		if after != nil {
			after(i, p)
		}
	}
}

// vLLM v1 frees a request's blocks in reverse order, so its last block is
// evicted first. Pool of 4 blocks b1…b4, queue b1 b2 b3 b4.
//
//	0: chain 1 2 3, 48 tokens: hit ≤ ⌊47/16⌋ = 2 but nothing cached; pops
//	   b1 b2 b3, hashes 1 2 3; freed b3 b2 b1 → queue b4 b3 b2 b1.
//	1: chain 9, 16 tokens: hit ≤ ⌊15/16⌋ = 0; pops b4 (no hash), hash 9;
//	   queue b3 b2 b1 b4.
//	2: chain 8, 16 tokens: pops b3, evicting hash 3 (request 0's last
//	   block); queue b2 b1 b4 b3.
//	3: chain 1 2 3 again: hits 1 2 (3 is gone, and the cap is 2 anyway),
//	   32 tokens; b1 b2 are taken off the queue, the head b4 is popped,
//	   evicting hash 9, and takes hash 3; freed b4 b2 b1 → b3 b4 b2 b1.
//
// Had the blocks been freed in chain order, request 2 would have evicted
// hash 1, the root, and request 3 would hit nothing.
func TestVLLMReverseOrderFree(t *testing.T) {
	replayEngine(t, "vllm", 4, nil, []engineStep{
		{blocks: ids(1, 2, 3), input: 48, hit: 0, tokens: 0, evictions: 0},
		{blocks: ids(9), input: 16, hit: 0, tokens: 0, evictions: 0},
		{blocks: ids(8), input: 16, hit: 0, tokens: 0, evictions: 1},
		{blocks: ids(1, 2, 3), input: 48, hit: 2, tokens: 32, evictions: 2},
	}, func(i int, p prefixcache.Policy) {
		want := map[int][]prefixcache.BlockID{
			0: {-1, 3, 2, 1},
			1: {3, 2, 1, 9},
			2: {2, 1, 9, 8},
			3: {8, 3, 2, 1}, // hash 3 now in b4, freed first of the request
		}[i]
		if got := prefixcache.EngineQueue(p); !slices.Equal(got, want) {
			t.Fatalf("request %d: queue %v, want %v", i, got, want)
		}
	})
}

// The last-token rule and a duplicate block. Pool of 4 blocks.
//
//	0: chain 1 2, 32 tokens: pops b1 b2, hashes 1 2; queue b3 b4 b2 b1.
//	1: chain 1 2, 32 tokens again: hit ≤ ⌊31/16⌋ = 1, so hash 1 (b1) hits
//	   and block 2 is recomputed in b3, which gets hash 2 although b2 holds
//	   it: two copies, three hashed blocks.
//	2: chain 1 2 5, 40 tokens: full blocks 2, hit ≤ ⌊39/16⌋ = 2: hashes 1
//	   and 2, found in the copy cached first (b2); the partial block gets
//	   no hash.
func TestVLLMLastTokenAndDuplicate(t *testing.T) {
	replayEngine(t, "vllm", 4, nil, []engineStep{
		{blocks: ids(1, 2), input: 32, hit: 0, tokens: 0},
		{blocks: ids(1, 2), input: 32, hit: 1, tokens: 16},
		{blocks: ids(1, 2, 5), input: 40, hit: 2, tokens: 32},
	}, func(i int, p prefixcache.Policy) {
		if i >= 1 {
			if n := prefixcache.EngineCopies(p, 2); n != 2 {
				t.Fatalf("request %d: hash 2 in %d blocks, want 2", i, n)
			}
		}
		if i == 2 && prefixcache.EngineHolds(p, 5) {
			t.Fatal("the partial block 5 got a hash")
		}
	})
}

// The engine T-LRU's low-priority blocks, an orphaned child and the
// binary search's phantom hit. N = 16 tokens: a request's last block keeps
// last-access −1. Pool of 3 blocks 0 1 2 (free, no hash).
//
//	0: chain 1 2 3, 48 tokens: blocks 0 1 2 take hashes 1 2 3; freed at
//	   time 1: blocks 0 and 1 get time 1, block 2 (the last) keeps −1.
//	   Evictor: (1, −16, 0) (1, −32, 1) (−1, −48, 2).
//	1: chain 1, 16 tokens: hash 1 cached, the whole prompt: 15 tokens hit
//	   (the last token recomputed); block 0 is reused, and being the
//	   request's last block it keeps −1: (−1, −16, 0).
//	2: chain 5: no free block; the evictor takes (−1, −48, 2): hash 3.
//	3: chain 6: the evictor takes (−1, −16, 0): hash 1 — the parent of the
//	   still cached hash 2 (time 1). Hash 2 is orphaned.
//	4: chain 1 2 3, 48 tokens: the binary search over hashes 1 2 3 probes
//	   hash 2 (cached), then hash 3 (not): it reports 2 blocks cached
//	   although hash 1 is not — two phantom blocks (from the hole on).
func TestVLLMTLRULowPriorityOrphan(t *testing.T) {
	replayEngine(t, "vllm-tlru", 3, map[string]string{"low-priority-tokens": "16"}, []engineStep{
		{blocks: ids(1, 2, 3), input: 48, hit: 0, tokens: 0, evictions: 0},
		{blocks: ids(1), input: 16, hit: 1, tokens: 15, evictions: 0},
		{blocks: ids(5), input: 16, hit: 0, tokens: 0, evictions: 1},
		{blocks: ids(6), input: 16, hit: 0, tokens: 0, evictions: 2},
		{blocks: ids(1, 2, 3), input: 48, hit: 2, tokens: 32, evictions: 4},
	}, func(i int, p prefixcache.Policy) {
		if i == 3 && (prefixcache.EngineHolds(p, 1) || !prefixcache.EngineHolds(p, 2)) {
			t.Fatal("after request 3 hash 2 should be cached without its parent 1")
		}
		if want := map[int]int64{4: 2}[i]; prefixcache.EnginePhantoms(p) != want {
			t.Fatalf("request %d: %d phantom blocks, want %d", i, prefixcache.EnginePhantoms(p), want)
		}
	})
}

// With N < B the fork updates no block's time (block_ids[:-0] is empty):
// every block keeps −1 and the deepest goes first, whatever its recency.
// Pool of 3 blocks.
//
//	0: chain 1 2, 32 tokens: hashes 1 2 in blocks 0 1, both −1;
//	   evictor (−1, −16, 0) (−1, −32, 1).
//	1: chain 7, 16 tokens: free block 2, hash 7: (−1, −16, 2).
//	2: chain 8: evicts (−1, −32, 1), hash 2, the deepest — not hash 1,
//	   the least recently used.
//	3: chain 9: (−1, −16, 0) before (−1, −16, 2): hash 1 (lower block id).
func TestVLLMTLRUZeroUpdatesNothing(t *testing.T) {
	replayEngine(t, "vllm-tlru", 3, map[string]string{"low-priority-tokens": "0"}, []engineStep{
		{blocks: ids(1, 2), input: 32},
		{blocks: ids(7), input: 16},
		{blocks: ids(8), input: 16, evictions: 1},
		{blocks: ids(9), input: 16, evictions: 2},
	}, func(i int, p prefixcache.Policy) {
		held := map[int][]prefixcache.BlockID{2: {1, 7, 8}, 3: {7, 8, 9}}[i]
		for _, id := range held {
			if !prefixcache.EngineHolds(p, id) {
				t.Fatalf("request %d: hash %d not cached", i, id)
			}
		}
	})
}

// SGLang's radix split and the last-token rule. Blocks of 16 tokens, page
// 1, pool of 3 blocks = 48 tokens.
//
//	0: chain 1 2, 32 tokens: the match over 31 tokens finds nothing; the
//	   insert adds 32 tokens as one node A [0, 32).
//	1: chain 1 3, 32 tokens: the match over 31 tokens shares 16 with A
//	   (block 1), so A splits into U [0, 16), created now, and A' [16, 32)
//	   (block 2, keeping the match's time): hit 16 tokens, 1 block. The
//	   insert adds a leaf C [16, 32) (block 3) under U: 48 tokens.
//	2: chain 4, 16 tokens: 16 needed, none free: the least recently
//	   accessed unlocked leaf is A' (its time is request 1's match, before
//	   C was created): 16 tokens evicted. Tree U, C, D: 48 tokens.
//	3: chain 1 3, 32 tokens: the match over 31 tokens: U, then C split at
//	   15 tokens into C' [16, 31) and C'' [31, 32): hit 31 tokens, 1 whole
//	   block. The 1 token to compute needs a free slot and none is free:
//	   D, the least recent unlocked leaf, goes (C'' is newer). The insert
//	   finds all 32 tokens in the tree: 32 tokens.
func TestSGLangSplitAndEvict(t *testing.T) {
	replayEngine(t, "sglang", 3, nil, []engineStep{
		{blocks: ids(1, 2), input: 32, hit: 0, tokens: 0, evictions: 0},
		{blocks: ids(1, 3), input: 32, hit: 1, tokens: 16, evictions: 0},
		{blocks: ids(4), input: 16, hit: 0, tokens: 0, evictions: 1},
		{blocks: ids(1, 3), input: 32, hit: 1, tokens: 31, evictions: 2},
	}, func(i int, p prefixcache.Policy) {
		if got, want := prefixcache.RadixTokens(p), []int64{32, 48, 48, 32}[i]; got != want {
			t.Fatalf("request %d: %d tokens in the tree, want %d", i, got, want)
		}
	})
}

// SGLang evicts the tokens the request needs, not the shortfall, and whole
// nodes: pool of 4 blocks = 64 tokens.
//
//	0: chain 1 2, 32 tokens: node A, 32 tokens.
//	1: chain 3, 16 tokens: node B; 48 tokens, 16 free.
//	2: chain 4 5, 32 tokens: 32 needed, 16 free: evict 32 tokens: A (32,
//	   least recent) — enough. 48 tokens: B, C.
//	3: chain 6, 16 tokens: 16 needed, 16 free: no eviction. 64 tokens.
//	4: chain 7 8, 20 tokens: 20 needed, none free: evict 20: B (16), then
//	   C (32, next least recent): 48 tokens evicted for 20 needed.
func TestSGLangEvictsWholeNodesAndRequest(t *testing.T) {
	replayEngine(t, "sglang", 4, nil, []engineStep{
		{blocks: ids(1, 2), input: 32},
		{blocks: ids(3), input: 16},
		{blocks: ids(4, 5), input: 32, evictions: 2},
		{blocks: ids(6), input: 16, evictions: 2},
		{blocks: ids(7, 8), input: 20, evictions: 5},
	}, func(i int, p prefixcache.Policy) {
		if got, want := prefixcache.RadixTokens(p), []int64{32, 48, 48, 64, 36}[i]; got != want {
			t.Fatalf("request %d: %d tokens in the tree, want %d", i, got, want)
		}
	})
}

// Pages: with page-size 8 the match covers ⌊(L − 1)/8⌋·8 tokens and only
// whole pages are inserted. Pool of 4 blocks.
//
//	0: chain 1 2, 30 tokens: insert ⌊30/8⌋·8 = 24 tokens.
//	1: chain 1 2, 30 tokens: match over ⌊29/8⌋·8 = 24 tokens: all 24 hit,
//	   1 whole block.
func TestSGLangPages(t *testing.T) {
	replayEngine(t, "sglang", 4, map[string]string{"page-size": "8"}, []engineStep{
		{blocks: ids(1, 2), input: 30},
		{blocks: ids(1, 2), input: 30, hit: 1, tokens: 24},
	}, func(i int, p prefixcache.Policy) {
		if got := prefixcache.RadixTokens(p); got != 24 {
			t.Fatalf("request %d: %d tokens in the tree, want 24", i, got)
		}
	})
}

func TestEngineOptionsRefused(t *testing.T) {
	for _, c := range []struct{ name, key, value string }{
		{"vllm-tlru", "low-priority-tokens", "-1"},
		{"vllm-tlru", "low-priority-tokens", "x"},
		{"sglang", "page-size", "0"},
		{"sglang", "page-size", "3"}, // does not divide 16
	} {
		es, _ := prefixcache.Parse(c.name)
		_, err := es[0].New(prefixcache.Config{Params: instance.Params{Capacity: 64, BlockSize: 16}, Options: map[string]string{c.key: c.value}})
		if err == nil {
			t.Errorf("%s %s=%s accepted", c.name, c.key, c.value)
		}
	}
}

func ids(xs ...prefixcache.BlockID) []prefixcache.BlockID { return xs }
