package blocktail

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
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

// CountLines counts the non-blank lines of the file at path without
// parsing them: a block-level trace's requests, one per line in every
// block-level format, which the windows' bounds ⌊w·n/N⌋ need before the
// one parse.
func CountLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, blank := 0, true // blank: the line so far is whitespace only
	for {
		m, err := f.Read(buf)
		b := buf[:m]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			seg := b
			if i >= 0 {
				seg = b[:i]
			}
			if blank {
				blank = len(bytes.TrimLeft(seg, " \t\r")) == 0
			}
			if i < 0 {
				break
			}
			if !blank {
				n++
			}
			blank, b = true, b[i+1:]
		}
		if err == io.EOF {
			if !blank {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// BoundWindowedLookahead bounds the trace at path (format and block as
// Load; "-": standard input) at one capacity, tokens, by windows windows
// in one process with the stitched replay's lookahead bounded to
// lookahead ≥ 1 requests past each window's end
// (prefixtail.WindowedLookahead). A file is counted by its non-blank
// lines, then read once, request by request, interned and dropped as the
// windows pass (a count the parse contradicts is an error naming the
// file); standard input, which cannot be counted before it is read, is
// held whole as a Flat first (LoadFlat). With traceIDs (a file, carried
// histories, not the canonical format) the trace's hash ids are the block
// ids, no interner numbering them (traceBlocks). It returns the block
// size, tokens.
func BoundWindowedLookahead(ctx context.Context, path, format string, block, capacity int64, windows, lookahead int, wo prefixtail.WindowOptions, traceIDs bool, cfg Config) (*Windowed, int64, error) {
	if traceIDs && (path == "-" || !wo.CarriedHistory || format == "canonical") {
		return nil, 0, fmt.Errorf("the trace's hash ids as block ids: for a file (not standard input) of the mooncake, bailian or blocks format, with carried histories")
	}
	var (
		next func() (*prefixcache.Req, error)
		n    int
		b    int64
	)
	if path == "-" {
		fl, fb, err := LoadFlat(path, format, block)
		if err != nil {
			return nil, 0, err
		}
		next, n, b = prefixtail.FlatSource(fl), fl.Len(), fb
	} else {
		var err error
		if n, err = CountLines(path); err != nil {
			return nil, 0, err
		}
		src, fb, f, err := blocksim.OpenUnlinked(path, format, block) // the bound reads no conversation
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		b = fb
		in := prefixcache.NewInterner()
		var (
			q     prefixcache.Req
			arena []prefixcache.BlockID
			t     int
			last  float64
		)
		next = func() (*prefixcache.Req, error) {
			r, err := src()
			if err == io.EOF {
				if t < n {
					return nil, fmt.Errorf("%s: %d requests, counted %d lines before", path, t, n)
				}
				return nil, io.EOF
			}
			if err != nil {
				return nil, err
			}
			if t >= n {
				return nil, fmt.Errorf("%s: more than the %d requests counted before", path, n)
			}
			r.Index = t
			if traceIDs {
				if arena, err = traceBlocks(&q, &r, t > 0, last, arena[:0]); err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				last = r.Time
			} else if arena, err = in.InternTo(&q, &r, arena[:0]); err != nil {
				return nil, err
			}
			t++
			return &q, nil
		}
	}
	if windows > max(n, 1) {
		return nil, 0, fmt.Errorf("windows %d: want 1 … %d (the number of requests)", windows, max(n, 1))
	}
	opt, err := solverOptions(capacity, b, cfg)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	wb, err := prefixtail.WindowedLookahead(ctx, next, n, b, int(capacity/b), cfg.Objective, windows, lookahead, wo, opt)
	if err != nil {
		if path != "-" && !strings.Contains(err.Error(), path) { // a chain's error found past the parse (a request's number, not its line)
			return nil, 0, fmt.Errorf("%s: capacity %d tokens: %w", path, capacity, err)
		}
		return nil, 0, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return &Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / b), WindowBounds: *wb, Seconds: time.Since(start).Seconds()}, b, nil
}

// traceBlocks writes r into *q with its hash ids as block ids, for a
// bounded run with carried histories that holds no interner
// (BoundWindowedLookahead with traceIDs), checking what it can without
// one: the request as an Interner checks it (prefixcache.CheckNext: no
// negative length, time not before the previous request's, later says
// whether there was one, last its time), each id in 0 … 2³¹−1 (the
// replay's keys), and each chain's ids increasing from its root (a
// problem visits a block's children before it by descending id, as an
// Interner's ids allow). That a hash id names one prefix — always after
// the same parent, which an Interner ensures by numbering a block by its
// parent and hash — is assumed; prefixtail.WindowedLookahead checks it
// against the block's last use while that use is held.
func traceBlocks(q *prefixcache.Req, r *blocktrace.Request, later bool, last float64, arena []prefixcache.BlockID) ([]prefixcache.BlockID, error) {
	if err := prefixcache.CheckNext(r, later, last); err != nil {
		return arena, err
	}
	*q = prefixcache.Req{Index: r.Index, Time: r.Time, Input: r.Input, Output: r.Output, Conv: r.Conv, Turn: 1}
	start := len(arena)
	for d, h := range r.Hashes {
		if h < 0 || h > math.MaxInt32 {
			return arena, fmt.Errorf("request %d: hash_ids[%d] = %d: as a block id it must be in 0 … %d", r.Index, d, h, math.MaxInt32)
		}
		if d > 0 && h <= r.Hashes[d-1] {
			return arena, fmt.Errorf("request %d: hash_ids[%d] = %d after %d: as block ids a chain's must increase from its root", r.Index, d, h, r.Hashes[d-1])
		}
		arena = append(arena, prefixcache.BlockID(h))
	}
	q.Blocks = arena[start:len(arena):len(arena)]
	q.Seen = len(q.Blocks)
	return arena, nil
}
