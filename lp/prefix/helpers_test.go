package prefix

import (
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// randomChains returns n requests whose chains are root-to-node paths of a
// random tree of at most nodes blocks: each request either extends a
// random existing node by one to three new blocks (while blocks remain) or
// reuses the path to a random existing node.
func randomChains(r *rand.Rand, n, nodes int) []prefixcache.Req {
	parent := []int{-1} // node 0 is the root block
	var rs []blocktrace.Request
	for i := 0; i < n; i++ {
		v := r.IntN(len(parent))
		if len(parent) < nodes && r.IntN(2) == 0 {
			for k := 1 + r.IntN(3); k > 0 && len(parent) < nodes; k-- {
				parent = append(parent, v)
				v = len(parent) - 1
			}
		}
		var path []int64
		for u := v; u >= 0; u = parent[u] {
			path = append([]int64{int64(u)}, path...)
		}
		rs = append(rs, blocktrace.Request{Index: i, Time: float64(i), Input: int64(len(path)), Hashes: path, Conv: -1})
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		panic(err)
	}
	return reqs
}

// chains builds requests from explicit hash chains (hashes chained: equal
// hash means equal prefix).
func chains(t testing.TB, cs ...[]int64) []prefixcache.Req {
	t.Helper()
	rs := make([]blocktrace.Request, len(cs))
	for i, c := range cs {
		rs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: int64(len(c)), Hashes: c, Conv: -1}
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

func maxChain(reqs []prefixcache.Req) int {
	m := 0
	for _, q := range reqs {
		m = max(m, len(q.Blocks))
	}
	return m
}

// bruteMisses is the offline optimum by exhaustive search, written from the
// model's rules and not from the interval program: after request t the
// cache may hold any set S_t with chain_t ⊆ S_t ⊆ S_{t−1} ∪ chain_t, closed
// under parents, of at most capacity blocks (evicting leaf by leaf reaches
// exactly the parent-closed subsets); a request hits the longest prefix of
// its chain that is in S_{t−1}. It explores every reachable S_t, keeping
// the fewest misses per set. Blocks must be fewer than 63.
func bruteMisses(reqs []prefixcache.Req, capacity int) int {
	parent := map[prefixcache.BlockID]prefixcache.BlockID{}
	for _, q := range reqs {
		for d, id := range q.Blocks {
			if d == 0 {
				parent[id] = -1
			} else {
				parent[id] = q.Blocks[d-1]
			}
		}
	}
	closed := func(s uint64) bool {
		for b := 0; b < 64; b++ {
			if s>>b&1 == 1 {
				if p := parent[prefixcache.BlockID(b)]; p >= 0 && s>>uint(p)&1 == 0 {
					return false
				}
			}
		}
		return true
	}
	best := map[uint64]int{0: 0}
	for _, q := range reqs {
		var chain uint64
		for _, id := range q.Blocks {
			chain |= 1 << uint(id)
		}
		next := map[uint64]int{}
		for s, m := range best {
			hit := 0
			for hit < len(q.Blocks) && s>>uint(q.Blocks[hit])&1 == 1 {
				hit++
			}
			m += len(q.Blocks) - hit
			// Every subset of the optional blocks (S_{t−1} \ chain).
			opt := s &^ chain
			for sub := opt; ; sub = (sub - 1) & opt {
				ns := sub | chain
				if bitsSet(ns) <= capacity && closed(ns) {
					if old, ok := next[ns]; !ok || m < old {
						next[ns] = m
					}
				}
				if sub == 0 {
					break
				}
			}
		}
		best = next
	}
	out := -1
	for _, m := range best {
		if out < 0 || m < out {
			out = m
		}
	}
	return out
}

func bitsSet(s uint64) int {
	n := 0
	for ; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// policyMisses replays reqs through a prefix cache of capacity blocks under
// p and returns its misses.
func policyMisses(t testing.TB, reqs []prefixcache.Req, capacity int, p prefixcache.Policy) int {
	t.Helper()
	c, err := prefixcache.New(int64(capacity), 1, p) // 1-token blocks: capacity in blocks
	if err != nil {
		t.Fatal(err)
	}
	m := 0
	for i := range reqs {
		h, err := c.Serve(&reqs[i])
		if err != nil {
			t.Fatal(err)
		}
		m += len(reqs[i].Blocks) - h
	}
	return m
}
