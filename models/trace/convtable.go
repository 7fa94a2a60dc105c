package trace

import (
	"bytes"
	"hash/maphash"
)

// ConvTable interns conversation names into dense ids 0, 1, 2, … in order
// of first appearance, as the Reader numbers them, without a pointer the
// garbage collector would have to scan: the names lie end to end in one
// byte arena, and the index is an open-addressing hash table of integers.
// A map[string]int of 2·10^7 names (a 10^8-turn trace) is 2·10^7 strings
// that every collection walks; this table is four flat slices, about 30
// bytes per conversation plus its name, which a collection does not look
// into. The zero value is an empty table.
type ConvTable struct {
	arena []byte
	// ends[i] is the arena offset just past name i (name i starts at
	// ends[i−1], or 0).
	ends []int64
	// slots is the index, a power of two long: 0 is empty, else the low 32
	// bits hold the id + 1 and the high 32 bits the name's hash's high
	// bits, compared before the name.
	slots []uint64
	seed  maphash.Seed
	init  bool
}

// maxConvs is the most conversations a ConvTable holds (ids fit the
// slot's 32 bits, 0 kept for empty).
const maxConvs = 1<<32 - 2

// Len returns the number of names interned.
func (t *ConvTable) Len() int { return len(t.ends) }

// Name returns the bytes of name id (aliasing the arena: valid until the
// next Intern).
func (t *ConvTable) Name(id int) []byte {
	start := int64(0)
	if id > 0 {
		start = t.ends[id-1]
	}
	return t.arena[start:t.ends[id]]
}

func (t *ConvTable) hash(name []byte) uint64 {
	if !t.init {
		t.seed, t.init = maphash.MakeSeed(), true
	}
	return maphash.Bytes(t.seed, name)
}

// Lookup returns the id of name and whether it is interned.
func (t *ConvTable) Lookup(name []byte) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	h := t.hash(name)
	id, _, ok := t.find(name, h)
	return id, ok
}

// find returns name's id when it is interned, else the slot where it
// would go.
func (t *ConvTable) find(name []byte, h uint64) (id, slot int, ok bool) {
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, int(i), false
		}
		if s>>32 == tag {
			if id := int(uint32(s)) - 1; bytes.Equal(t.Name(id), name) {
				return id, int(i), true
			}
		}
	}
}

// Intern returns the id of name, adding it (with the next id) when it is
// new; added reports which. It reports ok = false, adding nothing, when
// the table is full (2^32 − 2 names).
func (t *ConvTable) Intern(name []byte) (id int, added, ok bool) {
	if 4*(len(t.ends)+1) > 3*len(t.slots) { // load ≤ 3/4
		t.grow()
	}
	h := t.hash(name)
	id, slot, found := t.find(name, h)
	if found {
		return id, false, true
	}
	if len(t.ends) >= maxConvs {
		return 0, false, false
	}
	id = len(t.ends)
	t.arena = append(t.arena, name...)
	t.ends = append(t.ends, int64(len(t.arena)))
	t.slots[slot] = h>>32<<32 | uint64(id+1)
	return id, true, true
}

// grow doubles the index (16 slots at first) and re-enters every name.
func (t *ConvTable) grow() {
	n := max(16, 2*len(t.slots))
	t.slots = make([]uint64, n)
	mask := uint64(n - 1)
	for id := range t.ends {
		h := t.hash(t.Name(id))
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h>>32<<32 | uint64(id+1)
	}
}
