package prefixcache_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Every engine, any stream, any capacity and option: after every request
// its invariants hold (Check: the pool or tree within the capacity), it
// holds at most its capacity, the hit is at most the ideal (previously
// seen) prefix and never the whole prompt (the last token is computed),
// and the hit blocks were a cached prefix of the chain when the request
// came — except, for vllm-tlru, the blocks its binary search reports from
// a hole on, which it counts as phantoms (0 for the other engines). vLLM v1 under the sequential model never holds a
// block whose parent it evicted (no orphan: a block is freed just before
// the parent copy its request used, so it is always ahead of it in the
// queue).
func TestEngineInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reqs := genStream(t)
		name := rapid.SampledFrom([]string{"vllm", "vllm-tlru", "sglang"}).Draw(t, "engine")
		in, qs := internAll(t, reqs)
		capacity := rapid.IntRange(0, in.Blocks()+2).Draw(t, "capacity")
		opts := map[string]string{}
		switch name {
		case "vllm-tlru":
			opts["low-priority-tokens"] = rapid.SampledFrom([]string{"0", "15", "16", "40", "100"}).Draw(t, "low")
		case "sglang":
			opts["page-size"] = rapid.SampledFrom([]string{"1", "2", "8", "16"}).Draw(t, "page")
		}
		es, _ := prefixcache.Parse(name)
		p, err := es[0].New(prefixcache.Config{Params: instance.Params{Capacity: 16 * int64(capacity), BlockSize: 16, Xi: 20}, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := prefixcache.New(16*int64(capacity), 16, p)
		parent := map[prefixcache.BlockID]prefixcache.BlockID{}
		for i := range qs {
			q := &qs[i]
			for d, id := range q.Blocks {
				parent[id] = -1
				if d > 0 {
					parent[id] = q.Blocks[d-1]
				}
			}
			// What was cached before the request: sglang's tokens of the
			// chain, the other engines' blocks.
			var before int64
			held := make([]bool, len(q.Blocks))
			var phantoms int64
			if name == "sglang" {
				before = prefixcache.RadixCached(p, q.Blocks, q.Input)
			} else {
				for k, id := range q.Blocks {
					held[k] = prefixcache.EngineHolds(p, id)
				}
			}
			if name == "vllm-tlru" {
				phantoms = prefixcache.EnginePhantoms(p)
			}
			hit, x, err := c.ServeTokens(q)
			if err != nil {
				t.Fatalf("%s request %d: %v", name, i, err)
			}
			if err := c.Check(); err != nil {
				t.Fatalf("%s request %d: %v", name, i, err)
			}
			if name == "vllm-tlru" {
				phantoms = prefixcache.EnginePhantoms(p) - phantoms
			}
			switch {
			case c.Len() > capacity:
				t.Fatalf("%s request %d: %d blocks cached, capacity %d", name, i, c.Len(), capacity)
			case int64(hit)-phantoms > int64(q.Seen):
				t.Fatalf("%s request %d: hit %d blocks, only %d seen before", name, i, hit, q.Seen)
			case x >= q.Input && q.Input > 0:
				t.Fatalf("%s request %d: hit %d of %d tokens", name, i, x, q.Input)
			case name == "sglang" && x > before:
				t.Fatalf("%s request %d: hit %d tokens, %d cached before", name, i, x, before)
			case name != "sglang" && x > int64(hit)*16:
				t.Fatalf("%s request %d: hit %d tokens in %d blocks", name, i, x, hit)
			}
			if name != "sglang" {
				run := 0 // the hit blocks cached before, as a prefix
				for run < hit && held[run] {
					run++
				}
				if int64(hit-run) != phantoms {
					t.Fatalf("%s request %d: %d of the %d hit blocks lie past the cached prefix, %d phantoms counted", name, i, hit-run, hit, phantoms)
				}
			}
			if name != "vllm" {
				continue
			}
			for id, par := range parent {
				if par >= 0 && prefixcache.EngineHolds(p, id) && !prefixcache.EngineHolds(p, par) {
					t.Fatalf("vllm request %d: block %d cached without its parent %d", i, id, par)
				}
			}
		}
	})
}
