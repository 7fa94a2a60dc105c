package prefixtail

// slackTree keeps a value per request (the free capacity cap_t − load_t,
// blocks) under range additions and answers the least value over all
// requests: a lazy segment tree. The local search (local.go) keeps a
// schedule feasible by checking that the least free capacity is ≥ 0 after
// a tentative change.
type slackTree struct {
	n       int
	mn, add []int64
}

// newSlackTree returns the tree over v (copied).
func newSlackTree(v []int64) *slackTree {
	n := max(len(v), 1)
	s := &slackTree{n: len(v), mn: make([]int64, 4*n), add: make([]int64, 4*n)}
	if len(v) > 0 {
		s.build(1, 0, len(v)-1, v)
	}
	return s
}

func (s *slackTree) build(i, l, r int, v []int64) {
	if l == r {
		s.mn[i] = v[l]
		return
	}
	m := (l + r) / 2
	s.build(2*i, l, m, v)
	s.build(2*i+1, m+1, r, v)
	s.mn[i] = min(s.mn[2*i], s.mn[2*i+1])
}

// addRange adds w to the values of requests lo … hi (inclusive; nothing
// when lo > hi).
func (s *slackTree) addRange(lo, hi int, w int64) {
	if lo > hi || s.n == 0 {
		return
	}
	s.rec(1, 0, s.n-1, lo, hi, w)
}

func (s *slackTree) rec(i, l, r, lo, hi int, w int64) {
	if hi < l || r < lo {
		return
	}
	if lo <= l && r <= hi {
		s.mn[i] += w
		s.add[i] += w
		return
	}
	m := (l + r) / 2
	s.rec(2*i, l, m, lo, hi, w)
	s.rec(2*i+1, m+1, r, lo, hi, w)
	s.mn[i] = min(s.mn[2*i], s.mn[2*i+1]) + s.add[i]
}

// least returns the least value over all requests (0 when there are none).
func (s *slackTree) least() int64 {
	if s.n == 0 {
		return 0
	}
	return s.mn[1]
}

// at returns the value of request t.
func (s *slackTree) at(t int) int64 {
	i, l, r := 1, 0, s.n-1
	var acc int64
	for l < r {
		acc += s.add[i]
		m := (l + r) / 2
		if t <= m {
			i, r = 2*i, m
		} else {
			i, l = 2*i+1, m+1
		}
	}
	return acc + s.mn[i]
}
