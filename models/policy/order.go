package policy

import "math"

// Order is an ordered set of conversations, each with a sort key (smaller
// first) and a value; it finds the first conversation in key order, and the
// first whose value is at least a threshold, in O(log n) expected time for n
// conversations in the set. Policies use it for their eviction order:
// recency for LRU, admission for FIFO, next arrival for Belady, with the
// value marking blocks beyond a conversation's TEL-safe budget.
//
// It is a treap over a node pool indexed by conversation id, so membership
// tests and updates need no map. While every Put brings a key above all
// keys in the set (recency keys do), it is instead a sequence of slots in
// key order with a max tree of the values over them: a Put takes the next
// slot, First is the lowest occupied slot (amortized O(1)), FirstAtLeast a
// descent of the max tree (maxTree: eight children a node, so a third as
// deep as a binary one). Its inner nodes are upper bounds, not maxima: a
// raise climbs only while it passes a bound, a lowering (an eviction's
// SetValue, a Remove) writes its leaf alone, and FirstAtLeast tightens the
// stale bounds it meets on a dead end. T-LRU's turn raises the
// conversation just served above every other value and then trims it: with
// exact maxima in a binary tree both climbed to the root. The first Put
// with a smaller key turns it into the treap for good.
type Order struct {
	nodes []orderNode
	root  int32
	rng   uint64
	size  int
	buf   []int32 // reused by path

	treap bool    // false: slot mode
	conv  []int32 // slot → conversation, -1 when empty
	tree  maxTree // the slots' values
	lo    int     // no slot below lo is occupied
	next  int     // slots at or above next are unused
	last  int     // the slot of the latest Put in slot mode, -1 if none
}

type orderNode struct {
	k1, k2      int64
	val, maxVal float64
	prio        uint64
	left, right int32
	slot        int32 // in slot mode
	in          bool
}

const none int32 = -1

// NewOrder returns an empty order.
func NewOrder() *Order { return &Order{root: none, rng: 0x9E3779B97F4A7C15, last: -1} }

// Len returns the number of conversations in the set.
func (o *Order) Len() int { return o.size }

// Contains reports whether conversation c is in the set.
func (o *Order) Contains(c int) bool { return c < len(o.nodes) && o.nodes[c].in }

// Put inserts conversation c with key (k1, k2) and value v, replacing its
// previous entry. Keys must be distinct across conversations; using c as k2
// or a unique turn index guarantees it.
func (o *Order) Put(c int, k1, k2 int64, v float64) {
	o.Remove(c)
	if len(o.nodes) <= c {
		o.grow(c)
	}
	if !o.treap {
		if o.above(k1, k2) {
			o.putSlot(c, k1, k2, v)
			return
		}
		o.toTreap()
	}
	o.rng ^= o.rng << 13 // xorshift: a fixed sequence keeps runs reproducible
	o.rng ^= o.rng >> 7
	o.rng ^= o.rng << 17
	o.nodes[c] = orderNode{k1: k1, k2: k2, val: v, maxVal: v, prio: o.rng, left: none, right: none, in: true}
	l, r := o.split(o.root, k1, k2)
	o.root = o.merge(o.merge(l, int32(c)), r)
	o.size++
}

// grow extends the node pool to hold conversation c, at least doubling it:
// ids arrive densely, so element-wise append (which grows large slices by
// a quarter) would copy the pool, and leave it behind as garbage, several
// times over.
func (o *Order) grow(c int) {
	n := max(c+1, 2*len(o.nodes), 64)
	nodes := make([]orderNode, n)
	copy(nodes, o.nodes)
	for i := len(o.nodes); i < n; i++ {
		nodes[i] = orderNode{left: none, right: none}
	}
	o.nodes = nodes
}

// SetValue changes the value of conversation c, which must be in the set.
// It walks down to c once and repairs the subtree maxima on the way back.
func (o *Order) SetValue(c int, v float64) {
	if !o.treap {
		o.nodes[c].val = v
		o.tree.set(int(o.nodes[c].slot), v)
		return
	}
	path := o.path(c)
	o.nodes[c].val = v
	o.update(int32(c))
	o.fix(path)
}

// path returns the nodes from the root down to c's parent.
func (o *Order) path(c int) []int32 {
	path := o.buf[:0]
	defer func() { o.buf = path }()
	t := o.root
	k1, k2 := o.nodes[c].k1, o.nodes[c].k2
	for t != int32(c) {
		path = append(path, t)
		if o.less(t, k1, k2) {
			t = o.nodes[t].right
		} else {
			t = o.nodes[t].left
		}
	}
	return path
}

// fix recomputes the subtree maxima of path, deepest first.
func (o *Order) fix(path []int32) {
	for i := len(path) - 1; i >= 0; i-- {
		o.update(path[i])
	}
}

// Key returns conversation c's key.
func (o *Order) Key(c int) (k1, k2 int64) { return o.nodes[c].k1, o.nodes[c].k2 }

// Remove deletes conversation c if present.
func (o *Order) Remove(c int) {
	if !o.Contains(c) {
		return
	}
	if !o.treap {
		s := int(o.nodes[c].slot)
		o.conv[s] = -1
		o.tree.set(s, math.Inf(-1))
		o.nodes[c].in = false
		o.size--
		return
	}
	path := o.path(c)
	n := &o.nodes[c]
	sub := o.merge(n.left, n.right)
	if len(path) == 0 {
		o.root = sub
	} else if p := &o.nodes[path[len(path)-1]]; p.left == int32(c) {
		p.left = sub
	} else {
		p.right = sub
	}
	o.fix(path)
	n.in = false
	o.size--
}

// First returns the conversation with the smallest key, or -1 if empty.
func (o *Order) First() int {
	if !o.treap {
		for o.lo < o.next && o.conv[o.lo] < 0 {
			o.lo++
		}
		if o.lo == o.next {
			return -1
		}
		return int(o.conv[o.lo])
	}
	t := o.root
	if t == none {
		return -1
	}
	for o.nodes[t].left != none {
		t = o.nodes[t].left
	}
	return int(t)
}

// FirstAtLeast returns the conversation with the smallest key among those
// whose value is ≥ theta, or -1 if there is none.
func (o *Order) FirstAtLeast(theta float64) int {
	if !o.treap {
		if math.IsInf(theta, -1) {
			return o.First()
		}
		if len(o.conv) == 0 {
			return -1
		}
		if s := o.tree.firstAtLeast(theta); s >= 0 {
			return int(o.conv[s])
		}
		return -1
	}
	t := o.root
	for t != none {
		n := &o.nodes[t]
		if n.maxVal < theta {
			return -1
		}
		if n.left != none && o.nodes[n.left].maxVal >= theta {
			t = n.left
			continue
		}
		if n.val >= theta {
			return int(t)
		}
		t = n.right
	}
	return -1
}

func (o *Order) less(t int32, k1, k2 int64) bool {
	n := &o.nodes[t]
	return n.k1 < k1 || (n.k1 == k1 && n.k2 < k2)
}

// split returns the trees of keys < (k1, k2) and ≥ (k1, k2).
func (o *Order) split(t int32, k1, k2 int64) (int32, int32) {
	if t == none {
		return none, none
	}
	n := &o.nodes[t]
	if o.less(t, k1, k2) {
		l, r := o.split(n.right, k1, k2)
		o.nodes[t].right = l
		o.update(t)
		return t, r
	}
	l, r := o.split(n.left, k1, k2)
	o.nodes[t].left = r
	o.update(t)
	return l, t
}

func (o *Order) merge(a, b int32) int32 {
	switch {
	case a == none:
		return b
	case b == none:
		return a
	case o.nodes[a].prio > o.nodes[b].prio:
		o.nodes[a].right = o.merge(o.nodes[a].right, b)
		o.update(a)
		return a
	default:
		o.nodes[b].left = o.merge(a, o.nodes[b].left)
		o.update(b)
		return b
	}
}

func (o *Order) update(t int32) {
	n := &o.nodes[t]
	m := n.val
	if n.left != none && o.nodes[n.left].maxVal > m {
		m = o.nodes[n.left].maxVal
	}
	if n.right != none && o.nodes[n.right].maxVal > m {
		m = o.nodes[n.right].maxVal
	}
	n.maxVal = m
}

// above reports whether key (k1, k2) is above every key in the set (slot
// mode).
func (o *Order) above(k1, k2 int64) bool {
	if o.size == 0 {
		return true
	}
	s := o.last
	if s < 0 || o.conv[s] < 0 { // the latest Put left: find the highest occupied slot
		s = o.next - 1
		for o.conv[s] < 0 {
			s--
		}
		o.last = s
	}
	n := &o.nodes[o.conv[s]]
	return n.k1 < k1 || (n.k1 == k1 && n.k2 < k2)
}

// putSlot adds c, not in the set, at the next slot (slot mode).
func (o *Order) putSlot(c int, k1, k2 int64, v float64) {
	if o.next == len(o.conv) {
		o.reslot()
	}
	s := o.next
	o.next++
	o.conv[s] = int32(c)
	o.nodes[c] = orderNode{k1: k1, k2: k2, val: v, maxVal: v, left: none, right: none, slot: int32(s), in: true}
	o.tree.set(s, v)
	o.last = s
	o.size++
}

// reslot moves the occupied slots to the front, in order, into room for at
// least twice as many, and rebuilds the max tree. When the present room
// suffices it compacts in place: a slot moves only down (j ≤ s), so no
// occupied slot is overwritten before it is read, and the arrays are
// reused rather than left as garbage every len(conv)/2 Puts.
func (o *Order) reslot() {
	n := max(64, len(o.conv))
	for 2*o.size > n {
		n *= 2
	}
	conv, tree := o.conv, o.tree
	if n != len(o.conv) {
		conv, tree = make([]int32, n), newMaxTree(n)
	}
	vals := tree.leaves()
	j, last := 0, -1
	for s := o.lo; s < o.next; s++ {
		if c := o.conv[s]; c >= 0 {
			conv[j] = c
			o.nodes[c].slot = int32(j)
			vals[j] = o.nodes[c].val
			if s == o.last {
				last = j
			}
			j++
		}
	}
	o.last = last
	for k := j; k < n; k++ {
		conv[k] = -1
		vals[k] = math.Inf(-1)
	}
	tree.rebuild()
	o.conv, o.tree, o.lo, o.next = conv, tree, 0, j
}

// max2 is the larger of a and b as update and maxTree compute it.
func max2(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// toTreap moves the set from slot mode into the treap, for good.
func (o *Order) toTreap() {
	o.treap = true
	conv := o.conv
	lo, next := o.lo, o.next
	o.conv, o.tree = nil, maxTree{}
	o.size = 0
	for s := lo; s < next; s++ {
		if c := conv[s]; c >= 0 {
			n := o.nodes[c]
			o.nodes[c].in = false
			o.Put(int(c), n.k1, n.k2, n.val)
		}
	}
}
