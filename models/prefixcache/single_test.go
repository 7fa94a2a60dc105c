package prefixcache_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// genMixed draws a stream whose requests are mostly of one block (a
// libCacheSim object trace) with, when chains is set, chains of up to
// four blocks among them that may extend a single block's hash: so that
// a single-block request can hit a block with cached children, or be
// evicted under a chain.
func genMixed(t *rapid.T, chains bool) []blocktrace.Request {
	n := rapid.IntRange(1, 120).Draw(t, "requests")
	alphabet := rapid.IntRange(1, 12).Draw(t, "alphabet")
	var reqs []blocktrace.Request
	for i := 0; i < n; i++ {
		chain := []int64{int64(rapid.IntRange(0, alphabet-1).Draw(t, "hash"))}
		if chains && rapid.IntRange(0, 3).Draw(t, "chain?") == 0 {
			for k := rapid.IntRange(1, 3).Draw(t, "length"); k > 0; k-- {
				chain = append(chain, int64(rapid.IntRange(0, alphabet-1).Draw(t, "next")))
			}
		}
		reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Input: int64(16 * len(chain)), Hashes: chain,
			Output: rapid.Int64Range(0, 40).Draw(t, "output"), Conv: -1})
	}
	return reqs
}

// The single-block fast path (serveSingle) against the general path, for
// every registered policy, on pure single-block streams and on streams
// mixing chains in: every request's hit, the evictions so far, the blocks
// evicted in order, the cached set and the cache's invariants after every
// request are the same; Cache.Touch, called on the fast path's cache
// before each request, changes nothing.
func TestSingleBlockFastPathEqualsGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reqs := genMixed(t, rapid.Bool().Draw(t, "chains"))
		entry := rapid.SampledFrom(prefixcache.All()).Draw(t, "policy")
		in, qs := internAll(t, reqs)
		capacity := rapid.IntRange(0, in.Blocks()+2).Draw(t, "capacity")
		cfg := prefixcache.Config{Params: instance.Params{Capacity: 16 * int64(capacity), BlockSize: 16, Xi: 20}}
		var caches [2]*prefixcache.Cache
		var evicted [2][]prefixcache.BlockID
		for k := range caches {
			p, err := entry.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := prefixcache.New(cfg.Capacity, 16, p)
			k := k
			c.OnEvict(func(id prefixcache.BlockID) { evicted[k] = append(evicted[k], id) })
			caches[k] = c
		}
		prefixcache.GeneralOnly(caches[1])
		fast, gen := caches[0], caches[1]
		for i := range qs {
			var hits [2]int
			fast.Touch(prefixcache.BlockID(rapid.IntRange(-1, in.Blocks()).Draw(t, "touch"))) // changes nothing
			for k, c := range caches {
				q := qs[i] // a policy may keep what it saw; each cache its own copy
				h, err := c.Serve(&q)
				if err != nil {
					t.Fatalf("%s request %d: %v", entry.Name, i, err)
				}
				if err := c.Check(); err != nil {
					t.Fatalf("%s request %d: %v", entry.Name, i, err)
				}
				hits[k] = h
			}
			if hits[0] != hits[1] || fast.Evictions() != gen.Evictions() || fast.Len() != gen.Len() ||
				fmt.Sprint(evicted[0]) != fmt.Sprint(evicted[1]) {
				t.Fatalf("%s request %d (%d blocks): fast path hit %d, %d evictions %v; general %d, %d evictions %v", entry.Name, i,
					len(qs[i].Blocks), hits[0], fast.Evictions(), evicted[0], hits[1], gen.Evictions(), evicted[1])
			}
			for id := prefixcache.BlockID(0); int(id) < in.Blocks(); id++ {
				if fast.Cached(id) != gen.Cached(id) {
					t.Fatalf("%s request %d: block %d cached %v by the fast path, %v by the general", entry.Name, i, id, fast.Cached(id), gen.Cached(id))
				}
			}
		}
	})
}
