package stackcurve

import (
	"fmt"
	"math"
	"sort"
)

// BlockLRU is block-level LRU — prefixcache.NewLRU in a prefixcache.Cache —
// at many capacities at once, by Mattson's stack distances over the prefix
// tree (the proof is the package documentation, "Block level"). It is fed
// the interned chains of the requests in trace order and tells, for each
// request and capacity, the hit in blocks and the blocks evicted, exactly as
// a cache of that capacity would.
//
// Its memory is 4 bytes per distinct block seen (its stack holds every
// block ever used, as the ideal figures of a replay do) plus 8 bytes per
// stamp slot, at most twice the distinct blocks and the longest chain: about
// 20 bytes per distinct block. Stamps are int32: Serve refuses a trace of
// more than about 10^9 distinct blocks rather than wrap.
type BlockLRU struct {
	caps      []int   // capacities, blocks
	maxCap    int     // the largest of caps
	ts        []int32 // ts[id]: the block's latest-use stamp, 0 when never used
	owner     []int32 // owner[t]: the block stamped t (stale once restamped)
	tree      []int32 // Fenwick tree over stamps 1 … len(tree)−1: 1 per live stamp
	now       int32   // latest stamp given
	distinct  int     // blocks seen so far (the stack's depth)
	evictions []int64 // per capacity, cumulative
	pos       []int   // scratch: stack positions of the request's chain
}

// NewBlockLRU returns the engine for capacities caps, in blocks (each ≥ 0).
func NewBlockLRU(caps []int) (*BlockLRU, error) {
	s := &BlockLRU{caps: append([]int(nil), caps...), evictions: make([]int64, len(caps))}
	for _, c := range caps {
		if c < 0 {
			return nil, fmt.Errorf("block LRU curve: capacity %d blocks must be ≥ 0", c)
		}
		s.maxCap = max(s.maxCap, c)
	}
	s.tree = make([]int32, 1025)
	s.owner = make([]int32, 1025)
	return s, nil
}

// Evictions returns the blocks evicted so far at capacity i (the index in
// the capacities given to NewBlockLRU).
func (s *BlockLRU) Evictions(i int) int64 { return s.evictions[i] }

// Serve serves one request whose chain, root first, is of block ids
// numbered densely in order of first appearance (prefixcache.Interner; a
// chain is a path of the prefix tree, so no id occurs twice in it), and
// writes into hits[i] the request's hit at capacity i, in blocks: the
// longest cached prefix of the chain in a cache of that capacity.
func (s *BlockLRU) Serve(chain []int32, hits []int) error {
	// Stack positions before the request: blocks used before are a prefix
	// of the chain (a block's parent is used whenever it is), and their
	// positions increase along it. Positions ≥ the largest capacity hit
	// nowhere, so the walk stops there.
	// A block stamped one below the previous one is one position deeper
	// (the previous block's stamp is the only live one between), so the
	// Fenwick tree is asked once per run of consecutive stamps, not once
	// per block: a chain restamped whole keeps its stamps consecutive.
	s.pos = s.pos[:0]
	var p int
	var prev int32
	for _, id := range chain {
		if int(id) >= len(s.ts) || s.ts[id] == 0 {
			break
		}
		if t := s.ts[id]; len(s.pos) > 0 && t == prev-1 {
			p++
		} else {
			p = s.distinct - s.prefix(t) // live stamps above the block's
		}
		if p >= s.maxCap {
			break
		}
		s.pos = append(s.pos, p)
		prev = s.ts[id]
	}
	n := len(chain)
	before := s.distinct
	// Restamp the chain: root most recent, deeper blocks behind it.
	if int(s.now)+n >= len(s.tree) {
		if 2*(s.distinct+n)+1 > math.MaxInt32 {
			return fmt.Errorf("block LRU curve: %d distinct blocks and a chain of %d: more than its 32-bit stamps can order", s.distinct, n)
		}
		s.compact(n)
	}
	// Unstamp the chain's used blocks a run of consecutive stamps at a
	// time (top, top−1, … along the chain), and stamp it anew as one run.
	var top, bot int32 // the run being gathered: stamps bot … top
	for _, id := range chain {
		if int(id) >= len(s.ts) {
			s.ts = append(s.ts, make([]int32, max(int(id)+1-len(s.ts), len(s.ts)/2, 1024))...)
		}
		t := s.ts[id]
		if t == 0 {
			s.distinct++
			continue
		}
		if top != 0 && t == bot-1 {
			bot = t
			continue
		}
		if top != 0 {
			s.addRange(bot, top, -1)
		}
		top, bot = t, t
	}
	if top != 0 {
		s.addRange(bot, top, -1)
	}
	for j := n - 1; j >= 0; j-- {
		s.now++
		s.ts[chain[j]] = s.now
		s.owner[s.now] = chain[j]
	}
	if n > 0 {
		s.addRange(s.now-int32(n)+1, s.now, 1)
	}
	for i, c := range s.caps {
		h := sort.SearchInts(s.pos, c) // positions < c: they increase
		hits[i] = h
		// evicted = cached before + admitted − cached after
		s.evictions[i] += int64(min(c, before) + min(n, c) - h - min(c, s.distinct))
	}
	return nil
}

// Runs appends to dst the stack positions, before the latest Serve, of
// the blocks of its chain that some capacity could hit, as runs of
// consecutive positions (pairs s, l: positions s … s+l−1, in blocks), and
// returns the extended slice: the request's hit at a capacity of C blocks
// (at most the largest capacity) is Σ clamp(C − s, 0, l) over the runs,
// the figure Serve wrote. A Late store keeps a request so, once for every
// capacity.
func (s *BlockLRU) Runs(dst []int64) []int64 {
	for i, p := range s.pos {
		if i > 0 && p == s.pos[i-1]+1 {
			dst[len(dst)-1]++
			continue
		}
		dst = append(dst, int64(p), 1)
	}
	return dst
}

// prefix returns the number of live stamps ≤ t.
func (s *BlockLRU) prefix(t int32) int {
	n := 0
	for i := int(t); i > 0; i &= i - 1 {
		n += int(s.tree[i])
	}
	return n
}

// addRange adds d at every stamp a … b (1 ≤ a ≤ b < len(tree)) in
// O(b − a + log len(tree)): node i of the tree sums the stamps
// i − lowbit(i) + 1 … i, so the nodes a … b each take d times their share
// of the range, and above b only the nodes whose span holds b (the ones a
// point update at b visits) hold part of it, from their span's start or a
// up to b.
func (s *BlockLRU) addRange(a, b int32, d int32) {
	for i := a; i <= b; i++ {
		s.tree[i] += d * (i - max(i-i&-i, a-1))
	}
	for i := int(b) + int(b&-b); i < len(s.tree); i += i & -i {
		s.tree[i] += d * (b - max(int32(i-i&-i), a-1))
	}
}

// compact renumbers the live stamps 1 … distinct in their order and makes
// room for at least n more stamps.
func (s *BlockLRU) compact(n int) {
	size := max(2*(s.distinct+n), 1024) + 1
	owner := make([]int32, size)
	var k int32
	for t := int32(1); t <= s.now; t++ {
		if id := s.owner[t]; s.ts[id] == t {
			k++
			s.ts[id] = k
			owner[k] = id
		}
	}
	s.owner, s.now = owner, k
	s.tree = make([]int32, size)
	for i := 1; i < size; i++ { // Fenwick tree of ones at 1 … k, in O(size)
		if i <= int(k) {
			s.tree[i]++
		}
		if j := i + i&-i; j < size {
			s.tree[j] += s.tree[i]
		}
	}
}
