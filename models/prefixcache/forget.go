package prefixcache

// Forgetter numbers the blocks of a trace for one cache and forgets the
// blocks that cache no longer holds, so that its memory follows the cache's
// working set and not the trace (an Interner keeps every block ever seen).
// Its ids are not in order of first appearance: an id is reused once its
// block is forgotten, so every id stays below the largest number of blocks
// known at once, which is at most the cache's capacity plus the longest
// chain of a request.
//
// It is correct for a cache whose policy is CachedOnly, kept in step with
// it: intern a request (Chain), serve it, call Forget for every block the
// cache evicts (Cache.OnEvict) and for the blocks of the chain that were
// not admitted. Then the blocks known are exactly the cached ones between
// requests, and an id means one (parent, hash) pair for as long as its
// block is cached, because:
//   - the cached set is prefix-closed (the orphan-free rule), so the parent
//     of a known block is known: a live key's parent id is live and names
//     the same block it named when the key was made;
//   - only leaves are evicted, so a forgotten id has no cached children:
//     no live key names it as a parent, and giving it to a new block
//     cannot make an old key mean that new block.
//
// Equal prefixes get equal ids while cached, which is all a CachedOnly
// policy and the cache compare, so a replay gives the same hits and
// evictions as with an Interner (the blocksim tests check it). What it
// cannot tell is whether an uncached block was seen before: that is the
// ideal figures' question, which needs every block.
type Forgetter struct {
	ids  edgeTable // (parent, hash) → id, known blocks only
	keys []edgeKey // keys[id], the (parent, hash) pair of a known id
	free []BlockID // forgotten ids, reused last in first out
}

// edgeKey is a block as the prefix tree names it: its parent's id (-1 for
// a chain's first block) and its hash. A forgotten id's key has parent
// forgotten.
type edgeKey struct {
	parent BlockID
	hash   int64
}

// forgotten marks the key of an id that is not in use.
const forgotten BlockID = -2

// NewForgetter returns an empty forgetter.
func NewForgetter() *Forgetter { return &Forgetter{} }

// Len returns the number of blocks known now.
func (f *Forgetter) Len() int { return f.ids.n }

// Span returns one more than the largest id ever given: the length of the
// forgetter's id arrays, and a bound on the ids a cache has seen.
func (f *Forgetter) Span() int { return len(f.keys) }

// Chain appends to arena the ids of the chain of hashes, root first,
// numbering the blocks not known, and returns the extended arena.
func (f *Forgetter) Chain(hashes []int64, arena []BlockID) []BlockID {
	parent := BlockID(-1)
	for _, h := range hashes {
		id, ok := f.ids.findOrAdd(parent, h, f.next())
		if !ok {
			f.number(id, edgeKey{parent, h})
		}
		arena = append(arena, id)
		parent = id
	}
	return arena
}

// next returns the id the next new block gets: the latest forgotten one
// if any, else a new one.
func (f *Forgetter) next() BlockID {
	if n := len(f.free); n > 0 {
		return f.free[n-1]
	}
	return BlockID(len(f.keys))
}

// number records that id, which next returned, now names key k.
func (f *Forgetter) number(id BlockID, k edgeKey) {
	if n := len(f.free); n > 0 {
		f.free = f.free[:n-1]
		f.keys[id] = k
		return
	}
	f.keys = append(f.keys, k)
}

// Forget drops block id, which no cached block may have as parent; the
// next Chain through its key numbers it anew. Forgetting an id not in use
// does nothing, so that a caller may forget a chain's blocks without
// knowing which of them it forgot already.
func (f *Forgetter) Forget(id BlockID) {
	if id < 0 || int(id) >= len(f.keys) || f.keys[id].parent == forgotten {
		return
	}
	k := f.keys[id]
	f.ids.remove(k.parent, k.hash)
	f.keys[id].parent = forgotten
	f.free = append(f.free, id)
}
