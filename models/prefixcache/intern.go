package prefixcache

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// Interner numbers the blocks of a trace: it maps each (parent block, hash)
// pair to a dense BlockID, so that equal ids always mean equal prefixes
// whatever the trace's hashing. It also numbers categories and counts the
// turns of linked conversations. One Interner serves any number of caches
// replaying the same trace.
type Interner struct {
	// direct holds, for small non-negative hashes (traces number their
	// hashes densely), the first block seen with hash h (id + 1 and
	// parent) at direct[h>>directBits][h&directMask]; table holds the
	// rest, and every block whose hash was taken first under another
	// parent. Pages are allocated when first touched, so that neither a
	// large first hash nor growth allocates (and copies) more than the
	// hashes in use.
	direct [][]directSlot
	table  edgeTable
	blocks int // distinct blocks numbered so far
	cats   map[string]int
	// lastCat is the previous request's category (−1 before the first).
	lastCat int
	names   []string
	// seen has a bit per dense conversation id, set at its first request;
	// more counts the later requests of the conversations that have them,
	// so that a conversation of one request costs one bit. Far-out ids
	// are counted in sparse.
	seen   []uint64
	more   map[int]int32
	sparse map[int]int32
	last   float64
	n      int
}

// NewInterner returns an empty interner.
func NewInterner() *Interner {
	return &Interner{lastCat: -1, cats: map[string]int{}, more: map[int]int32{}, sparse: map[int]int32{}}
}

// Blocks returns the number of distinct blocks seen so far.
func (in *Interner) Blocks() int { return in.blocks }

// Categories returns the number of distinct categories seen so far.
func (in *Interner) Categories() int { return len(in.names) }

// CategoryName returns the name of category c.
func (in *Interner) CategoryName(c int) string { return in.names[c] }

// Intern converts r into a Req whose Blocks are appended to arena; it
// returns the request and the extended arena. Requests must come in trace
// order: a negative length, a time earlier than the previous request's or
// too many distinct blocks is an error naming the request.
func (in *Interner) Intern(r *blocktrace.Request, arena []BlockID) (Req, []BlockID, error) {
	var q Req
	arena, err := in.InternTo(&q, r, arena)
	return q, arena, err
}

// InternTo is Intern writing the request into *q, which a replay's batch
// holds already: the request is not copied on its way there.
func (in *Interner) InternTo(q *Req, r *blocktrace.Request, arena []BlockID) ([]BlockID, error) {
	if len(r.Hashes) > math.MaxInt32-in.blocks {
		if err := CheckNext(r, in.n > 0, in.last); err != nil {
			return arena, err
		}
		return arena, fmt.Errorf("request %d: more than %d distinct blocks", r.Index, math.MaxInt32)
	}
	if err := in.InternObject(q, r); err != nil {
		return arena, err
	}
	start := len(arena)
	before := BlockID(in.blocks)
	parent := BlockID(-1)
	q.Seen = -1
	for i, h := range r.Hashes {
		id := in.lookup(parent, h)
		if id >= before && q.Seen < 0 {
			q.Seen = i
		}
		arena = append(arena, id)
		parent = id
	}
	if q.Seen < 0 {
		q.Seen = len(r.Hashes)
	}
	q.Blocks = arena[start:len(arena):len(arena)]
	return arena, nil
}

// InternObject is InternTo without the blocks: it checks r, the next
// request of the trace, and writes it into *q with its category and turn
// numbered, leaving q.Blocks nil and q.Seen 0, for a cache that serves
// objects (Cache.ServeObject), which knows a block by its hash. The
// blocks of r are not numbered: an Interner used so knows no blocks.
func (in *Interner) InternObject(q *Req, r *blocktrace.Request) error {
	if err := CheckNext(r, in.n > 0, in.last); err != nil {
		return err
	}
	in.n++
	in.last = r.Time
	*q = Req{Index: r.Index, Time: r.Time, Input: r.Input, Output: r.Output, Conv: r.Conv, Turn: 1}
	c := in.lastCat
	if c < 0 || in.names[c] != r.Category { // most requests repeat the previous one's
		var ok bool
		if c, ok = in.cats[r.Category]; !ok {
			c = len(in.names)
			in.cats[r.Category] = c
			in.names = append(in.names, r.Category)
		}
		in.lastCat = c
	}
	q.Category = c
	if r.Conv >= 0 {
		q.Turn = in.turn(r.Conv)
	}
	return nil
}

// CheckNext checks request r, the next of a trace: its lengths are not
// negative and, when it is not the first (later), its time is not earlier
// than the previous request's, last seconds.
func CheckNext(r *blocktrace.Request, later bool, last float64) error {
	if r.Input < 0 || r.Output < 0 {
		return fmt.Errorf("request %d: negative length (input %d, output %d tokens)", r.Index, r.Input, r.Output)
	}
	if later && r.Time < last {
		return fmt.Errorf("request %d: time %g s is earlier than the previous request's %g s", r.Index, r.Time, last)
	}
	return nil
}

// turn counts a request of conversation c and returns its turn number.
func (in *Interner) turn(c int) int {
	_, far := in.sparse[c]
	if far || c >= 64*len(in.seen)+1<<16 {
		in.sparse[c]++
		return int(in.sparse[c])
	}
	w, bit := c>>6, uint64(1)<<(c&63)
	for w >= len(in.seen) {
		in.seen = append(in.seen, 0)
	}
	if in.seen[w]&bit == 0 {
		in.seen[w] |= bit
		return 1
	}
	in.more[c]++
	return int(in.more[c]) + 1
}

// lookup returns the id of block (parent, h), numbering it if it is new.
func (in *Interner) lookup(parent BlockID, h int64) BlockID {
	next := BlockID(in.blocks)
	if h >= 0 && h < max(1<<20, 4*int64(next)) {
		pg := int(h >> directBits)
		if pg >= len(in.direct) {
			in.direct = append(in.direct, make([][]directSlot, pg+1-len(in.direct))...)
		}
		if in.direct[pg] == nil {
			in.direct[pg] = make([]directSlot, 1<<directBits)
		}
		switch d := &in.direct[pg][h&directMask]; {
		case d.id1 == 0:
			// The range grows with the number of blocks, so h may have
			// been stored in the table while it was out of range.
			if id, ok := in.table.find(parent, h); ok {
				return id
			}
			*d = directSlot{id1: next + 1, parent: parent}
			in.blocks++
			return next
		case d.parent == parent:
			return d.id1 - 1
		}
	}
	id, ok := in.table.findOrAdd(parent, h, next)
	if !ok {
		in.blocks++
	}
	return id
}

// Touch asks the processor to start loading the place where the first
// block of a chain with first hash h would be found, and nothing more: a caller that knows the chains it
// will intern next touches them a few requests ahead, so that the
// memory is being fetched while it interns the requests before (where
// most lookups miss the processor's caches, as on a stream of single
// blocks from 10^6 objects). It changes nothing that Intern returns.
func (in *Interner) Touch(h int64) {
	if h < 0 || h >= max(1<<20, 4*int64(in.blocks)) {
		return
	}
	if pg := int(h >> directBits); pg < len(in.direct) && in.direct[pg] != nil {
		// A prefetch, not a load: a load that misses holds up the
		// processor's retiring of everything after it, so that touching
		// 8 requests ahead overlapped little more than one request.
		prefetch.Line(unsafe.Pointer(&in.direct[pg][h&directMask]))
	}
}

// directBits is the base-2 logarithm of the hashes per page of
// Interner.direct (a page is 32 KiB).
const (
	directBits = 12
	directMask = 1<<directBits - 1
)

// directSlot is the first block seen with a hash: its id + 1 (0 when
// none) and its parent, side by side so that a lookup reads one place.
type directSlot struct {
	id1, parent BlockID
}

// edgeTable maps (parent, hash) pairs to block ids: open addressing with
// linear probing, at most half full. It replaces a Go map with a struct key
// on the hottest path of a replay (one lookup per block reference), where
// it is several times faster; the package tests check it against the map
// semantics through the naive cache and the Interner tests.
type edgeTable struct {
	slots []edgeSlot
	n     int
}

type edgeSlot struct {
	hash   int64
	parent BlockID
	id1    BlockID // id + 1; 0 marks an empty slot
}

func (t *edgeTable) index(parent BlockID, h int64) uint64 {
	x := uint64(h)*0x9E3779B97F4A7C15 ^ uint64(uint32(parent))*0xC2B2AE3D27D4EB4F
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return x ^ x>>32
}

// find returns the id of (parent, h) and whether it is there.
func (t *edgeTable) find(parent BlockID, h int64) (BlockID, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.index(parent, h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id1 == 0 {
			return 0, false
		}
		if s.hash == h && s.parent == parent {
			return s.id1 - 1, true
		}
	}
}

// findOrAdd returns the id of (parent, h) and true, or stores id for it
// and returns id and false.
func (t *edgeTable) findOrAdd(parent BlockID, h int64, id BlockID) (BlockID, bool) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.index(parent, h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id1 == 0 {
			*s = edgeSlot{hash: h, parent: parent, id1: id + 1}
			t.n++
			return id, false
		}
		if s.hash == h && s.parent == parent {
			return s.id1 - 1, true
		}
	}
}

func (t *edgeTable) resize() {
	old := t.slots
	t.slots = make([]edgeSlot, max(1<<12, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.id1 == 0 {
			continue
		}
		i := t.index(s.parent, s.hash) & mask
		for t.slots[i].id1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// remove deletes (parent, h), which must be in the table (a Forgetter's
// forgotten block). The entries after it in its probe run are shifted back
// so that every entry stays reachable from its home without tombstones
// (as slotTable.remove does).
func (t *edgeTable) remove(parent BlockID, h int64) {
	mask := uint64(len(t.slots) - 1)
	i := t.index(parent, h) & mask
	for s := &t.slots[i]; s.hash != h || s.parent != parent || s.id1 == 0; s = &t.slots[i] {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.slots[j].id1 != 0; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		s := &t.slots[j]
		home := t.index(s.parent, s.hash) & mask
		if (j-home)&mask < (j-i)&mask {
			continue
		}
		t.slots[i] = *s
		i = j
	}
	t.slots[i] = edgeSlot{}
	t.n--
}
