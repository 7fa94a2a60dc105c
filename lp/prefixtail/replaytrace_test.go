package prefixtail

import (
	"fmt"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// The whole-trace reference of the windowed run's columns (what the
// in-memory run replayed on before the one engine of window_lookahead.go
// took it over): the previous and next uses and the columns computed in
// one batch over the trace. TestReplayTraceRapid checks it against the
// program itself (New), and the engine's incremental columns are checked
// against it (TestLookaheadColumnsRapid).

// replayTrace is a run's requests (re-indexed from 0) held for the
// stitched replay: a Flat with, per block reference, the previous and the
// next use of its block within the run (−1: none) and whether the run's
// whole program (New on the run's requests) has a column for the interval
// that ends there (Problem.endCol ≥ 0), computed as newProblem computes
// them but without the program: no Cols, weights, precedence rows or
// per-block use lists, about 9 bytes per reference besides the chains
// (package comment, "Streaming").
type replayTrace struct {
	*Flat
	block    int64
	capacity int
	obj      Objective
	prev     []int32
	next     []int32
	col      []bool
}

// newReplayTrace indexes f (Index = position) at a capacity of capacity
// blocks of block tokens under obj; its errors are New's on the same
// requests.
func newReplayTrace(f *Flat, block int64, capacity int, obj Objective) (*replayTrace, error) {
	if err := checkSetting(block, capacity, obj); err != nil {
		return nil, err
	}
	n := f.Len()
	if len(f.Off) == 0 {
		f.Off = []int{0}
	}
	depth, err := chainDepths(n, f.chain, capacity)
	if err != nil {
		return nil, err
	}
	total := len(f.Blocks[:f.Off[n]])
	r := &replayTrace{Flat: f, block: block, capacity: capacity, obj: obj,
		prev: make([]int32, total), next: make([]int32, total), col: make([]bool, total)}
	last := make([]int32, len(depth))
	depth = nil
	for i := range last {
		last[i] = -1
	}
	for t := 0; t < n; t++ {
		for d, id := range f.chain(t) {
			if last[id] == int32(t) {
				return nil, fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
			}
			r.prev[f.Off[t]+d] = last[id]
			last[id] = int32(t)
		}
	}
	for i := range last {
		last[i] = -1
	}
	for t := n - 1; t >= 0; t-- {
		for d, id := range f.chain(t) {
			r.next[f.Off[t]+d] = last[id]
			last[id] = int32(t)
		}
	}
	last = nil
	// needed: newProblem's (a positive weight, or a parent interval of a
	// needed one), in r.col until the last step. newProblem visits blocks
	// deepest-first; a reference is marked needed only by references of
	// the next depth at the same or a later request, so one sweep over the
	// references from the last backwards, deeper first within a request,
	// reaches the same fixed point.
	needed := r.col
	for t := 0; t < n; t++ {
		ch := f.chain(t)
		c := 0
		for d := range ch {
			if r.prev[f.Off[t]+d] == int32(t-1) && t > 0 {
				c++
			} else {
				break
			}
		}
		for d := c; d < len(ch); d++ {
			if r.prev[f.Off[t]+d] < 0 {
				break
			}
			needed[f.Off[t]+d] = obj.Cost(f.Input[t], d, block)-obj.Cost(f.Input[t], d+1, block) > 0
		}
	}
	for t := n - 1; t >= 0; t-- {
		for d := len(f.chain(t)) - 1; d >= 1; d-- {
			ref := f.Off[t] + d
			pv := r.prev[ref]
			if !needed[ref] || pv < 0 || int32(t)-pv == 1 {
				continue
			}
			for cur := int32(t); cur > pv; {
				pr := f.Off[cur] + d - 1
				pp := r.prev[pr]
				if cur-pp > 1 {
					needed[pr] = true
				}
				cur = pp
			}
		}
	}
	for t := 0; t < n; t++ {
		for d := range f.chain(t) {
			ref := f.Off[t] + d
			if pv := r.prev[ref]; needed[ref] && !(pv >= 0 && int32(t)-pv > 1) {
				r.col[ref] = false
			}
		}
	}
	return r, nil
}

// history returns the history requests of window [s, e) of r (HistoryOf's,
// in trace order, only Input and Blocks set).
func (r *replayTrace) history(s, e int) []prefixcache.Req { return r.Flat.history(r.prev, s, e) }
