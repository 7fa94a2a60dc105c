package prefixcache

// Forgetter numbers the blocks of a trace for one cache and forgets the
// blocks that cache no longer needs, so that its memory follows the cache's
// working set and not the trace (an Interner keeps every block ever seen).
// Its ids are not in order of first appearance: an id is reused once its
// block is forgotten, so every id stays below the largest number of blocks
// known at once.
//
// It retains a block (keeps its (parent, hash) → id entry and does not
// reuse its id) while the block is cached, or held by its cache's policy
// (a Remembering policy's ghost: Hold and Release), or has a retained
// child, whose key names it; it counts these references per block and
// forgets the block when they drop to none. It is correct for a cache
// whose policy is CachedOnly or Remembering, kept in step with it: intern
// a request (Chain, which counts its blocks as cached), serve it, call
// Forget for every block the cache evicts (Cache.OnEvict) and for the
// blocks of the chain that were not admitted, and let the policy Hold and
// Release the evicted ids it keeps. Then an id means one (parent, hash)
// pair for as long as its block is retained, and every block the policy
// keeps state for (cached or held) is retained, because:
//   - a retained block's parent is retained (the child's reference), so a
//     live key's parent id is live and names the block it named when the
//     key was made;
//   - a forgotten id has no references: it is not cached, not held, and no
//     live key names it as parent, so giving it to a new block cannot make
//     an old key, or the policy's state, mean that new block;
//   - a retained block that comes back is found by its key: it keeps its
//     id, as with an Interner (a ghost hit stays a hit).
//
// So the ids of the blocks the policy can tell apart are a renaming of an
// Interner's, which a policy that orders blocks without comparing their
// names cannot see, and a replay gives the same hits and evictions as with
// an Interner (the blocksim tests check it). With a CachedOnly policy
// nothing is held and the retained blocks between requests are exactly
// the cached ones (the cached set is prefix-closed); with holds they are
// the cached blocks, the held ones and the uncached ancestors of held
// ones: at most capacity + held·(longest chain) between requests, plus
// one chain while a request is served. What it cannot tell is whether a
// forgotten block was seen before: that is the ideal figures' question,
// which needs every block.
type Forgetter struct {
	ids    edgeTable // (parent, hash) → id, known blocks only
	keys   []edgeKey // keys[id], the (parent, hash) pair of a known id
	refs   []int32   // refs[id]: cached (1 or 0) + holds + known children
	cached []bool    // cached[id]: counted as cached (since Chain, until Forget)
	free   []BlockID // forgotten ids, reused last in first out
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
// numbering the blocks not known, and returns the extended arena. Every
// block of the chain counts as cached until Forget says otherwise.
func (f *Forgetter) Chain(hashes []int64, arena []BlockID) []BlockID {
	parent := BlockID(-1)
	for _, h := range hashes {
		id, ok := f.ids.findOrAdd(parent, h, f.next())
		if !ok {
			f.number(id, edgeKey{parent, h})
			if parent >= 0 {
				f.refs[parent]++
			}
		}
		if !f.cached[id] {
			f.cached[id] = true
			f.refs[id]++
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
		f.refs[id], f.cached[id] = 0, false
		return
	}
	f.keys = append(f.keys, k)
	f.refs = append(f.refs, 0)
	f.cached = append(f.cached, false)
}

// Forget records that block id is no longer cached (its cache evicted it,
// or did not admit it); the block is forgotten unless it is still held or
// has a known child, and then its parent may be forgotten in turn. The next
// Chain through a forgotten key numbers it anew. Forgetting an id not
// counted as cached does nothing, so that a caller may forget a chain's
// blocks without knowing which of them it forgot already.
func (f *Forgetter) Forget(id BlockID) {
	if id < 0 || int(id) >= len(f.keys) || !f.cached[id] {
		return
	}
	f.cached[id] = false
	f.Release(id)
}

// Hold records that the cache's policy keeps block id, which must be
// known (cached, or held already), after its eviction: the block keeps its
// id and key until as many Release calls.
func (f *Forgetter) Hold(id BlockID) { f.refs[id]++ }

// Release drops one reference to block id (a Hold, or being cached) and
// forgets the block, then its ancestors, while they have none left.
func (f *Forgetter) Release(id BlockID) {
	for id >= 0 {
		if f.refs[id]--; f.refs[id] > 0 {
			return
		}
		k := f.keys[id]
		f.ids.remove(k.parent, k.hash)
		f.keys[id].parent = forgotten
		f.free = append(f.free, id)
		id = k.parent
	}
}
