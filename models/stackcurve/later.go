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
// turns, not with turns × capacities. The counts are given in the order of
// the records, unsorted: an accumulator's percentiles need only the
// buckets of their ranks in order (metrics), and the turns of one run
// (every deferred turn at turn level, most at block level) are kept in
// chunks that are never copied as the store grows.
type Late struct {
	block int64
	recs  []int64    // per turn of other than one run: d, the number of runs r, then r pairs (s, l)
	one   [][]oneRun // the turns of one run, in chunks of at most chunkRuns

	// After Freeze: the one-run turns whose count is a constant at every
	// capacity of the range (flat: the counts) or a key minus B·C
	// (linear: the keys d + B·s), each in increasing order.
	flat, linear []int64
}

// chunkRuns is the most one-run turns a chunk of a Late store holds.
const chunkRuns = 1 << 14

// oneRun is a turn of load d tokens whose hit positions are the run s,
// s+1, …, s+l−1 (blocks).
type oneRun struct{ d, s, l int64 }

// NewLate returns an empty store for blocks of block tokens.
func NewLate(block int64) *Late { return &Late{block: block} }

// Add records a turn of load d tokens whose hit positions are runs
// (pairs s, l, in blocks: s, s+1, …, s+l−1). It must not run at the
// same time as an iteration of an Uncached store.
func (s *Late) Add(d int64, runs ...int64) {
	if len(runs) == 2 {
		n := len(s.one)
		if n == 0 || len(s.one[n-1]) == cap(s.one[n-1]) {
			// Chunks double from 64 runs up to chunkRuns: a small store
			// stays small, a large one is never copied.
			size := 64
			if n > 0 {
				size = min(2*cap(s.one[n-1]), chunkRuns)
			}
			s.one = append(s.one, make([]oneRun, 0, size))
			n++
		}
		s.one[n-1] = append(s.one[n-1], oneRun{d: d, s: runs[0], l: runs[1]})
		return
	}
	s.recs = append(s.recs, d, int64(len(runs)/2))
	s.recs = append(s.recs, runs...)
}

// uncachedBatch is the most counts an Uncached store yields at a time.
const uncachedBatch = 1 << 10

// Uncached returns the store's uncached counts at a capacity of capB
// blocks, one per turn recorded, in the order of the records, as a
// metrics.Later.
func (s *Late) Uncached(capB int64) metrics.Later {
	return func(yield func([]int64) bool) {
		buf := make([]int64, 0, uncachedBatch)
		for _, chunk := range s.one {
			for len(chunk) > 0 {
				part := chunk[:min(len(chunk), uncachedBatch)]
				chunk = chunk[len(part):]
				buf = buf[:len(part)]
				for i, r := range part {
					buf[i] = r.d - min(s.block*min(max(capB-r.s, 0), r.l), r.d)
				}
				if !yield(buf) {
					return
				}
			}
		}
		buf = buf[:0]
		for i := 0; i < len(s.recs); {
			d, r := s.recs[i], int(s.recs[i+1])
			i += 2
			var hit int64
			for ; r > 0; r-- {
				hit += min(max(capB-s.recs[i], 0), s.recs[i+1])
				i += 2
			}
			if buf = append(buf, d-min(s.block*hit, d)); len(buf) == uncachedBatch {
				if !yield(buf) {
					return
				}
				buf = buf[:0]
			}
		}
		if len(buf) > 0 {
			yield(buf)
		}
	}
}

// Freeze ends the recording (no Add after it) for capacities of cmin to
// cmax blocks (cmin ≤ cmax), and takes out of the Uncached iteration the
// one-run turns whose count is, at every capacity C of that range, a
// constant or a key minus B·C: those with s ≥ cmax (they miss, d), with
// s + l ≤ cmin (they hit their whole run, d − min(B·l, d)), and those with
// s < cmin, s + l > cmax and key = d + B·s ≥ B·cmax (they hit C − s blocks
// and leave key − B·C ≥ 0). Their keys are sorted, once, and Shifted gives
// them to each capacity; on the long-conversation trace of docs/speed.md
// that is nearly every deferred turn, which no capacity then reads one by
// one.
func (s *Late) Freeze(cmin, cmax int64) {
	// The class of a record: 0 flat, 1 linear, 2 neither. Counted first so
	// that each slice is made at its size: no copies as it grows, and the
	// keys sorted in place (slices.Sort), not beside a radix sort's copy —
	// the store is most of a curve's memory at the end of the pass.
	class := func(r oneRun) int {
		switch {
		case r.s >= cmax, r.s+r.l <= cmin:
			return 0
		case r.s < cmin && r.s+r.l > cmax && r.d+s.block*r.s >= s.block*cmax:
			return 1
		}
		return 2
	}
	var n [3]int
	for _, chunk := range s.one {
		for _, r := range chunk {
			n[class(r)]++
		}
	}
	s.flat, s.linear = make([]int64, 0, n[0]), make([]int64, 0, n[1])
	keep := make([]oneRun, 0, n[2]) // in order
	for i, chunk := range s.one {
		for _, r := range chunk {
			switch class(r) {
			case 0:
				// d when it misses (s ≥ cmax), else its run is hit whole.
				s.flat = append(s.flat, r.d-min(s.block*min(max(cmin-r.s, 0), r.l), r.d))
			case 1:
				s.linear = append(s.linear, r.d+s.block*r.s)
			default:
				keep = append(keep, r)
			}
		}
		s.one[i] = nil // its records are in flat, linear or keep now
	}
	s.one = s.one[:0]
	if len(keep) > 0 {
		s.one = append(s.one, keep)
	}
	slices.Sort(s.flat)
	slices.Sort(s.linear)
}

// Shifted returns, after Freeze, the uncached counts at a capacity of capB
// blocks (in Freeze's range) of the turns Freeze took out of the Uncached
// iteration, as metrics.Shifted sets.
func (s *Late) Shifted(capB int64) []metrics.Shifted {
	return []metrics.Shifted{{Keys: s.flat}, {Keys: s.linear, Offset: s.block * capB}}
}
