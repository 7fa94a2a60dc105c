package blocktail

import (
	"fmt"
	"io"
	"slices"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Span is the part of a block-level trace that one shard's run of windows
// holds (LoadSpan): prefixtail.Span and the trace's block size.
type Span struct {
	prefixtail.Span
	// BlockTokens is the block size, tokens.
	BlockTokens int64
}

// CountRequests reads the block-level trace at path in format (as Load)
// without holding it and returns its number of requests and its block
// size, tokens. It checks what Load's interning checks of each request
// alone (lengths ≥ 0, times in order).
func CountRequests(path, format string, block int64) (int, int64, error) {
	src, b, f, err := blocksim.Open(path, format, block)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	n, last := 0, 0.0
	for {
		r, err := src()
		if err == io.EOF {
			return n, b, nil
		}
		if err != nil {
			return 0, 0, err
		}
		r.Index = n
		if err := prefixcache.CheckNext(&r, n > 0, last); err != nil {
			return 0, 0, err
		}
		n, last = n+1, r.Time
	}
}

// LoadSpan streams the trace at path (format and block as Load; n its
// number of requests, CountRequests') once and keeps what the windows
// first … last of windows windows need under wo (prefixtail.SpanRange's
// requests, and each window's relaxation's history, over
// prefixtail.RelaxationRange: widened by a lower overlap), not the trace:
// the requests before the span and after it are interned and dropped. What it keeps
// besides the span is, per distinct block, its parent and its last use so
// far (two int32), and per request before the run's last window its
// chain's last block and its input (an int32 and an int64), from which a
// history request is rebuilt when a window's request first touches a
// block last used before the window (package prefixtail, "Streaming").
// The reading stops at the span's end; a span that ends the trace also
// checks that nothing follows its n requests, so that a count made without
// parsing (the lines of the file) is checked by the run that reads the
// trace to its end. With last < first it holds nothing.
func LoadSpan(path, format string, block int64, n, windows, first, last int, wo prefixtail.WindowOptions) (*Span, error) {
	if windows < 1 || windows > max(n, 1) {
		return nil, fmt.Errorf("windows %d: want 1 … %d (the number of requests)", windows, max(n, 1))
	}
	src, b, f, err := blocksim.Open(path, format, block)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sp := &Span{Span: prefixtail.Span{Requests: n}, BlockTokens: b}
	if last < first {
		sp.History = [][]prefixcache.Req{}
		return sp, nil
	}
	lo, hi := prefixtail.SpanRange(n, windows, first, last, wo)
	sp.First = lo
	sp.History = make([][]prefixcache.Req, last-first+1)
	sLast := last * n / windows // requests from here on are history of no window of the run
	hist := make([][]int32, last-first+1)
	var (
		parent, lastUse []int32 // per block
		leaf            []int32 // per request before sLast: its chain's last block (−1: empty)
		input           []int64 // per request before sLast: its input, tokens
		scratch, held   []prefixcache.BlockID
	)
	in := prefixcache.NewInterner()
	w := first // the run's window the request t is in, while t is in the run
	for t := 0; t < hi; t++ {
		r, err := src()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: %d requests, counted %d before", path, t, n)
		}
		if err != nil {
			return nil, err
		}
		r.Index = t
		var q prefixcache.Req
		if t >= lo {
			if q, held, err = in.Intern(&r, held); err != nil {
				return nil, err
			}
		} else if q, scratch, err = in.Intern(&r, scratch[:0]); err != nil {
			return nil, err
		}
		par := int32(-1)
		for _, id := range q.Blocks {
			for int(id) >= len(parent) {
				parent, lastUse = append(parent, -1), append(lastUse, -1)
			}
			parent[id], par = par, int32(id)
		}
		if t < sLast {
			leaf, input = append(leaf, par), append(input, q.Input)
		}
		e0 := (last + 1) * n / windows
		if r0, _ := prefixtail.RelaxationRange(n, windows, first, wo); t >= r0 && t < e0 {
			for (w+1)*n/windows <= t {
				w++
			}
			// t is in the relaxation of its window w and, within a lower
			// overlap, of w+1's (prefixtail.RelaxationRange; without one,
			// w's only, from w's start).
			for k := w; k <= min(w+1, last); k++ {
				s, e := prefixtail.RelaxationRange(n, windows, k, wo)
				if t < s || t >= e {
					continue
				}
				for _, id := range q.Blocks {
					if u := lastUse[id]; u >= 0 && int(u) < s { // the relaxation's first use of id
						hist[k-first] = append(hist[k-first], u)
					}
				}
			}
		}
		for _, id := range q.Blocks {
			lastUse[id] = int32(t)
		}
		if t >= lo {
			sp.Reqs = append(sp.Reqs, q)
		}
	}
	if hi == n { // the run ends the trace: n (a count of its lines, perhaps) must be all of it
		if _, err := src(); err != io.EOF {
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s: more than the %d requests counted before", path, n)
		}
	}
	for k, ts := range hist {
		slices.Sort(ts)
		for _, u := range slices.Compact(ts) {
			var chain []prefixcache.BlockID
			for id := leaf[u]; id >= 0; id = parent[id] {
				chain = append(chain, prefixcache.BlockID(id))
			}
			slices.Reverse(chain)
			sp.History[k] = append(sp.History[k], prefixcache.Req{Index: int(u), Input: input[u], Blocks: chain})
		}
	}
	return sp, nil
}

// LoadFlat reads the block-level trace at path ("-": standard input) in
// format (block as Load) once, interning each request as it comes, and
// holds it as a prefixtail.Flat: its chains end to end and its inputs,
// nothing else of a request (Load holds every request twice, as read and
// interned). It checks what Load checks; an error stops the reading and
// returns nothing. It returns the block size, tokens.
func LoadFlat(path, format string, block int64) (*prefixtail.Flat, int64, error) {
	src, b, f, err := blocksim.Open(path, format, block)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fl := &prefixtail.Flat{Off: []int{0}}
	in := prefixcache.NewInterner()
	var q prefixcache.Req
	for t := 0; ; t++ {
		r, err := src()
		if err == io.EOF {
			return fl, b, nil
		}
		if err != nil {
			return nil, 0, err
		}
		r.Index = t
		if fl.Blocks, err = in.InternTo(&q, &r, fl.Blocks); err != nil {
			return nil, 0, err
		}
		fl.Off = append(fl.Off, len(fl.Blocks))
		fl.Input = append(fl.Input, q.Input)
	}
}
