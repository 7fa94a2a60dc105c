package prefixcache

// A binary min-heap over a slice, for the engines' eviction orders
// (sglang's leaves by last access, vllm-tlru's evictor by last access then
// depth), which hold stale entries and so manage the slice themselves.

// lesser is an entry ordered by less.
type lesser[T any] interface{ less(T) bool }

// heapPush appends e to the heap h and returns it.
func heapPush[T lesser[T]](h []T, e T) []T {
	h = append(h, e)
	for i := len(h) - 1; i > 0; {
		j := (i - 1) / 2
		if !h[i].less(h[j]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	return h
}

// heapPop removes the least entry of the non-empty heap h and returns it
// and the heap.
func heapPop[T lesser[T]](h []T) (T, []T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	heapDown(h, 0)
	return top, h
}

// heapDown sifts the entry at i down the heap h.
func heapDown[T lesser[T]](h []T, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
