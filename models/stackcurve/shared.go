package stackcurve

import (
	"maps"
	"slices"

	"github.com/tailbound/tailbound/models/metrics"
)

// denseLimit bounds the dense part of a shared histogram (tokens); counts
// at or above it go to a map.
const denseLimit = 1 << 20

// counts is a histogram of uncached counts (tokens): dense below
// denseLimit, sparse above.
type counts struct {
	dense  []int64
	sparse map[int64]int64
}

// add counts one turn of b uncached tokens.
func (h *counts) add(b int64) {
	if b >= denseLimit {
		if h.sparse == nil {
			h.sparse = map[int64]int64{}
		}
		h.sparse[b]++
		return
	}
	if int64(len(h.dense)) <= b {
		h.dense = slices.Grow(h.dense, int(b)+1-len(h.dense))[:b+1]
	}
	h.dense[b]++
}

// addAll adds every count of g to h.
func (h *counts) addAll(g *counts) {
	if len(h.dense) < len(g.dense) {
		h.dense = slices.Grow(h.dense, len(g.dense)-len(h.dense))[:len(g.dense)]
	}
	for b, n := range g.dense {
		h.dense[b] += n
	}
	if len(g.sparse) > 0 && h.sparse == nil {
		h.sparse = map[int64]int64{}
	}
	for b, n := range g.sparse {
		h.sparse[b] += n
	}
}

// give hands every count of h to a as the counts of turns it received
// through AddLater, in increasing order of the count.
func (h *counts) give(a *metrics.Accumulator) {
	for b, n := range h.dense {
		a.AddLaterCount(int64(b), n)
	}
	for _, b := range slices.Sorted(maps.Keys(h.sparse)) {
		a.AddLaterCount(b, h.sparse[b])
	}
}

// shared holds the histogram entries that runs of a curve's capacities
// have in common. The points are in increasing order of capacity, and by
// the stack property a turn's cached amount does not decrease with the
// capacity: the points where it caches nothing form a prefix, those where
// it caches its conversation's every block a suffix, and along each the
// uncached count is the same. A turn that has a prefix 0 … i counts once
// in prefix[i], one with a suffix j … K−1 once in suffix[j], instead of
// once in each point's histogram: one memory access where a point each
// made a cache miss each (a birth–death turn after a long conversation's
// turn misses at every capacity).
type shared struct {
	prefix []counts // prefix[i]: counts of points 0 … i
	suffix []counts // suffix[j]: counts of points j … K−1
}

func newShared(points int) *shared {
	return &shared{prefix: make([]counts, points), suffix: make([]counts, points)}
}

// give hands point k's shared counts to accs[k], for every point.
func (s *shared) give(accs []*metrics.Accumulator) {
	var run counts
	for k := len(accs) - 1; k >= 0; k-- {
		run.addAll(&s.prefix[k])
		run.give(accs[k])
	}
	run = counts{}
	for k := range accs {
		run.addAll(&s.suffix[k])
		run.give(accs[k])
	}
}
