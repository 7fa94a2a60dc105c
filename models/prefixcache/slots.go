package prefixcache

// slotTable maps the BlockIDs of the blocks a cache holds to the cache's
// slots: open addressing with linear probing, at most half full, and
// backward-shift deletion (no tombstones), so that its size follows the
// number of cached blocks — bounded by the capacity — and not the number
// of distinct blocks of the trace. A cache's own arrays are indexed by
// slot; a slot is reused once its block is evicted.
type slotTable struct {
	e     []slotEntry
	n     int
	shift uint8 // 64 − log2(len(e))
}

type slotEntry struct {
	id1  BlockID // id + 1; 0 marks an empty entry
	slot int32
}

// home is the first probe for id: Fibonacci hashing, whose high bits
// spread the dense, consecutive ids an Interner gives.
func (t *slotTable) home(id BlockID) int {
	return int((uint64(uint32(id)) * 0x9E3779B97F4A7C15) >> t.shift)
}

// find returns the slot of id, or -1 when id is not in the table.
func (t *slotTable) find(id BlockID) int32 {
	if t.n == 0 {
		return -1
	}
	mask := len(t.e) - 1
	for i := t.home(id); ; i = (i + 1) & mask {
		e := t.e[i]
		if e.id1 == id+1 {
			return e.slot
		}
		if e.id1 == 0 {
			return -1
		}
	}
}

// add stores slot for id and reports true, or reports false (and changes
// nothing) when id is already there.
func (t *slotTable) add(id BlockID, slot int32) bool {
	if 2*(t.n+1) > len(t.e) {
		t.resize()
	}
	mask := len(t.e) - 1
	for i := t.home(id); ; i = (i + 1) & mask {
		e := &t.e[i]
		if e.id1 == id+1 {
			return false
		}
		if e.id1 == 0 {
			*e = slotEntry{id1: id + 1, slot: slot}
			t.n++
			return true
		}
	}
}

// remove deletes id, which must be in the table. The entries after it in
// its probe run are shifted back so that every entry stays reachable
// from its home without tombstones.
func (t *slotTable) remove(id BlockID) {
	mask := len(t.e) - 1
	i := t.home(id)
	for t.e[i].id1 != id+1 {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.e[j].id1 != 0; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		h := t.home(t.e[j].id1 - 1)
		if (j-h)&mask < (j-i)&mask {
			continue
		}
		t.e[i] = t.e[j]
		i = j
	}
	t.e[i] = slotEntry{}
	t.n--
}

func (t *slotTable) resize() {
	old := t.e
	size := max(64, 2*len(old))
	t.e = make([]slotEntry, size)
	t.shift = uint8(64 - log2(size))
	mask := size - 1
	for _, e := range old {
		if e.id1 == 0 {
			continue
		}
		i := t.home(e.id1 - 1)
		for t.e[i].id1 != 0 {
			i = (i + 1) & mask
		}
		t.e[i] = e
	}
}

// log2 returns the base-2 logarithm of a power of two.
func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}
