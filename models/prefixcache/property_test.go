package prefixcache_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// genStream draws a stream of tree-shaped chains (see randomTreeStream) with
// non-decreasing times, categories and conversation links.
func genStream(t *rapid.T) []blocktrace.Request {
	n := rapid.IntRange(1, 80).Draw(t, "requests")
	alphabet := rapid.IntRange(1, 6).Draw(t, "alphabet")
	var reqs []blocktrace.Request
	tm := 0.0
	for i := 0; i < n; i++ {
		var chain []int64
		if len(reqs) > 0 && rapid.Bool().Draw(t, "extend") {
			prev := reqs[rapid.IntRange(0, len(reqs)-1).Draw(t, "prev")].Hashes
			chain = append(chain, prev[:rapid.IntRange(0, len(prev)).Draw(t, "cut")]...)
		}
		for k := rapid.IntRange(0, 6).Draw(t, "suffix"); k > 0 || len(chain) == 0; k-- {
			chain = append(chain, int64(rapid.IntRange(0, alphabet-1).Draw(t, "hash")))
		}
		tm += rapid.Float64Range(0, 50).Draw(t, "gap")
		reqs = append(reqs, blocktrace.Request{Index: i, Time: tm, Input: int64(16*len(chain)) - rapid.Int64Range(0, 15).Draw(t, "partial"),
			Output: rapid.Int64Range(0, 40).Draw(t, "output"), Hashes: chain,
			Category: rapid.SampledFrom([]string{"", "text", "file"}).Draw(t, "category"),
			Conv:     rapid.IntRange(-1, 4).Draw(t, "conv")})
	}
	return reqs
}

// treeEntries returns the registered policies that the Cache runs over the
// prefix tree (every one but the engines, engine_property_test.go).
func treeEntries() []prefixcache.Entry {
	var out []prefixcache.Entry
	for _, e := range prefixcache.All() {
		p, err := e.New(prefixcache.Config{Params: instance.Params{Capacity: 16, BlockSize: 16}})
		if _, engine := p.(prefixcache.Engine); err == nil && !engine {
			out = append(out, e)
		}
	}
	return out
}

// Every tree policy, any stream, any capacity: after every request the cache
// holds at most its capacity, every cached block's parent is cached (no
// orphan), the children counts are right, and the hit is at most the
// ideal (previously seen) prefix. With room for every distinct block the
// hit is the ideal one; with no room it is zero.
func TestCacheInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reqs := genStream(t)
		entry := rapid.SampledFrom(treeEntries()).Draw(t, "policy")
		in, qs := internAll(t, reqs)
		distinct := in.Blocks()
		capacity := rapid.IntRange(0, distinct+2).Draw(t, "capacity")
		p, err := entry.New(prefixcache.Config{Params: instance.Params{Capacity: 16 * int64(capacity), BlockSize: 16,
			Xi: rapid.Float64Range(-20, 200).Draw(t, "xi")}})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := prefixcache.New(16*int64(capacity), 16, p)
		for i := range qs {
			hit, err := c.Serve(&qs[i])
			if err != nil {
				t.Fatalf("%s request %d: %v", entry.Name, i, err)
			}
			if err := c.Check(); err != nil {
				t.Fatalf("%s request %d: %v", entry.Name, i, err)
			}
			switch {
			case hit > qs[i].Seen:
				t.Fatalf("%s request %d: hit %d blocks, only %d seen before", entry.Name, i, hit, qs[i].Seen)
			case capacity >= distinct && hit != qs[i].Seen:
				t.Fatalf("%s request %d: room for all, hit %d of %d seen", entry.Name, i, hit, qs[i].Seen)
			case capacity == 0 && hit != 0:
				t.Fatalf("%s request %d: empty cache hit %d", entry.Name, i, hit)
			}
			for k, id := range qs[i].Blocks { // the chain is cached as far as room allows
				if !c.Cached(id) && k < min(len(qs[i].Blocks), capacity) && c.Len() < capacity {
					t.Fatalf("%s request %d: block %d of its chain not admitted with room left", entry.Name, i, k)
				}
			}
		}
	})
}

// internAll numbers the blocks of reqs in order with a new Interner and
// returns it with the numbered requests.
func internAll(t interface{ Fatal(...any) }, reqs []blocktrace.Request) (*prefixcache.Interner, []prefixcache.Req) {
	in := prefixcache.NewInterner()
	var qs []prefixcache.Req
	for i := range reqs {
		q, _, err := in.Intern(&reqs[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	return in, qs
}
