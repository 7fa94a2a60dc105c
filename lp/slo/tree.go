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

// slackTree keeps load_t − cap_t per step under range additions and
// answers range maxima (a lazy segment tree).
type slackTree struct {
	n        int
	mx, lazy []int64
}

func newSlackTree(loadMinusCap []int64) *slackTree {
	n := len(loadMinusCap)
	s := &slackTree{n: n, mx: make([]int64, 4*max(n, 1)), lazy: make([]int64, 4*max(n, 1))}
	if n > 0 {
		s.build(1, 0, n-1, loadMinusCap)
	}
	return s
}

func (s *slackTree) build(i, l, r int, v []int64) {
	if l == r {
		s.mx[i] = v[l]
		return
	}
	m := (l + r) / 2
	s.build(2*i, l, m, v)
	s.build(2*i+1, m+1, r, v)
	s.mx[i] = max(s.mx[2*i], s.mx[2*i+1])
}

// add adds w to steps lo..hi (inclusive).
func (s *slackTree) add(lo, hi int, w int64) { s.addRec(1, 0, s.n-1, lo, hi, w) }

func (s *slackTree) addRec(i, l, r, lo, hi int, w int64) {
	if hi < l || r < lo {
		return
	}
	if lo <= l && r <= hi {
		s.mx[i] += w
		s.lazy[i] += w
		return
	}
	m := (l + r) / 2
	s.addRec(2*i, l, m, lo, hi, w)
	s.addRec(2*i+1, m+1, r, lo, hi, w)
	s.mx[i] = max(s.mx[2*i], s.mx[2*i+1]) + s.lazy[i]
}

// max returns the largest value over steps lo..hi (inclusive).
func (s *slackTree) max(lo, hi int) int64 { return s.maxRec(1, 0, s.n-1, lo, hi) }

func (s *slackTree) maxRec(i, l, r, lo, hi int) int64 {
	if hi < l || r < lo {
		return math.MinInt64 / 4
	}
	if lo <= l && r <= hi {
		return s.mx[i]
	}
	m := (l + r) / 2
	return max(s.maxRec(2*i, l, m, lo, hi), s.maxRec(2*i+1, m+1, r, lo, hi)) + s.lazy[i]
}

// argmax returns a step of lo..hi (inclusive) holding the largest value.
func (s *slackTree) argmax(lo, hi int) int {
	_, at := s.argRec(1, 0, s.n-1, lo, hi)
	return at
}

func (s *slackTree) argRec(i, l, r, lo, hi int) (int64, int) {
	if hi < l || r < lo {
		return math.MinInt64 / 4, -1
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
