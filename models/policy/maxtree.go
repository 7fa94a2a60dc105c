package policy

import "math"

// fan is the number of children of a maxTree node: eight float64s fill
// one 64-byte cache line, and the tree is a third as deep as a binary one.
const fan = 8

// maxTree holds a value per leaf and an upper bound of the maximum of every
// group of fan leaves, of every group of fan groups, and so on up to the
// root; it finds the first leaf whose value is at least a threshold by a
// descent that tightens the stale bounds it meets.
// Order keeps its slot-mode values in one. Values are never NaN (the rules
// give finite values or ±Inf), so the comparisons are a total order; empty
// leaves hold −Inf.
type maxTree struct {
	// levels[0] are the leaves, levels[k][i] ≥ the maximum of
	// levels[k−1][fan·i : fan·i+fan], and the last level the root alone.
	// Every level but the root is a multiple of fan long, padded with −Inf.
	levels [][]float64
}

// newMaxTree returns a tree of n leaves, n a multiple of fan, all −Inf.
func newMaxTree(n int) maxTree {
	var t maxTree
	for {
		lv := make([]float64, n)
		for i := range lv {
			lv[i] = math.Inf(-1)
		}
		t.levels = append(t.levels, lv)
		if n == 1 {
			return t
		}
		if n = (n + fan - 1) / fan; n > 1 {
			n = (n + fan - 1) / fan * fan
		}
	}
}

// leaves returns the leaf values, for rebuild to read after they are
// written directly.
func (t *maxTree) leaves() []float64 { return t.levels[0] }

// rebuild recomputes every bound from the leaves, exact.
func (t *maxTree) rebuild() {
	for k := 1; k < len(t.levels); k++ {
		below, lv := t.levels[k-1], t.levels[k]
		for i := range lv {
			lv[i] = math.Inf(-1)
			if fan*i < len(below) {
				lv[i] = max8(below[fan*i : fan*i+fan])
			}
		}
	}
}

// set sets leaf s to v. A raise climbs while the maxima above are below v;
// a lowering writes the leaf alone, leaving the values above it upper
// bounds rather than maxima, which firstAtLeast tightens where it meets
// them.
func (t *maxTree) set(s int, v float64) {
	lv := t.levels[0]
	old := lv[s]
	lv[s] = v
	if v <= old {
		return
	}
	i := s
	for k := 1; k < len(t.levels); k++ {
		i /= fan
		up := t.levels[k]
		if up[i] >= v {
			return
		}
		up[i] = v
	}
}

// firstAtLeast returns the lowest leaf whose value is ≥ theta, or −1 if
// there is none. It descends into the first child whose bound is ≥ theta;
// a node none of whose children's bounds is (its own bound was stale) is a
// dead end: it takes the largest of them, and the search resumes at its
// next sibling. Leaves are exact, so a leaf reached is the answer.
func (t *maxTree) firstAtLeast(theta float64) int {
	top := len(t.levels) - 1
	if !(t.levels[top][0] >= theta) {
		return -1
	}
	k, i, j := top, 0, 0 // scanning the children of node i of level k from the j-th
	for {
		g := t.levels[k-1][fan*i : fan*i+fan]
		for j < fan && !(g[j] >= theta) {
			j++
		}
		if j < fan {
			if k == 1 {
				return fan*i + j
			}
			k, i, j = k-1, fan*i+j, 0
			continue
		}
		t.levels[k][i] = max8(g)
		if k == top {
			return -1
		}
		k, i, j = k+1, i/fan, i%fan+1
	}
}

// max8 returns the largest of the fan values of g.
func max8(g []float64) float64 {
	g = g[:fan]
	a, b := max2(g[0], g[1]), max2(g[2], g[3])
	c, d := max2(g[4], g[5]), max2(g[6], g[7])
	return max2(max2(a, b), max2(c, d))
}
