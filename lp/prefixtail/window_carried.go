package prefixtail

import (
	"fmt"
	"slices"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// CarriedHistory returns the carried history of the relaxation over the
// requests wide (package comment, "Carried histories"): the blocks wide
// references that seen reports as used before wide's first request (the
// carried forest, closed under parents), one request per leaf of that
// forest, its chain the leaf's root path as wide's chains give it, its
// input the chain's tokens (len·block; a history request's cost is not
// counted), ordered by the leaf's first reference in wide, the latest
// first; then, last, the longest prefix of before (the chain of the
// request before wide's first, nil when none) whose blocks wide
// references, when not empty (the leaf request it equals, if any, left
// out), so that wide's first request hits as constant what the request
// before it held, as in the trace. It is a function of wide's chains,
// before's and one bit per block they reference. A carried block after a
// block that is not carried in one chain is an error (the chains were not
// numbered by one interner, or seen is wrong).
func CarriedHistory(wide []prefixcache.Req, before []prefixcache.BlockID, block int64, seen func(prefixcache.BlockID) bool) ([]prefixcache.Req, error) {
	type where struct{ t, d, first int32 }
	at := make(map[prefixcache.BlockID]where) // a carried block: its first reference in wide
	inner := make(map[prefixcache.BlockID]bool)
	ref := int32(0)
	for t := range wide {
		ch := wide[t].Blocks
		k := 0
		for k < len(ch) && seen(ch[k]) {
			k++
		}
		for d := k; d < len(ch); d++ {
			if seen(ch[d]) {
				return nil, fmt.Errorf("request %d of the relaxation: block %d at depth %d was used before the window but block %d above it was not (chains not numbered by one interner)", t, ch[d], d, ch[k])
			}
		}
		for d := range k {
			if _, ok := at[ch[d]]; !ok {
				at[ch[d]] = where{int32(t), int32(d), ref + int32(d)}
			}
			if d > 0 {
				inner[ch[d-1]] = true
			}
		}
		ref += int32(len(ch))
	}
	k := 0 // before's prefix that wide references (all of it carried: used at the request before)
	for k < len(before) {
		if _, ok := at[before[k]]; !ok {
			break
		}
		k++
	}
	leaves := make([]where, 0, len(at))
	for id, w := range at {
		if !inner[id] && (k == 0 || id != before[k-1]) {
			leaves = append(leaves, w)
		}
	}
	slices.SortFunc(leaves, func(a, b where) int { return int(b.first - a.first) }) // latest first reference first
	out := make([]prefixcache.Req, 0, len(leaves)+1)
	for _, w := range leaves {
		ch := slices.Clone(wide[w.t].Blocks[:w.d+1])
		out = append(out, prefixcache.Req{Index: len(out), Input: int64(len(ch)) * block, Blocks: ch})
	}
	if k > 0 {
		ch := slices.Clone(before[:k])
		out = append(out, prefixcache.Req{Index: len(out), Input: int64(len(ch)) * block, Blocks: ch})
	}
	return out, nil
}

// chainSet returns the set of blocks the chains of reqs hold.
func chainSet(reqs []prefixcache.Req) map[prefixcache.BlockID]bool {
	set := make(map[prefixcache.BlockID]bool)
	for _, q := range reqs {
		for _, id := range q.Blocks {
			set[id] = true
		}
	}
	return set
}

// idSet is a set of block ids, one bit per id, in pages of 2¹⁶ ids
// allocated when first touched (8 KB each), so that its size follows the
// ids used, not the largest.
type idSet struct{ pages [][]uint64 }

const idPageBits = 16

// add adds id (≥ 0) and reports whether it was already in the set.
func (s *idSet) add(id prefixcache.BlockID) bool {
	p := int(id) >> idPageBits
	if p >= len(s.pages) {
		s.pages = append(s.pages, make([][]uint64, p+1-len(s.pages))...)
	}
	if s.pages[p] == nil {
		s.pages[p] = make([]uint64, 1<<idPageBits/64)
	}
	w, b := &s.pages[p][int(id)&(1<<idPageBits-1)/64], uint64(1)<<(uint(id)%64)
	had := *w&b != 0
	*w |= b
	return had
}
