package prefixtail

import (
	"fmt"
	"io"
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

// FlatSource returns the requests of f in order, as WindowedLookahead
// reads them (io.EOF after the last): a trace held whole (standard input,
// whose requests are counted only when it ends).
func FlatSource(f *Flat) func() (*prefixcache.Req, error) {
	t := 0
	var q prefixcache.Req
	return func() (*prefixcache.Req, error) {
		if t >= f.Len() {
			return nil, io.EOF
		}
		q = prefixcache.Req{Index: t, Input: f.Input[t], Blocks: f.chain(t)}
		t++
		return &q, nil
	}
}
