// Package segtree holds a lazy segment tree over int64 values with range
// additions and range maxima: the capacity check of the schedule searches
// (lp/slo's load less capacity per step, lp/prefixtail's per request),
// where a tentative change adds a pair's blocks over its span and asks
// whether any step is now over capacity.
package segtree

import "math"

// none is what an empty range contributes to a maximum: far below any
// value, with room to add to it without overflow.
const none = math.MinInt64 / 4

// Max keeps a value per position under range additions and answers range
// maxima and where they are. The zero Max holds no positions.
type Max struct {
	n        int
	mx, lazy []int64
}

// NewMax returns the tree over v (copied).
func NewMax(v []int64) *Max {
	n := len(v)
	s := &Max{n: n, mx: make([]int64, 4*max(n, 1)), lazy: make([]int64, 4*max(n, 1))}
	if n > 0 {
		s.build(1, 0, n-1, v)
	}
	return s
}

// Len is the number of positions.
func (s *Max) Len() int { return s.n }

func (s *Max) build(i, l, r int, v []int64) {
	if l == r {
		s.mx[i] = v[l]
		return
	}
	m := (l + r) / 2
	s.build(2*i, l, m, v)
	s.build(2*i+1, m+1, r, v)
	s.mx[i] = max(s.mx[2*i], s.mx[2*i+1])
}

// Add adds w to positions lo..hi (inclusive; nothing when lo > hi).
func (s *Max) Add(lo, hi int, w int64) {
	if lo > hi || s.n == 0 {
		return
	}
	s.add(1, 0, s.n-1, lo, hi, w)
}

func (s *Max) add(i, l, r, lo, hi int, w int64) {
	if hi < l || r < lo {
		return
	}
	if lo <= l && r <= hi {
		s.mx[i] += w
		s.lazy[i] += w
		return
	}
	m := (l + r) / 2
	s.add(2*i, l, m, lo, hi, w)
	s.add(2*i+1, m+1, r, lo, hi, w)
	s.mx[i] = max(s.mx[2*i], s.mx[2*i+1]) + s.lazy[i]
}

// Max returns the largest value over positions lo..hi (inclusive), or a
// value below math.MinInt64/8 when the range is empty.
func (s *Max) Max(lo, hi int) int64 {
	if lo > hi || s.n == 0 {
		return none
	}
	return s.maxRec(1, 0, s.n-1, lo, hi)
}

func (s *Max) maxRec(i, l, r, lo, hi int) int64 {
	if hi < l || r < lo {
		return none
	}
	if lo <= l && r <= hi {
		return s.mx[i]
	}
	m := (l + r) / 2
	return max(s.maxRec(2*i, l, m, lo, hi), s.maxRec(2*i+1, m+1, r, lo, hi)) + s.lazy[i]
}

// Argmax returns a position of lo..hi (inclusive) holding the largest
// value (the first such in a descent that prefers the left half on ties),
// −1 when the range is empty.
func (s *Max) Argmax(lo, hi int) int {
	if lo > hi || s.n == 0 {
		return -1
	}
	_, at := s.argRec(1, 0, s.n-1, lo, hi)
	return at
}

func (s *Max) argRec(i, l, r, lo, hi int) (int64, int) {
	if hi < l || r < lo {
		return none, -1
	}
	if l == r {
		return s.mx[i], l
	}
	if lo <= l && r <= hi {
		// descend towards the maximum
		m := (l + r) / 2
		if s.mx[2*i] >= s.mx[2*i+1] {
			v, at := s.argRec(2*i, l, m, lo, hi)
			return v + s.lazy[i], at
		}
		v, at := s.argRec(2*i+1, m+1, r, lo, hi)
		return v + s.lazy[i], at
	}
	m := (l + r) / 2
	v1, a1 := s.argRec(2*i, l, m, lo, hi)
	v2, a2 := s.argRec(2*i+1, m+1, r, lo, hi)
	if v2 > v1 {
		return v2 + s.lazy[i], a2
	}
	return v1 + s.lazy[i], a1
}
