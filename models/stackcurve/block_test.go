package stackcurve_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/stackcurve"
)

// fataler is what the helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// intern numbers the chains of hash lists as the block-level replay does.
func intern(t fataler, chains [][]int64) [][]int32 {
	t.Helper()
	in := prefixcache.NewInterner()
	out := make([][]int32, len(chains))
	for i, h := range chains {
		q, _, err := in.Intern(&blocktrace.Request{Index: i, Time: float64(i), Input: int64(len(h)), Hashes: h, Conv: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = q.Blocks
	}
	return out
}

// engineRun serves chains in a prefixcache.Cache under prefixcache.NewLRU
// of capacity c blocks (block size 1) and returns each request's hit and
// the cumulative evictions after it: the oracle.
func engineRun(t fataler, chains [][]int32, c int) (hits []int, evictions []int64) {
	t.Helper()
	p, _ := prefixcache.NewLRU(prefixcache.Config{})
	cache, err := prefixcache.New(int64(c), 1, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range chains {
		h, err := cache.Serve(&prefixcache.Req{Index: i, Blocks: ch, Conv: -1})
		if err != nil {
			t.Fatal(err)
		}
		hits = append(hits, h)
		evictions = append(evictions, cache.Evictions())
	}
	if err := cache.Check(); err != nil {
		t.Fatal(err)
	}
	return hits, evictions
}

// curveRun serves chains in one BlockLRU at every capacity of caps, and
// checks that each request's Runs give back its hit at every capacity.
func curveRun(t fataler, chains [][]int32, caps []int) (hits [][]int, evictions [][]int64) {
	t.Helper()
	s, err := stackcurve.NewBlockLRU(caps)
	if err != nil {
		t.Fatal(err)
	}
	hits, evictions = make([][]int, len(caps)), make([][]int64, len(caps))
	h := make([]int, len(caps))
	for _, ch := range chains {
		if err := s.Serve(ch, h); err != nil {
			t.Fatal(err)
		}
		runs := s.Runs(nil)
		for i, c := range caps {
			hits[i] = append(hits[i], h[i])
			evictions[i] = append(evictions[i], s.Evictions(i))
			var fromRuns int64
			for k := 0; k < len(runs); k += 2 {
				fromRuns += min(max(int64(c)-runs[k], 0), runs[k+1])
			}
			if fromRuns != int64(h[i]) {
				t.Fatal(fmt.Sprintf("chain %v at %d blocks: hit %d, from the runs %v %d", ch, c, h[i], runs, fromRuns))
			}
		}
	}
	return hits, evictions
}

// TestBlockLRUHandWorked: chains ab, c, abd at 2 and 3 blocks, worked by
// hand from the engine's rules. At 2 blocks: c evicts b (the deepest of the
// least recent request); abd hits a, pins it, evicts c, and only b fits. At
// 3 blocks: c fits; abd hits ab and evicts c for d.
func TestBlockLRUHandWorked(t *testing.T) {
	chains := intern(t, [][]int64{{1, 2}, {3}, {1, 2, 4}})
	hits, ev := curveRun(t, chains, []int{2, 3, 0})
	for i, w := range []struct {
		hits []int
		ev   []int64
	}{{[]int{0, 0, 1}, []int64{0, 1, 2}}, {[]int{0, 0, 2}, []int64{0, 0, 1}}, {[]int{0, 0, 0}, []int64{0, 0, 0}}} {
		for k := range chains {
			if hits[i][k] != w.hits[k] || ev[i][k] != w.ev[k] {
				t.Errorf("capacity %d, request %d: hit %d, evictions %d; want %d, %d", []int{2, 3, 0}[i], k, hits[i][k], ev[i][k], w.hits[k], w.ev[k])
			}
		}
	}
}

// TestBlockLRUEqualsEngine: on random chain traces that share prefixes
// (chains longer than the cache included, so that the admission is cut),
// every request's hit and the evictions at every capacity equal a separate
// prefixcache.Cache under LRU.
func TestBlockLRUEqualsEngine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 120).Draw(rt, "requests")
		alphabet := rapid.IntRange(1, 6).Draw(rt, "alphabet")
		var raw [][]int64
		for i := 0; i < n; i++ {
			var ch []int64
			if i > 0 && rapid.Bool().Draw(rt, "share") {
				prev := raw[rapid.IntRange(0, i-1).Draw(rt, "prev")]
				ch = append(ch, prev[:rapid.IntRange(0, len(prev)).Draw(rt, "cut")]...)
			}
			for k := rapid.IntRange(0, 8).Draw(rt, "extend"); k > 0 || len(ch) == 0; k-- {
				ch = append(ch, int64(rapid.IntRange(0, alphabet-1).Draw(rt, "hash")))
			}
			raw = append(raw, ch)
		}
		chains := intern(rt, raw)
		caps := rapid.SliceOfN(rapid.IntRange(0, 40), 1, 6).Draw(rt, "capacities")
		hits, ev := curveRun(rt, chains, caps)
		for i, c := range caps {
			wh, we := engineRun(rt, chains, c)
			for k := range chains {
				if hits[i][k] != wh[k] || ev[i][k] != we[k] {
					rt.Fatalf("capacity %d, request %d (chain %v): curve hit %d, evictions %d; engine %d, %d", c, k, chains[k], hits[i][k], ev[i][k], wh[k], we[k])
				}
			}
		}
	})
}

// TestBlockLRULongTrace: 5,000 requests drawn like the rapid ones but long
// enough that the stamps are renumbered (compacted) many times, at
// capacities from 0 to beyond the distinct blocks.
func TestBlockLRULongTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	var raw [][]int64
	for i := 0; i < 5000; i++ {
		var ch []int64
		if i > 0 && rng.IntN(3) > 0 {
			prev := raw[rng.IntN(i)]
			ch = append(ch, prev[:rng.IntN(len(prev)+1)]...)
		}
		for k := rng.IntN(12); k > 0 || len(ch) == 0; k-- {
			ch = append(ch, int64(rng.IntN(8)))
		}
		raw = append(raw, ch)
	}
	chains := intern(t, raw)
	caps := []int{0, 1, 7, 64, 300, 1000, 5000, 1 << 20}
	hits, ev := curveRun(t, chains, caps)
	for i, c := range caps {
		wh, we := engineRun(t, chains, c)
		for k := range chains {
			if hits[i][k] != wh[k] || ev[i][k] != we[k] {
				t.Fatalf("capacity %d, request %d: curve hit %d, evictions %d; engine %d, %d", c, k, hits[i][k], ev[i][k], wh[k], we[k])
			}
		}
		if c > 0 && c < 5000 && we[len(we)-1] == 0 {
			t.Errorf("capacity %d: no eviction, the case tests nothing", c)
		}
	}
}
