package stackcurve

import (
	"slices"

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
type Late struct {
	block int64
	recs  []int64 // per turn: d, the number of runs r, then r pairs (s, l)
	n     int     // turns recorded
}

// NewLate returns an empty store for blocks of block tokens.
func NewLate(block int64) *Late { return &Late{block: block} }

// Add records a turn of load d tokens whose hit positions are runs
// (pairs s, l, in blocks: s, s+1, …, s+l−1).
func (s *Late) Add(d int64, runs ...int64) {
	s.recs = append(s.recs, d, int64(len(runs)/2))
	s.recs = append(s.recs, runs...)
	s.n++
}

// Uncached returns the store's uncached counts at a capacity of capB
// blocks, as a metrics.Later.
func (s *Late) Uncached(capB int64) metrics.Later {
	return func(dst []int64) []int64 {
		dst = slices.Grow(dst, s.n)
		for i := 0; i < len(s.recs); {
			d, r := s.recs[i], int(s.recs[i+1])
			i += 2
			var hit int64
			for ; r > 0; r-- {
				hit += min(max(capB-s.recs[i], 0), s.recs[i+1])
				i += 2
			}
			dst = append(dst, d-min(s.block*hit, d))
		}
		return dst
	}
}
