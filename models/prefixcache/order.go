package prefixcache

// Key is an eviction rank: smaller keys are evicted first. Keys compare by
// P, then T, then the block id, so the order is total and runs are
// reproducible.
type Key struct {
	P float64
	T int64
}

// Order is a set of blocks with keys, smallest first: an indexed binary
// heap. Push, Remove and Pop take O(log n) time for n blocks in the set;
// Min and Contains O(1). Most policies keep their evictable set in one.
type Order struct {
	heap []entry
	pos  []int32 // pos[id] = 1 + index in heap, 0 when absent
}

type entry struct {
	k  Key
	id BlockID
}

func (a entry) less(b entry) bool {
	if a.k.P != b.k.P {
		return a.k.P < b.k.P
	}
	if a.k.T != b.k.T {
		return a.k.T < b.k.T
	}
	return a.id < b.id
}

// Len returns the number of blocks in the set.
func (o *Order) Len() int { return len(o.heap) }

// Contains reports whether id is in the set.
func (o *Order) Contains(id BlockID) bool { return int(id) < len(o.pos) && o.pos[id] > 0 }

// Push adds id with key k, replacing its key if it is already there.
func (o *Order) Push(id BlockID, k Key) {
	o.pos = grow(o.pos, id)
	if i := o.pos[id] - 1; i >= 0 {
		old := o.heap[i].k
		o.heap[i].k = k
		if (entry{k, id}).less(entry{old, id}) {
			o.up(int(i))
		} else {
			o.down(int(i))
		}
		return
	}
	o.heap = append(o.heap, entry{k, id})
	o.pos[id] = int32(len(o.heap))
	o.up(len(o.heap) - 1)
}

// Remove deletes id from the set and reports whether it was there.
func (o *Order) Remove(id BlockID) bool {
	if !o.Contains(id) {
		return false
	}
	i := int(o.pos[id] - 1)
	last := len(o.heap) - 1
	o.swap(i, last)
	o.heap = o.heap[:last]
	o.pos[id] = 0
	if i < last {
		o.down(i)
		o.up(i)
	}
	return true
}

// Min returns the smallest block and its key, or -1 when the set is empty.
func (o *Order) Min() (BlockID, Key) {
	if len(o.heap) == 0 {
		return -1, Key{}
	}
	return o.heap[0].id, o.heap[0].k
}

// Pop removes and returns the smallest block, or -1 when the set is empty.
func (o *Order) Pop() BlockID {
	if len(o.heap) == 0 {
		return -1
	}
	id := o.heap[0].id
	o.Remove(id)
	return id
}

func (o *Order) swap(i, j int) {
	o.heap[i], o.heap[j] = o.heap[j], o.heap[i]
	o.pos[o.heap[i].id] = int32(i + 1)
	o.pos[o.heap[j].id] = int32(j + 1)
}

func (o *Order) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !o.heap[i].less(o.heap[p]) {
			return
		}
		o.swap(i, p)
		i = p
	}
}

func (o *Order) down(i int) {
	n := len(o.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && o.heap[r].less(o.heap[l]) {
			m = r
		}
		if !o.heap[m].less(o.heap[i]) {
			return
		}
		o.swap(i, m)
		i = m
	}
}
