package slo

import "math"

// minTree answers range minima of a fixed slice.
type minTree struct {
	n int
	t []int64
}

func newMinTree(v []int64) *minTree {
	n := len(v)
	m := &minTree{n: n, t: make([]int64, 2*n)}
	copy(m.t[n:], v)
	for i := n - 1; i >= 1; i-- {
		m.t[i] = min(m.t[2*i], m.t[2*i+1])
	}
	return m
}

// min returns the least of v[lo..hi] (inclusive); +∞ when empty.
func (m *minTree) min(lo, hi int) int64 {
	r := int64(math.MaxInt64)
	for l, h := lo+m.n, hi+m.n+1; l < h; l, h = l>>1, h>>1 {
		if l&1 == 1 {
			r = min(r, m.t[l])
			l++
		}
		if h&1 == 1 {
			h--
			r = min(r, m.t[h])
		}
	}
	return r
}
