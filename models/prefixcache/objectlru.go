package prefixcache

import (
	"fmt"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"
)

// objectLRU is the object mode (ServeObject) of a cache under LRU itself
// (IsLRU): the cache's slots, its table and the policy's recency list in
// one structure, so that a request reads fewer lines of memory. In the
// general object mode a hit reads the table entry, the slot's key (to
// confirm it) and the LRU node, and an eviction the victim's node, its key
// (a second array) and its table entry, each a line no processor cache
// holds on a large stream; here a node holds the key beside its links, so
// the key comes with the node, and after each eviction the table entry of
// the next victim (the new back of the list, whose node the unlink has
// just written) is prefetched. An object is always an evictable leaf, so
// LRU's victim is the back of the list, and the hits and evictions are
// those of Cache.ServeObject under NewLRU (TestObjectModeEqualsGeneral
// compares every request with the chain mode, TestObjectLRULongStreams on
// streams long enough to resize the table and empty it again).
type objectLRU struct {
	// nodes[0] is the sentinel of the recency list (most recent after
	// it); nodes[s+1] holds the object in slot s.
	nodes []objNode
	// e is the table of the cached keys: entries as objTable's (the
	// key's fingerprint and slot + 1, which is the node's index), at most
	// 3/4 full, open addressing with linear probing and backward-shift
	// deletion.
	e     []objEntry
	shift uint8 // 32 − log2(len(e))
}

// objNode is a cached object: its key and its neighbours in the recency
// list (node indices).
type objNode struct {
	key        int64
	prev, next int32
}

func newObjectLRU() *objectLRU { return &objectLRU{nodes: make([]objNode, 1)} }

func (o *objectLRU) home(fp uint32) int { return int(fp >> o.shift) }

// find returns the node of key, 0 when it is not cached.
func (o *objectLRU) find(key int64) int32 {
	if len(o.e) == 0 {
		return 0
	}
	fp := fingerprint(key)
	mask := len(o.e) - 1
	for i := o.home(fp); ; i = (i + 1) & mask {
		e := o.e[i]
		if e.slot1 == 0 {
			return 0
		}
		if e.fp == fp && o.nodes[e.slot1].key == key {
			return e.slot1
		}
	}
}

// serve serves object key in a cache of c.capacity objects and returns
// its hit (0 or 1), counting evictions in c.
func (o *objectLRU) serve(c *Cache, key int64) int {
	if n := o.find(key); n != 0 {
		o.unlink(n)
		o.pushFront(n)
		return 1
	}
	if c.capacity == 0 {
		return 0 // nothing evictable: the object is not admitted
	}
	var n int32
	if c.used >= c.capacity {
		n = o.nodes[0].prev // the victim: the least recent object
		old := o.nodes[n].key
		o.unlink(n)
		o.remove(old, n)
		c.evictions++
		if c.onEvictObject != nil {
			c.onEvictObject(old)
		}
		if b := o.nodes[0].prev; b != 0 {
			// The next victim's entry, most likely needed soon: its
			// node, written by the unlink, is at hand.
			prefetch.Line(unsafe.Pointer(&o.e[o.home(fingerprint(o.nodes[b].key))]))
		}
	} else {
		n = int32(len(o.nodes))
		o.nodes = append(o.nodes, objNode{})
		c.used++
	}
	o.nodes[n].key = key
	o.add(key, n)
	o.pushFront(n)
	return 0
}

func (o *objectLRU) unlink(n int32) {
	ns := o.nodes
	pv, nx := ns[n].prev, ns[n].next
	ns[pv].next = nx
	ns[nx].prev = pv
}

func (o *objectLRU) pushFront(n int32) {
	ns := o.nodes
	nx := ns[0].next
	ns[n].prev, ns[n].next = 0, nx
	ns[nx].prev = n
	ns[0].next = n
}

// add stores node n for key, which is not in the table; the table holds
// the len(o.nodes) − 2 other cached objects at most.
func (o *objectLRU) add(key int64, n int32) {
	if 4*(len(o.nodes)-1) > 3*len(o.e) {
		o.resize()
	}
	fp := fingerprint(key)
	mask := len(o.e) - 1
	i := o.home(fp)
	for o.e[i].slot1 != 0 {
		i = (i + 1) & mask
	}
	o.e[i] = objEntry{fp: fp, slot1: n}
}

// remove deletes the entry of key, which is in node n, shifting the
// entries after it in its probe run back (objTable.remove).
func (o *objectLRU) remove(key int64, n int32) {
	mask := len(o.e) - 1
	i := o.home(fingerprint(key))
	for o.e[i].slot1 != n {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; o.e[j].slot1 != 0; j = (j + 1) & mask {
		h := o.home(o.e[j].fp)
		if (j-h)&mask < (j-i)&mask {
			continue
		}
		o.e[i] = o.e[j]
		i = j
	}
	o.e[i] = objEntry{}
}

func (o *objectLRU) resize() {
	old := o.e
	size := max(64, 2*len(old))
	o.e = make([]objEntry, size)
	o.shift = uint8(32 - log2(size))
	mask := size - 1
	for _, e := range old {
		if e.slot1 == 0 {
			continue
		}
		i := o.home(e.fp)
		for o.e[i].slot1 != 0 {
			i = (i + 1) & mask
		}
		o.e[i] = e
	}
}

// touch prefetches the first table entry of key.
func (o *objectLRU) touch(key int64) {
	if len(o.e) > 0 {
		prefetch.Line(unsafe.Pointer(&o.e[o.home(fingerprint(key))]))
	}
}

// check is Cache.Check for the object LRU: the list holds every node once,
// the table finds each node's key in it and holds nothing else, and the
// count is c.used ≤ c.capacity.
func (o *objectLRU) check(c *Cache) error {
	seen := make([]bool, len(o.nodes))
	k := 0
	for n := o.nodes[0].next; n != 0; n = o.nodes[n].next {
		if n < 0 || int(n) >= len(o.nodes) || seen[n] || o.nodes[o.nodes[n].next].prev != n {
			return fmt.Errorf("prefix cache: the recency list is broken at node %d", n)
		}
		seen[n] = true
		k++
		if got := o.find(o.nodes[n].key); got != n {
			return fmt.Errorf("prefix cache: object %d is in node %d, the table says %d", o.nodes[n].key, n, got)
		}
	}
	entries := 0
	for _, e := range o.e {
		if e.slot1 != 0 {
			entries++
		}
	}
	if k != len(o.nodes)-1 || k != c.used || k > c.capacity || entries != k {
		return fmt.Errorf("prefix cache: %d objects listed, %d nodes, %d counted, %d in the table, capacity %d",
			k, len(o.nodes)-1, c.used, entries, c.capacity)
	}
	return nil
}
