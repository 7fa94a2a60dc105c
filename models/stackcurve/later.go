package stackcurve

import (
	"cmp"
	"slices"
	"sync"

	"github.com/tailbound/tailbound/models/metrics"
)

// deferFrom is the prefill load, tokens, from which a turn's (or
// request's) uncached count goes to a curve's shared store of late turns
// instead of each capacity's histogram. A long conversation's turns have
// loads far past every capacity and a different uncached count at each
// capacity, all distinct: kept as histogram entries, one per turn and
// capacity, they made a 32-capacity curve cost 19× the time and 22× the
// memory of one capacity on a trace of 10^5-turn conversations
// (docs/speed.md). Below it, the dense histograms stay small (2^14 counts
// each).
const deferFrom = 1 << 14

// DeferFrom is deferFrom for the block-level curve's callers: requests of
// at least DeferFrom input tokens go to a Late store.
const DeferFrom = deferFrom

// Late is a store, shared by the capacities of one curve, of the
// turns whose uncached counts the capacities' accumulators get through
// metrics.Accumulator.AddLater. Each turn is a load d (tokens) and the
// runs of stack positions of the blocks it could hit: its hit at a
// capacity of C blocks is Σ clamp(C − s, 0, l) blocks over its runs (s, l),
// its cached tokens x = min(B·hit, d) and its uncached count d − x. One
// record serves every capacity, so the store grows with the deferred
// turns, not with turns × capacities.
//
// A turn of one run (every deferred turn at turn level, most at block
// level) caches part of its run at C exactly when s < C < s + l, and then
// its uncached count is max(d + B·s − B·C, 0): in the order of the
// capacity-free key d + B·s. So the store keeps those turns in that order
// (sorted once, when the counts are first asked) and gives each
// capacity's counts in increasing order — those turns' in one sequential
// read, the few others sorted and merged in — instead of leaving each
// capacity's accumulator a sort of them all.
type Late struct {
	block int64
	recs  []int64  // per turn of other than one run: d, the number of runs r, then r pairs (s, l)
	one   []oneRun // the turns of one run; one[:sorted] in increasing order of d + B·s
	n     int      // turns recorded

	mu     sync.Mutex
	sorted int
}

// oneRun is a turn whose hit positions are the run s, s+1, …, s+l−1
// (blocks) and whose load is key − B·s tokens.
type oneRun struct{ key, s, l int64 }

// NewLate returns an empty store for blocks of block tokens.
func NewLate(block int64) *Late { return &Late{block: block} }

// Add records a turn of load d tokens whose hit positions are runs
// (pairs s, l, in blocks: s, s+1, …, s+l−1). It must not run at the
// same time as a call of an Uncached function.
func (s *Late) Add(d int64, runs ...int64) {
	s.n++
	if len(runs) == 2 {
		s.one = append(s.one, oneRun{key: d + s.block*runs[0], s: runs[0], l: runs[1]})
		return
	}
	s.recs = append(s.recs, d, int64(len(runs)/2))
	s.recs = append(s.recs, runs...)
}

// sort puts the turns of one run in order of their key. The caller holds
// s.mu.
func (s *Late) sort() {
	if s.sorted == len(s.one) {
		return
	}
	slices.SortFunc(s.one, func(a, b oneRun) int { return cmp.Compare(a.key, b.key) })
	s.sorted = len(s.one)
}

// Uncached returns the store's uncached counts at a capacity of capB
// blocks, as a metrics.Later that appends them in increasing order.
func (s *Late) Uncached(capB int64) metrics.Later {
	return func(dst []int64) []int64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sort()
		dst = slices.Grow(dst, s.n)
		start := len(dst)
		var other []int64 // the counts not in key order, then sorted
		c := s.block * capB
		for _, r := range s.one {
			if hit := capB - r.s; hit > 0 && hit < r.l {
				dst = append(dst, max(r.key-c, 0)) // d − min(B·hit, d)
			} else {
				d := r.key - s.block*r.s
				other = append(other, d-min(s.block*min(max(hit, 0), r.l), d))
			}
		}
		for i := 0; i < len(s.recs); {
			d, r := s.recs[i], int(s.recs[i+1])
			i += 2
			var hit int64
			for ; r > 0; r-- {
				hit += min(max(capB-s.recs[i], 0), s.recs[i+1])
				i += 2
			}
			other = append(other, d-min(s.block*hit, d))
		}
		if len(other) == 0 {
			return dst
		}
		// Merge other in from the back, in place: the keyed counts
		// dst[start:k] move up by len(other) at most.
		other = metrics.SortCounts(other)
		k := len(dst)
		dst = append(dst, other...)
		i, j := k-1, len(other)-1
		for w := len(dst) - 1; j >= 0; w-- {
			if i >= start && dst[i] > other[j] {
				dst[w] = dst[i]
				i--
			} else {
				dst[w] = other[j]
				j--
			}
		}
		return dst
	}
}
