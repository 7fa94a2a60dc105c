package prefixcache

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// The slot table agrees with a Go map under any sequence of adds, removes
// and finds over a small key space (so that probe runs collide, wrap
// around the end and are shifted back by removals), and every key stays
// reachable after each removal.
func TestSlotTableMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab slotTable
		ref := map[BlockID]int32{}
		keys := rapid.IntRange(1, 300).Draw(t, "keys")
		for op := rapid.IntRange(0, 2000).Draw(t, "ops"); op > 0; op-- {
			id := BlockID(rapid.IntRange(0, keys-1).Draw(t, "id"))
			_, in := ref[id]
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				slot := int32(op)
				if got := tab.add(id, slot); got == in {
					t.Fatalf("add(%d) = %v with the key present: %v", id, got, in)
				}
				if !in {
					ref[id] = slot
				}
			case 1:
				if in {
					tab.remove(id)
					delete(ref, id)
				}
			}
			if got, want := tab.find(id), slotOf(ref, id); got != want {
				t.Fatalf("find(%d) = %d, want %d", id, got, want)
			}
			if tab.n != len(ref) {
				t.Fatalf("%d entries, want %d", tab.n, len(ref))
			}
		}
		for id, s := range ref {
			if got := tab.find(id); got != s {
				t.Fatalf("find(%d) = %d at the end, want %d", id, got, s)
			}
		}
	})
}

func slotOf(m map[BlockID]int32, id BlockID) int32 {
	if s, ok := m[id]; ok {
		return s
	}
	return -1
}

// A cache's memory follows its capacity: a stream of 10^5 distinct
// single-block requests through a 100-block LRU or FIFO cache leaves
// at most 100 slots, a table of at most 256 entries and policy arrays of
// at most 2·101 nodes, where they used to hold one per distinct block.
func TestCacheMemoryBoundedByCapacity(t *testing.T) {
	for _, mk := range []Factory{NewLRU, NewFIFO} {
		p, _ := mk(Config{})
		c, err := New(100*16, 16, p)
		if err != nil {
			t.Fatal(err)
		}
		in := NewInterner()
		var arena []BlockID
		for i := 0; i < 100_000; i++ {
			q, a, err := in.Intern(&blocktrace.Request{Index: i, Input: 16, Hashes: []int64{int64(i)}}, arena[:0])
			if err != nil {
				t.Fatal(err)
			}
			arena = a
			if _, err := c.Serve(&q); err != nil {
				t.Fatal(err)
			}
		}
		if len(c.nodes) > 100 || len(c.table.e) > 256 || c.Len() != 100 {
			t.Fatalf("%T: %d slots, table of %d, %d cached; want ≤ 100, ≤ 256, 100", p, len(c.nodes), len(c.table.e), c.Len())
		}
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
		var nodes int // the policy's arrays: a node per slot and a sentinel, grown by doubling
		switch p := p.(type) {
		case *lru:
			nodes = len(p.nodes)
		case *fifo:
			nodes = len(p.nodes)
		}
		if nodes > 2*101 {
			t.Fatalf("%T: %d nodes, want ≤ 202", p, nodes)
		}
	}
}
