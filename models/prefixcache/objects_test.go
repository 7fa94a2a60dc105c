package prefixcache_test

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// objectKeys are keys an object trace may hold: small dense ids, ids
// beyond 32 bits, the extremes of int64 (uint64 ids ≥ 2^63 read as
// negative) and keys that share their hash's high bits (multiples of
// 2^40 collide in a small table).
var objectKeys = []int64{0, 1, 2, 3, 7, 1 << 33, 5 << 40, 6 << 40, 7 << 40, -1, math.MinInt64, math.MaxInt64, 123456789012}

// genObjects draws a stream of single-block requests over an alphabet of
// keys drawn from objectKeys.
func genObjects(t *rapid.T) []blocktrace.Request {
	alphabet := rapid.SliceOfNDistinct(rapid.SampledFrom(objectKeys), 1, len(objectKeys), rapid.ID[int64]).Draw(t, "alphabet")
	n := rapid.IntRange(1, 150).Draw(t, "requests")
	reqs := make([]blocktrace.Request, n)
	for i := range reqs {
		reqs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: 16, Conv: -1,
			Output: rapid.Int64Range(0, 40).Draw(t, "output"), Hashes: []int64{rapid.SampledFrom(alphabet).Draw(t, "key")}}
	}
	return reqs
}

// serveBoth serves reqs through a cache of objects under obj (ServeObject,
// keyed by the hash) and a cache of chains under gen (Serve, the blocks
// numbered by an Interner), both capacity blocks, and returns a
// description of the first difference: a request's hit, the eviction
// count, the evicted objects in order (the chain cache's block ids turned
// back into hashes), the cached set or the invariants (Check) after any
// request; "" when there is none. key maps a request's hash to the key the
// cache of objects is given (the identity but in planted errors).
func serveBoth(reqs []blocktrace.Request, capacity int, obj, gen prefixcache.Factory, key func(int64) int64) string {
	cfg := prefixcache.Config{Params: instance.Params{Capacity: 16 * int64(capacity), BlockSize: 16, Xi: 20}}
	po, _ := obj(cfg)
	pg, _ := gen(cfg)
	oc, _ := prefixcache.New(cfg.Capacity, 16, po)
	gc, _ := prefixcache.New(cfg.Capacity, 16, pg)
	var hashOf []int64 // by block id
	var evicted [2][]int64
	oc.OnEvictObject(func(k int64) { evicted[0] = append(evicted[0], k) })
	gc.OnEvict(func(id prefixcache.BlockID) { evicted[1] = append(evicted[1], hashOf[id]) })
	in := prefixcache.NewInterner()
	for i := range reqs {
		r := reqs[i]
		q, _, err := in.Intern(&r, nil)
		if err != nil {
			return err.Error()
		}
		if int(q.Blocks[0]) == len(hashOf) {
			hashOf = append(hashOf, r.Hashes[0])
		}
		qo := q // each cache its own copy
		qo.Blocks = nil
		oc.TouchObject(key(reqs[(i+3)%len(reqs)].Hashes[0])) // changes nothing
		ho, err := oc.ServeObject(&qo, key(r.Hashes[0]))
		if err != nil {
			return err.Error()
		}
		hg, err := gc.Serve(&q)
		if err != nil {
			return err.Error()
		}
		if err := oc.Check(); err != nil {
			return fmt.Sprintf("request %d: %v", i, err)
		}
		if ho != hg || oc.Evictions() != gc.Evictions() || oc.Len() != gc.Len() || fmt.Sprint(evicted[0]) != fmt.Sprint(evicted[1]) {
			return fmt.Sprintf("request %d: objects hit %d, %d evictions %v; chains hit %d, %d evictions %v",
				i, ho, oc.Evictions(), evicted[0], hg, gc.Evictions(), evicted[1])
		}
		for id, h := range hashOf {
			if oc.CachedObject(key(h)) != gc.Cached(prefixcache.BlockID(id)) {
				return fmt.Sprintf("request %d: object %d cached %v as an object, %v as a block", i, h, oc.CachedObject(key(h)), gc.Cached(prefixcache.BlockID(id)))
			}
		}
	}
	return ""
}

// The object mode (ServeObject) against the chain mode (Serve, which
// serves a request of one block by serveSingle), for every policy that
// serves objects, on single-block streams over keys whose hashes collide:
// every hit, the evictions, the evicted objects in order and the cached
// set after every request are the same.
func TestObjectModeEqualsGeneral(t *testing.T) {
	var entries []prefixcache.Entry
	for _, e := range prefixcache.All() {
		if p, _ := e.New(prefixcache.Config{Params: instance.Params{Capacity: 16, BlockSize: 16}}); prefixcache.ServesObjects(p) {
			entries = append(entries, e)
		}
	}
	if len(entries) != 5 { // lru, fifo, lfu, gdsf, aging-lfu: CachedOnly, no engine
		t.Fatalf("%d policies serve objects, want 5", len(entries))
	}
	rapid.Check(t, func(t *rapid.T) {
		reqs := genObjects(t)
		e := rapid.SampledFrom(entries).Draw(t, "policy")
		capacity := rapid.IntRange(0, len(objectKeys)+1).Draw(t, "capacity")
		if d := serveBoth(reqs, capacity, e.New, e.New, func(k int64) int64 { return k }); d != "" {
			t.Fatalf("%s at %d blocks: %s", e.Name, capacity, d)
		}
	})
}

// The comparison of TestObjectModeEqualsGeneral fails on planted errors:
// two keys made one (a wrong key), and a policy that differs (FIFO as
// objects against LRU as chains), on A B A C at 2 blocks, where LRU evicts
// B and FIFO evicts A.
func TestObjectModeComparisonCatchesErrors(t *testing.T) {
	var reqs []blocktrace.Request
	for i, h := range []int64{1, 2, 1, 3} {
		reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Input: 16, Conv: -1, Hashes: []int64{h}})
	}
	es, _ := prefixcache.Parse("lru,fifo")
	same := func(k int64) int64 { return k }
	if d := serveBoth(reqs, 2, es[0].New, es[0].New, same); d != "" {
		t.Fatalf("no planted error: %s", d)
	}
	for _, c := range []struct {
		name     string
		obj, gen prefixcache.Factory
		key      func(int64) int64
	}{
		{"keys 2 and 3 one object", es[0].New, es[0].New, func(k int64) int64 { return min(k, 2) }},
		{"fifo as objects, lru as chains", es[1].New, es[0].New, same},
	} {
		if d := serveBoth(reqs, 2, c.obj, c.gen, c.key); d == "" {
			t.Errorf("%s: no difference found", c.name)
		}
	}
}

// A cache serves objects or chains, not both, and only under a policy
// that names blocks by slot.
func TestObjectModeRefusals(t *testing.T) {
	lru, _ := prefixcache.NewLRU(prefixcache.Config{})
	c, _ := prefixcache.New(64, 16, lru)
	if _, err := c.ServeObject(&prefixcache.Req{}, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Serve(&prefixcache.Req{Index: 1, Blocks: []prefixcache.BlockID{0}}); err == nil {
		t.Error("a cache of objects served a chain")
	}
	lru, _ = prefixcache.NewLRU(prefixcache.Config{})
	c, _ = prefixcache.New(64, 16, lru)
	if _, err := c.Serve(&prefixcache.Req{Blocks: []prefixcache.BlockID{0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ServeObject(&prefixcache.Req{Index: 1}, 5); err == nil {
		t.Error("a cache of chains served an object")
	}
	s3, _ := prefixcache.NewS3FIFO(prefixcache.Config{Params: instance.Params{Capacity: 64, BlockSize: 16}})
	c, _ = prefixcache.New(64, 16, s3)
	if _, err := c.ServeObject(&prefixcache.Req{}, 5); err == nil || prefixcache.ServesObjects(s3) {
		t.Error("s3fifo, which remembers block ids, served an object")
	}
}

// LRU's object mode (objectlru.go, a structure of its own) against the
// chain mode on streams long enough to grow its table several times, fill
// the cache and evict through it, and empty runs of the table again by
// backward shifts: up to 1,500 requests over up to 200 keys, half of
// them multiples of 2^40 (which share their hash's high bits, so that
// probe runs are long), at 0 to 220 blocks.
func TestObjectLRULongStreams(t *testing.T) {
	es, _ := prefixcache.Parse("lru")
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 200).Draw(t, "keys")
		n := rapid.IntRange(1, 1500).Draw(t, "requests")
		reqs := make([]blocktrace.Request, n)
		for i := range reqs {
			x := int64(rapid.IntRange(0, k-1).Draw(t, "key"))
			if x%2 == 1 {
				x <<= 40
			}
			reqs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: 16, Conv: -1, Hashes: []int64{x}}
		}
		capacity := rapid.IntRange(0, 220).Draw(t, "capacity")
		if d := serveBoth(reqs, capacity, es[0].New, es[0].New, func(k int64) int64 { return k }); d != "" {
			t.Fatalf("lru at %d blocks: %s", capacity, d)
		}
	})
}
