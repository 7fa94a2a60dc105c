package prefixtail

import (
	"fmt"
	"math"
	"slices"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// Flat is a trace held compactly: the chains of its requests end to end
// in one array, and their inputs. It is what a windowed bound in one
// process holds of the trace (WindowedFlat): 4 bytes per block reference
// and 16 per request, against a prefixcache.Req's 104 per request and its
// chain. Chains are numbered by one prefixcache.Interner.
type Flat struct {
	// Off[t] is the index in Blocks of request t's first block; Off has
	// one entry more than there are requests (Off[0] = 0).
	Off []int
	// Blocks are the chains, request after request.
	Blocks []prefixcache.BlockID
	// Input[t] is request t's input (prompt) length, tokens.
	Input []int64
}

// Len returns the number of requests.
func (f *Flat) Len() int { return len(f.Input) }

// Append adds q's chain and input as the next request.
func (f *Flat) Append(q *prefixcache.Req) {
	if len(f.Off) == 0 {
		f.Off = append(f.Off, 0)
	}
	f.Blocks = append(f.Blocks, q.Blocks...)
	f.Off = append(f.Off, len(f.Blocks))
	f.Input = append(f.Input, q.Input)
}

// chain returns request t's chain (shared with f).
func (f *Flat) chain(t int) []prefixcache.BlockID { return f.Blocks[f.Off[t]:f.Off[t+1]:f.Off[t+1]] }

// reqs returns the requests [lo, hi) as Reqs indexed 0, 1, …: only Index,
// Input and Blocks (shared with f) are set, which is all a Problem reads.
func (f *Flat) reqs(lo, hi int) []prefixcache.Req {
	out := make([]prefixcache.Req, hi-lo)
	for t := lo; t < hi; t++ {
		out[t-lo] = prefixcache.Req{Index: t - lo, Input: f.Input[t], Blocks: f.chain(t)}
	}
	return out
}

// FlatOf returns reqs held as a Flat (the chains copied).
func FlatOf(reqs []prefixcache.Req) *Flat {
	f := &Flat{Off: make([]int, 1, len(reqs)+1), Input: make([]int64, 0, len(reqs))}
	for i := range reqs {
		f.Append(&reqs[i])
	}
	return f
}

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

// history returns the history requests of window [s, e) of f, prev the
// previous use of each reference (prevUses): a block's first reference in
// the window has its last use before s as previous use, a later one a use
// in the window, so the history is the previous uses before s.
func (f *Flat) history(prev []int32, s, e int) []prefixcache.Req {
	var ts []int
	for ref := f.Off[s]; ref < f.Off[e]; ref++ {
		if p := prev[ref]; p >= 0 && int(p) < s {
			ts = append(ts, int(p))
		}
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	out := make([]prefixcache.Req, len(ts))
	for i, u := range ts {
		out[i] = prefixcache.Req{Index: u, Input: f.Input[u], Blocks: f.chain(u)}
	}
	return out
}

// prevUses returns the previous use of each block reference of f (−1:
// none), or an error when a chain holds a block twice.
func (f *Flat) prevUses() ([]int32, error) {
	var last []int32
	prev := make([]int32, f.Off[f.Len()])
	for t := range f.Len() {
		for d, id := range f.chain(t) {
			for int(id) >= len(last) {
				last = append(last, -1)
			}
			if last[id] == int32(t) {
				return nil, fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
			}
			prev[f.Off[t]+d] = last[id]
			last[id] = int32(t)
		}
	}
	return prev, nil
}

// Span returns the part of f that the windows first … last of windows
// windows read under wo (SpanRange's requests, and each window's history),
// for WindowedSpan: a shard of a trace held as a Flat (standard input,
// which cannot be read twice).
func (f *Flat) Span(windows, first, last int, wo WindowOptions) (*Span, error) {
	n := f.Len()
	if windows < 1 || windows > max(n, 1) || first < 0 || last >= windows || first > last {
		return nil, fmt.Errorf("windows %d … %d of %d: want a run within 0 … %d of at most %d windows (the number of requests)", first, last, windows, windows-1, max(n, 1))
	}
	prev, err := f.prevUses()
	if err != nil {
		return nil, err
	}
	lo, hi := SpanRange(n, windows, first, last, wo)
	sp := &Span{Requests: n, First: lo, Reqs: f.reqs(lo, hi)}
	for i := range sp.Reqs {
		sp.Reqs[i].Index = lo + i
	}
	for w := first; w <= last; w++ {
		sp.History = append(sp.History, f.history(prev, w*n/windows, (w+1)*n/windows))
	}
	return sp, nil
}

// mark sets in g (one value per reference of r) the intervals that hits
// keep, as mark does on a Problem's columns: hits[i] are the hits of r's
// request lo+i in a replay of r's requests lo, lo+1, … from an empty
// cache; the interval ending at a hit is marked when it has a column, ends
// at or after from, starts at or after lo and, when cross ≥ 0, starts
// before cross.
func (r *replayTrace) mark(g []bool, hits []int, lo, from, cross int) {
	for i, h := range hits {
		q := lo + i
		if q < from {
			continue
		}
		for d := range h {
			ref := r.Off[q] + d
			if !r.col[ref] {
				continue
			}
			if p := int(r.prev[ref]); p >= lo && (cross < 0 || p < cross) {
				g[ref] = true
			}
		}
	}
}

// guided is rule Guided on a replayTrace with a guide of one value per
// reference (the interval ending there kept or not): ranked's key.
type guided struct {
	r     *replayTrace
	guide []bool
}

// key ranks the block at depth d of request t by its next interval, as
// ranked.key does under Guided.
func (g *guided) key(t, d int) prefixcache.Key {
	r := g.r
	nx := r.next[r.Off[t]+d]
	if nx < 0 {
		return prefixcache.Key{P: math.Inf(-1)}
	}
	x := 0.0
	if ref := r.Off[nx] + d; r.col[ref] {
		if g.guide[ref] {
			x = 1
		}
	} else if int(nx) == t+1 {
		return prefixcache.Key{P: math.Inf(1)}
	}
	return prefixcache.Key{P: x, T: -int64(nx)}
}
