package prefixcache_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// naive is an obviously right, slow prefix cache under LRU or FIFO with the
// orphan-free rule, written from the rule's statement and sharing no code
// with the package: a block is named by its whole prefix (the path of
// hashes), the victim is found by scanning every cached block for the
// smallest (last use or admission, −depth, first appearance) among cached
// blocks that no cached block names as parent and that are not on the
// request's chain, one eviction per admitted block.
type naive struct {
	capacity int
	fifo     bool
	byHash   bool // name blocks by their hash alone (for prefix-chained traces)
	blocks   map[string]*naiveBlock
	cached   []*naiveBlock
	seen     int
}

type naiveBlock struct {
	key, parent              string
	depth, last, in, kids, n int
	cached                   bool
}

func newNaive(capacity int, fifo, byHash bool) *naive {
	return &naive{capacity: capacity, fifo: fifo, byHash: byHash, blocks: map[string]*naiveBlock{}}
}

func (c *naive) keys(chain []int64) []string {
	keys := make([]string, len(chain))
	var sb strings.Builder
	for i, h := range chain {
		if c.byHash {
			keys[i] = fmt.Sprint(h)
			continue
		}
		fmt.Fprintf(&sb, "/%d", h)
		keys[i] = sb.String()
	}
	return keys
}

// serve returns the number of leading blocks of chain that were cached.
func (c *naive) serve(idx int, chain []int64) int {
	keys := c.keys(chain)
	onChain := map[string]bool{}
	for i, k := range keys {
		onChain[k] = true
		if c.blocks[k] == nil {
			c.blocks[k] = &naiveBlock{key: k, depth: i, n: c.seen}
			c.seen++
			if i > 0 {
				c.blocks[k].parent = keys[i-1]
			}
		}
	}
	hit := 0
	for hit < len(keys) && c.blocks[keys[hit]].cached {
		c.blocks[keys[hit]].last = idx
		hit++
	}
	for j := hit; j < len(keys); j++ {
		if len(c.cached) == c.capacity {
			v := c.victim(onChain)
			if v < 0 {
				break
			}
			b := c.cached[v]
			b.cached = false
			if b.parent != "" {
				c.blocks[b.parent].kids--
			}
			c.cached = append(c.cached[:v], c.cached[v+1:]...)
		}
		b := c.blocks[keys[j]]
		b.cached, b.last, b.in, b.kids = true, idx, idx, 0
		if b.parent != "" {
			c.blocks[b.parent].kids++
		}
		c.cached = append(c.cached, b)
	}
	return hit
}

func (c *naive) victim(onChain map[string]bool) int {
	best := -1
	var bk [3]int
	for i, b := range c.cached {
		if b.kids > 0 || onChain[b.key] {
			continue
		}
		k := [3]int{b.last, -b.depth, b.n}
		if c.fifo {
			k[0] = b.in
		}
		if best < 0 || k[0] < bk[0] || k[0] == bk[0] && (k[1] < bk[1] || k[1] == bk[1] && k[2] < bk[2]) {
			best, bk = i, k
		}
	}
	return best
}

// engineHits replays reqs through the package's cache under policy name and
// returns the hit (blocks) of every request.
func engineHits(t testing.TB, name string, capacity int, reqs []blocktrace.Request) []int {
	t.Helper()
	es, err := prefixcache.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := es[0].New(prefixcache.Config{Params: instance.Params{Capacity: 16 * int64(capacity), BlockSize: 16, Xi: 100}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := prefixcache.New(16*int64(capacity), 16, p)
	if err != nil {
		t.Fatal(err)
	}
	in := prefixcache.NewInterner()
	var arena []prefixcache.BlockID
	hits := make([]int, len(reqs))
	for i := range reqs {
		q, a, err := in.Intern(&reqs[i], arena[:0])
		if err != nil {
			t.Fatal(err)
		}
		arena = a
		if hits[i], err = c.Serve(&q); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	return hits
}

// randomTreeStream draws n requests whose chains share prefixes: each
// request takes a random earlier request's chain, cuts it at a random
// length and appends up to 5 random hashes from a small alphabet, so that
// equal hashes also occur under different parents.
func randomTreeStream(rng *rand.Rand, n, alphabet int) []blocktrace.Request {
	var reqs []blocktrace.Request
	for i := 0; i < n; i++ {
		var chain []int64
		if len(reqs) > 0 && rng.IntN(4) > 0 {
			prev := reqs[rng.IntN(len(reqs))].Hashes
			chain = append(chain, prev[:rng.IntN(len(prev)+1)]...)
		}
		for k := rng.IntN(6); k > 0 || len(chain) == 0; k-- {
			chain = append(chain, int64(rng.IntN(alphabet)))
		}
		reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Input: int64(16 * len(chain)), Hashes: chain, Conv: -1})
	}
	return reqs
}

func TestMatchesNaiveOnRandomStreams(t *testing.T) {
	cases := []struct {
		name      string
		n         int
		alphabet  int
		capacity  int
		singleton bool
	}{
		{"tree/tiny", 300, 3, 1, false},
		{"tree/small", 600, 4, 7, false},
		{"tree/medium", 800, 6, 40, false},
		{"tree/zero", 50, 3, 0, false},
		{"single/small", 2000, 30, 5, true},
		{"single/medium", 3000, 200, 64, true},
	}
	for _, tc := range cases {
		for _, pol := range []string{"lru", "fifo"} {
			t.Run(tc.name+"/"+pol, func(t *testing.T) {
				for seed := uint64(1); seed <= 5; seed++ {
					rng := rand.New(rand.NewPCG(seed, 7))
					var reqs []blocktrace.Request
					if tc.singleton {
						for i := 0; i < tc.n; i++ {
							reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Input: 16,
								Hashes: []int64{int64(rng.IntN(tc.alphabet))}, Conv: -1})
						}
					} else {
						reqs = randomTreeStream(rng, tc.n, tc.alphabet)
					}
					got := engineHits(t, pol, tc.capacity, reqs)
					nv := newNaive(tc.capacity, pol == "fifo", false)
					for i, r := range reqs {
						if want := nv.serve(i, r.Hashes); got[i] != want {
							t.Fatalf("seed %d request %d %v: hit %d blocks, naive %d", seed, i, r.Hashes, got[i], want)
						}
					}
				}
			})
		}
	}
}

// classic is textbook LRU or FIFO over single objects, as libCacheSim
// implements them: a list scanned in O(n).
func classic(ids []int64, capacity int, fifo bool) []bool {
	var list []int64 // front = next victim
	hits := make([]bool, len(ids))
	for i, id := range ids {
		at := -1
		for j, x := range list {
			if x == id {
				at = j
			}
		}
		if at >= 0 {
			hits[i] = true
			if !fifo {
				list = append(append(list[:at], list[at+1:]...), id)
			}
			continue
		}
		if capacity == 0 {
			continue
		}
		if len(list) == capacity {
			list = list[1:]
		}
		list = append(list, id)
	}
	return hits
}

// On single-block requests the prefix rule is void and block LRU and FIFO
// are the classic ones.
func TestSingleBlockStreamsAreClassic(t *testing.T) {
	for _, capacity := range []int{0, 1, 3, 17, 100} {
		for _, pol := range []string{"lru", "fifo"} {
			rng := rand.New(rand.NewPCG(uint64(capacity), 3))
			var reqs []blocktrace.Request
			var ids []int64
			for i := 0; i < 3000; i++ {
				id := int64(rng.IntN(150))
				if rng.IntN(3) == 0 { // a hot set
					id = int64(rng.IntN(10))
				}
				ids = append(ids, id)
				reqs = append(reqs, blocktrace.Request{Index: i, Input: 16, Hashes: []int64{id}, Conv: -1})
			}
			got := engineHits(t, pol, capacity, reqs)
			want := classic(ids, capacity, pol == "fifo")
			for i := range got {
				if (got[i] == 1) != want[i] {
					t.Fatalf("%s capacity %d request %d: hit %d, classic %v", pol, capacity, i, got[i], want[i])
				}
			}
		}
	}
}

// loadMooncake reads a Mooncake trace with a minimal parser of its own (the
// importer package is tested on its own), or skips the test when the data
// are absent.
func loadMooncake(t testing.TB, name string) []blocktrace.Request {
	t.Helper()
	d := shareddata.Dir()
	if d == "" {
		t.Skip("shared/data not found above the working directory")
	}
	f, err := os.Open(filepath.Join(d, "mooncake", name))
	if err != nil {
		t.Skipf("Mooncake trace absent: %v", err)
	}
	defer f.Close()
	var reqs []blocktrace.Request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec struct {
			Timestamp float64 `json:"timestamp"`
			Input     int64   `json:"input_length"`
			Output    int64   `json:"output_length"`
			Hashes    []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s line %d: %v", name, len(reqs)+1, err)
		}
		reqs = append(reqs, blocktrace.Request{Index: len(reqs), Time: rec.Timestamp / 1000, Input: rec.Input,
			Output: rec.Output, Hashes: rec.Hashes, Conv: -1})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// Mooncake's ids are prefix-chained: an id always has the same parent, so
// naming a block by its hash alone is the same as by its prefix.
func checkChained(t *testing.T, reqs []blocktrace.Request) {
	t.Helper()
	parent := map[int64]int64{}
	for i, r := range reqs {
		for j, h := range r.Hashes {
			p := int64(-1)
			if j > 0 {
				p = r.Hashes[j-1]
			}
			if q, ok := parent[h]; ok && q != p {
				t.Fatalf("request %d: id %d has parents %d and %d", i, h, q, p)
			}
			parent[h] = p
		}
	}
}

func TestMatchesNaiveOnMooncake(t *testing.T) {
	traces := []string{"synthetic_trace.jsonl", "conversation_trace.jsonl"}
	capacities := []int{64, 1024}
	if testing.Short() {
		traces, capacities = traces[:1], capacities[:1]
	}
	for _, name := range traces {
		reqs := loadMooncake(t, name)
		checkChained(t, reqs)
		for _, capacity := range capacities {
			for _, pol := range []string{"lru", "fifo"} {
				t.Run(fmt.Sprintf("%s/%d/%s", name, capacity, pol), func(t *testing.T) {
					got := engineHits(t, pol, capacity, reqs)
					nv := newNaive(capacity, pol == "fifo", true)
					total := 0
					for i, r := range reqs {
						if want := nv.serve(i, r.Hashes); got[i] != want {
							t.Fatalf("request %d: hit %d blocks, naive %d", i, got[i], want)
						}
						total += got[i]
					}
					if total == 0 || len(nv.blocks) <= capacity {
						t.Fatalf("trivial instance: %d hits, %d distinct blocks for %d cached", total, len(nv.blocks), capacity)
					}
				})
			}
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }
