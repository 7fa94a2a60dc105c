package prefixtail

import "github.com/tailbound/tailbound/models/prefixcache"

// replayTrace is the whole-trace reference the one engine's held uses and
// incremental columns are checked against (TestLookaheadColumnsRapid): a
// trace's requests (re-indexed from 0) as a Flat with, per block
// reference, the previous and the next use of its block (−1: none) and
// whether the trace's whole program has a column for the interval that
// ends there, read off the program itself (New: next, endCol ≥ 0).
type replayTrace struct {
	*Flat
	prev []int32
	next []int32
	col  []bool
}

// newReplayTrace indexes f (Index = position) at a capacity of capacity
// blocks of block tokens under obj; its errors are New's on the same
// requests.
func newReplayTrace(f *Flat, block int64, capacity int, obj Objective) (*replayTrace, error) {
	if len(f.Off) == 0 {
		f.Off = []int{0}
	}
	p, err := New(f.reqs(0, f.Len()), block, capacity, obj)
	if err != nil {
		return nil, err
	}
	prev, err := f.prevUses()
	if err != nil {
		return nil, err
	}
	r := &replayTrace{Flat: f, prev: prev, next: p.next, col: make([]bool, len(p.endCol))}
	for ref, c := range p.endCol {
		r.col[ref] = c >= 0
	}
	return r, nil
}

// history returns the history requests of window [s, e) of r (HistoryOf's,
// in trace order, only Input and Blocks set).
func (r *replayTrace) history(s, e int) []prefixcache.Req { return r.Flat.history(r.prev, s, e) }
