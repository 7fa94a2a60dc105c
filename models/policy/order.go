package policy

// Order is an ordered set of conversations, each with a sort key (smaller
// first) and a value; it finds the first conversation in key order, and the
// first whose value is at least a threshold, in O(log n) expected time for n
// conversations in the set. Policies use it for their eviction order:
// recency for LRU, admission for FIFO, next arrival for Belady, with the
// value marking blocks beyond a conversation's TEL-safe budget.
//
// It is a treap over a node pool indexed by conversation id, so membership
// tests and updates need no map.
type Order struct {
	nodes []orderNode
	root  int32
	rng   uint64
	size  int
	buf   []int32 // reused by path
}

type orderNode struct {
	k1, k2      int64
	val, maxVal float64
	prio        uint64
	left, right int32
	in          bool
}

const none int32 = -1

// NewOrder returns an empty order.
func NewOrder() *Order { return &Order{root: none, rng: 0x9E3779B97F4A7C15} }

// Len returns the number of conversations in the set.
func (o *Order) Len() int { return o.size }

// Contains reports whether conversation c is in the set.
func (o *Order) Contains(c int) bool { return c < len(o.nodes) && o.nodes[c].in }

// Put inserts conversation c with key (k1, k2) and value v, replacing its
// previous entry. Keys must be distinct across conversations; using c as k2
// or a unique turn index guarantees it.
func (o *Order) Put(c int, k1, k2 int64, v float64) {
	o.Remove(c)
	for len(o.nodes) <= c {
		o.nodes = append(o.nodes, orderNode{left: none, right: none})
	}
	o.rng ^= o.rng << 13 // xorshift: a fixed sequence keeps runs reproducible
	o.rng ^= o.rng >> 7
	o.rng ^= o.rng << 17
	o.nodes[c] = orderNode{k1: k1, k2: k2, val: v, maxVal: v, prio: o.rng, left: none, right: none, in: true}
	l, r := o.split(o.root, k1, k2)
	o.root = o.merge(o.merge(l, int32(c)), r)
	o.size++
}

// SetValue changes the value of conversation c, which must be in the set.
// It walks down to c once and repairs the subtree maxima on the way back.
func (o *Order) SetValue(c int, v float64) {
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
