package prefixcache_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// byID hides a policy's CachedOnly mark: the cache then names blocks to it
// by BlockID, as before slots existed.
type byID struct{ prefixcache.Policy }

// Naming blocks by slot changes nothing: LRU, FIFO, LFU, Aging-LFU and
// GDSF told slots and the same policies told BlockIDs hit the same blocks, evict as many and hold
// the same blocks after every request of any stream, at any capacity.
func TestSlotNamesChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reqs := genStream(t)
		in, qs := internAll(t, reqs)
		capacity := 16 * int64(rapid.IntRange(0, in.Blocks()+1).Draw(t, "capacity"))
		for _, mk := range []prefixcache.Factory{prefixcache.NewLRU, prefixcache.NewFIFO, prefixcache.NewLFU, prefixcache.NewAgingLFU, prefixcache.NewGDSF} {
			cfg := prefixcache.Config{Params: instance.Params{Capacity: capacity, BlockSize: 16}}
			p, _ := mk(cfg)
			q, _ := mk(cfg)
			if _, ok := p.(prefixcache.CachedOnly); !ok {
				t.Fatalf("%T is not CachedOnly", p)
			}
			slots, _ := prefixcache.New(capacity, 16, p)
			ids, _ := prefixcache.New(capacity, 16, byID{q})
			for i := range qs {
				a, errA := slots.Serve(&qs[i])
				b, errB := ids.Serve(&qs[i])
				if errA != nil || errB != nil || a != b || slots.Evictions() != ids.Evictions() {
					t.Fatalf("%T request %d: hit %d (%v), by id %d (%v); evictions %d, %d", p, i, a, errA, b, errB, slots.Evictions(), ids.Evictions())
				}
				for id := prefixcache.BlockID(0); int(id) < in.Blocks(); id++ {
					if slots.Cached(id) != ids.Cached(id) {
						t.Fatalf("%T after request %d: block %d cached %v, by id %v", p, i, id, slots.Cached(id), ids.Cached(id))
					}
				}
			}
		}
	})
}
