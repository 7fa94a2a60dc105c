package prefixtail

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// Lookahead returns the horizon of the stitched replay at a request of
// the window that ends at request e (exclusive) of a trace of n requests
// under a replay lookahead of h requests (WindowedLookahead): min(n,
// e + h). The replay, at any request
// of the window, knows the next uses that fall before it and nothing
// past it.
//
// The horizon is counted from the end of the request's window, not from
// the request itself (t + h), for two reasons. Every interval that a
// window's restriction keeps lies inside the window, so it is known at
// its start whatever h is: the plain stitched replay still ranks every
// interval of the stitched schedule above the rest, and its check against
// the sum of the restrictions' costs stays (package comment, "Bounded
// lookahead"). And one horizon per window means one pass over the
// window's next h requests to decide which intervals are columns (the
// program of the requests before the horizon), not one per request.
func Lookahead(n, e, h int) int { return min(n, e+h) }

// WindowedLookahead is the one-process windowed bound (WindowedFlat)
// with the stitched replay's lookahead bounded by lookahead ≥ 1 requests
// (package comment, "Bounded lookahead"), reading the trace's n requests
// as next returns them, in order (io.EOF after the last; the request and
// its chain need only be valid until the next call), and holding of it
// only the requests the current windows need (the window being replayed,
// its lookahead, the seams and the lower overlap that reach across it),
// besides, for the whole trace, a parent and a last use per block (two
// int32) and a last block and an input per request (an int32 and an
// int64), from which the relaxations' histories are rebuilt. The lower
// bound and every window's figures are WindowedFlat's; the upper bound is
// the replayed cost of the stitched schedule under the bounded rule, with
// lookahead ≥ n WindowedFlat's to the last digit. Joins (shards) are not
// supported. A trace with more or fewer than n requests is an error. It
// is the one engine of the windowed runs (package comment, "One
// engine") with a bounded lookahead.
func WindowedLookahead(ctx context.Context, next func() (*prefixcache.Req, error), n int, block int64, capacity int, obj Objective, windows, lookahead int, wo WindowOptions, opt Options) (*WindowBounds, error) {
	if lookahead < 1 {
		return nil, fmt.Errorf("replay lookahead of %d requests: want ≥ 1 (0 is the whole trace's, WindowedFlat)", lookahead)
	}
	if wo.JoinRequests > 0 {
		return nil, fmt.Errorf("joins (%d requests) are between shards' runs; a bounded replay lookahead is for one process", wo.JoinRequests)
	}
	wb, _, err := windowedLookahead(ctx, next, n, block, capacity, obj, windows, lookahead, wo, opt, false)
	return wb, err
}

// horizon returns the horizon of the replay of the window that ends at
// request e: Lookahead's, or with the whole run's lookahead (h = 0) the
// replay's end.
func (lr *lookRun) horizon(e int) int {
	if lr.h == 0 {
		return lr.b
	}
	return Lookahead(lr.n, e, lr.h)
}

// windowedLookahead is WindowedLookahead (lookahead 0: the whole
// trace's); with record it also returns the hits per request of the plain
// replay and, with seams, of the seamed one (the tests check them as a
// schedule).
func windowedLookahead(ctx context.Context, next func() (*prefixcache.Req, error), n int, block int64, capacity int, obj Objective, windows, lookahead int, wo WindowOptions, opt Options, record bool) (*WindowBounds, [][]int, error) {
	lr, err := newLookRun(n, block, capacity, obj, windows, lookahead, wo, opt, record)
	if err != nil {
		return nil, nil, err
	}
	wb, err := lr.run(ctx, next)
	if err != nil {
		return nil, nil, err
	}
	var hits [][]int
	for _, rp := range []*lookReplay{lr.plain, lr.seamed} {
		if rp != nil && record {
			hits = append(hits, rp.hits)
		}
	}
	return wb, hits, nil
}

// checkRun checks the windows first … last of windows windows of n
// requests under wo.
func checkRun(n, windows, first, last int, wo WindowOptions) error {
	if windows < 1 || windows > max(n, 1) {
		return fmt.Errorf("windows %d: want 1 … %d (the number of requests)", windows, max(n, 1))
	}
	if first < 0 || last >= windows || first > last {
		return fmt.Errorf("windows %d … %d: want a run within 0 … %d", first, last, windows-1)
	}
	if wo.SeamRequests < 0 || wo.JoinRequests < 0 || wo.LowerOverlapRequests < 0 {
		return fmt.Errorf("seam of %d requests, join of %d, lower overlap of %d: want ≥ 0", wo.SeamRequests, wo.JoinRequests, wo.LowerOverlapRequests)
	}
	return nil
}

// newLookRun is newRun for the whole trace, its histories rebuilt from
// the held requests.
func newLookRun(n int, block int64, capacity int, obj Objective, windows, lookahead int, wo WindowOptions, opt Options, record bool) (*lookRun, error) {
	return newRun(n, block, capacity, obj, windows, 0, windows-1, lookahead, wo, opt, nil, nil, record)
}

// newRun checks its arguments and returns the state of a run of the
// windows first … last of windows windows of a trace of n requests, its
// replay's lookahead lookahead requests (0: the whole run's): with hist
// nil, the whole trace (first 0, last windows − 1), the histories rebuilt
// from the held requests; else hist[k] is the history of window first+k
// (Span.History), and slice returns the trace's requests the joins read
// (Span.slice).
func newRun(n int, block int64, capacity int, obj Objective, windows, first, last, lookahead int, wo WindowOptions, opt Options,
	hist [][]prefixcache.Req, slice func(lo, hi int) ([]prefixcache.Req, error), record bool) (*lookRun, error) {
	if lookahead < 0 {
		return nil, fmt.Errorf("replay lookahead of %d requests: want ≥ 0 (0: the whole trace's)", lookahead)
	}
	if err := checkRun(n, windows, first, last, wo); err != nil {
		return nil, err
	}
	if err := checkSetting(block, capacity, obj); err != nil {
		return nil, err
	}
	lr := &lookRun{n: n, windows: windows, first: first, last: last, h: lookahead, wo: wo, block: block, capacity: capacity, obj: obj, opt: opt,
		seams: wo.SeamRequests > 0 && last > first, off: []int{0}, carried: wo.CarriedHistory, spanHist: hist}
	lr.s0, lr.e0 = first*n/windows, (last+1)*n/windows
	hj := JoinRequests(n, windows, wo)
	lr.a, lr.b = lr.s0, lr.e0
	if first > 0 {
		lr.a = lr.s0 - hj
	}
	if last < windows-1 {
		lr.b = lr.e0 + hj
	}
	lr.count, lr.lo = lr.a, lr.a
	rlo, _ := RelaxationRange(n, windows, first, wo)
	if lr.carried && hist != nil && rlo > 0 {
		rlo-- // the request before the first relaxation, whose chain its carried history ends with
	}
	lr.lo = min(lr.lo, rlo)
	lr.base, lr.read, lr.colHz = lr.lo, lr.lo, lr.lo
	lr.bounded, lr.replayed, lr.seamNext = first, first, first+1
	switch {
	case lr.carried:
		lr.held = make(map[prefixcache.BlockID]int32)
	case hist == nil && lookahead > 0: // with the whole run's, every window is bounded before a request is dropped
		lr.rebuild = true
		lr.leaf, lr.allInput = make([]int32, 0, n), make([]int64, 0, n)
	}
	look := n / windows // the joins rank blocks by their uses up to a window past the join
	var err error
	if first > 0 && hj > 0 {
		if lr.start, lr.startRule, err = joinRule(slice, n, lr.s0-hj, lr.s0+hj, look, block, capacity, obj); err != nil {
			return nil, fmt.Errorf("join at request %d: %w", lr.s0, err)
		}
		lr.startN, lr.count = 2*hj, lr.a+2*hj
	}
	if last < windows-1 && hj > 0 {
		if lr.end, lr.endRule, err = joinRule(slice, n, lr.e0-hj, lr.e0+hj, look, block, capacity, obj); err != nil {
			return nil, fmt.Errorf("join at request %d: %w", lr.e0, err)
		}
		lr.endN = 2 * hj
	}
	lr.wb = &WindowBounds{Objective: obj.Kind.String(), Windows: windows, Requests: n, SeamRequests: wo.SeamRequests,
		JoinRequests: hj, LowerOverlapRequests: LowerOverlapRequests(n, windows, wo), ReplayLookaheadRequests: lookahead}
	if lr.wb.LowerOverlapRequests > 0 && wo.LowerOverlapWeights != RampWeights {
		lr.wb.LowerOverlapWeights = wo.LowerOverlapWeights.String()
	}
	if lr.plain, err = lr.newReplay(keptPlain); err != nil {
		return nil, err
	}
	if lr.seams {
		if lr.seamed, err = lr.newReplay(keptPlain | keptSeam); err != nil {
			return nil, err
		}
	}
	for _, rp := range []*lookReplay{lr.plain, lr.seamed} {
		if rp != nil && record {
			rp.hits = []int{}
		}
	}
	return lr, nil
}

// run reads the run's requests [lo, b) from next and bounds them.
func (lr *lookRun) run(ctx context.Context, next func() (*prefixcache.Req, error)) (*WindowBounds, error) {
	n := lr.b
	if err := lr.advance(ctx); err != nil {
		return nil, err
	}
	for lr.read < n {
		q, err := next()
		if err == io.EOF {
			return nil, fmt.Errorf("the trace ended after %d requests, %d expected", lr.read, n)
		}
		if err != nil {
			return nil, err
		}
		if err := lr.add(q); err != nil {
			return nil, err
		}
		if err := lr.advance(ctx); err != nil {
			return nil, err
		}
	}
	if _, err := next(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the trace holds more than the %d requests expected", n)
	}
	return lr.finish()
}

// The kept flags of a held block reference: the interval ending there is
// kept by its window's restriction (the plain guide), or by a seam; and
// whether it is needed (extend).
const (
	keptPlain uint8 = 1 << iota
	keptSeam
	// refNeeded (not a kept flag) marks a reference whose interval is
	// needed in the program of the requests before colHz (extend).
	refNeeded
)

// lookRun is the state of the windowed run, in one process or as a shard
// (package comment, "One engine"): the requests held, [base, read), with
// per reference its block, its previous and next use (global request
// numbers, −1: none, or not in the replay's requests, or the next not read
// yet) and its kept flags; and the progress of the windows' bounds, the
// seams and the replay.
type lookRun struct {
	n, windows, h int
	// The run: windows first … last, [s0, e0); its replay serves the
	// requests [a, b) from an empty cache (the joins' too) and counts them
	// from count on; lo is the first request read (a, or the first
	// relaxation's first, the earlier).
	first, last             int
	s0, e0, a, b, lo, count int
	// spanHist, when not nil, holds each window's relaxation's history
	// (Span.History), in place of the held requests' previous uses.
	spanHist [][]prefixcache.Req
	// The joins (package comment, "Joins"): the start join's problem and
	// rule, by which the replay's first startN requests are ranked, and
	// the end join's, whose replay of the last endN requests the replay
	// shadows (nil: none).
	start, end         *Problem
	startRule, endRule Rule
	startN, endN       int
	wo                 WindowOptions
	block              int64
	capacity           int
	obj                Objective
	opt                Options
	seams              bool

	// Whole trace, without carried histories: per block its parent (−1:
	// a root) and last use so far (−1: not seen); with rebuild (a bounded
	// lookahead, which drops requests before their histories are read),
	// per request its chain's last block (−1: empty) and its input,
	// tokens.
	parent, lastUse []int32
	rebuild         bool
	leaf            []int32
	allInput        []int64

	// With carried histories (WindowOptions.CarriedHistory), in place of
	// the whole trace's arrays: the blocks seen so far (one bit per id),
	// and the last use of each block among the held requests (pruned by
	// drop).
	carried bool
	seen    idSet
	held    map[prefixcache.BlockID]int32

	// Held requests [base, read): off[t−base] is request t's first
	// reference in blocks (off has one entry more), input[t−base] its
	// input, tokens. A reference's prev is its block's previous use, −1
	// when none; with carried histories, a previous use before the held
	// requests when it was read is held as base−1 then (only "before the
	// held requests" is ever read of it: not constant, and before every
	// window, seam and horizon still to come).
	base, read int
	flat       *Flat // when not nil, the held requests are its (holdFlat)
	off        []int
	input      []int64
	blocks     []prefixcache.BlockID
	prev, next []int32
	kept       []uint8

	// colHz is the horizon the columns (refNeeded) are extended to; work
	// is extend's worklist, kept for its capacity.
	colHz int
	work  [][2]int32

	bounded, seamNext, replayed int // the next window to bound, boundary to seam, window to replay
	restricted                  float64
	plain, seamed               *lookReplay
	wb                          *WindowBounds
}

// holdFlat makes f, the whole trace the run reads (FlatSource(f)), its
// held requests: their chains, offsets and inputs are f's, not copied,
// and nothing is dropped (f's owner holds it whole anyway); the arrays
// per reference are allocated once.
func (lr *lookRun) holdFlat(f *Flat) {
	n := f.Len()
	if n == 0 || lr.lo != 0 || lr.b != n {
		return
	}
	lr.flat = f
	lr.off, lr.input, lr.blocks = f.Off[:n+1], f.Input[:n], f.Blocks[:f.Off[n]]
	refs := f.Off[n]
	lr.prev, lr.next, lr.kept = make([]int32, 0, refs), make([]int32, 0, refs), make([]uint8, 0, refs)
}

// reserve makes room for reqs more requests of refs block references
// in all, when known (a trace held whole), so that the held arrays are
// allocated once, not grown.
func (lr *lookRun) reserve(reqs, refs int) {
	lr.off = slices.Grow(lr.off, reqs)
	lr.input = slices.Grow(lr.input, reqs)
	lr.blocks = slices.Grow(lr.blocks, refs)
	lr.prev = slices.Grow(lr.prev, refs)
	lr.next = slices.Grow(lr.next, refs)
	lr.kept = slices.Grow(lr.kept, refs)
}

// ref returns the index of request t's depth-d reference (t held).
func (lr *lookRun) ref(t, d int) int { return lr.off[t-lr.base] + d }

// chain returns held request t's chain.
func (lr *lookRun) chain(t int) []prefixcache.BlockID {
	return lr.blocks[lr.off[t-lr.base]:lr.off[t-lr.base+1]:lr.off[t-lr.base+1]]
}

// in returns held request t's input, tokens.
func (lr *lookRun) in(t int) int64 { return lr.input[t-lr.base] }

// reqs returns the held requests [lo, hi) indexed 0, 1, … (chains shared).
func (lr *lookRun) reqs(lo, hi int) []prefixcache.Req {
	out := make([]prefixcache.Req, hi-lo)
	for t := lo; t < hi; t++ {
		out[t-lo] = prefixcache.Req{Index: t - lo, Input: lr.in(t), Blocks: lr.chain(t)}
	}
	return out
}

// add appends the next request, checking what newReplayTrace checks.
func (lr *lookRun) add(q *prefixcache.Req) error {
	t := lr.read
	if len(q.Blocks) > lr.capacity {
		return fmt.Errorf("request %d: its chain of %d blocks exceeds the capacity of %d blocks (the bound needs every chain to fit)", t, len(q.Blocks), lr.capacity)
	}
	par := int32(-1)
	for d, id := range q.Blocks {
		if id < 0 {
			return fmt.Errorf("request %d: block id %d at depth %d is negative", t, id, d)
		}
		if lr.carried {
			p, err := lr.prevHeld(t, d, id, par)
			if err != nil {
				return err
			}
			lr.refer(t, d, id, lr.inReplay(p))
			par = int32(id)
			continue
		}
		for int(id) >= len(lr.parent) {
			lr.parent, lr.lastUse = append(lr.parent, -1), append(lr.lastUse, -1)
		}
		p := lr.lastUse[id]
		switch {
		case p < 0:
			lr.parent[id] = par
		case p == int32(t):
			return fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
		case lr.parent[id] != par:
			return fmt.Errorf("request %d: block %d at depth %d after block %d was first seen after block %d (chains not numbered by one interner)", t, id, d, par, lr.parent[id])
		}
		lr.refer(t, d, id, lr.inReplay(p))
		lr.lastUse[id] = int32(t)
		par = int32(id)
	}
	if lr.flat == nil {
		lr.off = append(lr.off, len(lr.blocks))
		lr.input = append(lr.input, q.Input)
	}
	if lr.rebuild {
		lr.leaf = append(lr.leaf, par)
		lr.allInput = append(lr.allInput, q.Input)
	}
	lr.read++
	return nil
}

// inReplay returns p, a previous use, as the replay's requests [a, b)
// see it: −1 before a (the replay starts there from an empty cache).
func (lr *lookRun) inReplay(p int32) int32 {
	if p < int32(lr.a) {
		return -1
	}
	return p
}

// refer appends request t's depth-d reference, to block id, whose
// previous use is p (held when p ≥ base).
func (lr *lookRun) refer(t, d int, id prefixcache.BlockID, p int32) {
	if p >= int32(lr.base) {
		lr.next[lr.ref(int(p), d)] = int32(t)
	}
	if lr.flat == nil {
		lr.blocks = append(lr.blocks, id)
	}
	lr.prev = append(lr.prev, p)
	lr.next = append(lr.next, -1)
	lr.kept = append(lr.kept, 0)
	if lr.carried {
		lr.held[id] = int32(t)
	}
}

// prevHeld returns the previous use of block id at depth d of request t,
// after block par (−1: a root), with carried histories: −1 for a block
// not seen before, its last use when held, else base−1 (used before the
// held requests). It checks what
// add checks without them, within the held requests: a block twice in
// one chain, and a block held at another depth or after another parent
// (a block whose last use was dropped is not checked: its parent is not
// held; an Interner's ids, which the bound's readers give, number a
// block by its parent, so it cannot differ).
func (lr *lookRun) prevHeld(t, d int, id prefixcache.BlockID, par int32) (int32, error) {
	if !lr.seen.add(id) {
		return -1, nil
	}
	p, ok := lr.held[id]
	if !ok {
		return int32(lr.base) - 1, nil
	}
	if p == int32(t) {
		return 0, fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
	}
	pc := lr.chain(int(p))
	if d >= len(pc) || pc[d] != id || d > 0 && pc[d-1] != prefixcache.BlockID(par) {
		return 0, fmt.Errorf("request %d: block %d at depth %d after block %d, but at request %d at another depth or after another block (chains not numbered by one interner)", t, id, d, par, p)
	}
	return p, nil
}

// window returns window w's requests [s, e).
func (lr *lookRun) window(w int) (s, e int) {
	return w * lr.n / lr.windows, (w + 1) * lr.n / lr.windows
}

// seamEnd returns the end of the seam at the boundary of window w > first.
func (lr *lookRun) seamEnd(w int) int {
	s, _ := lr.window(w)
	return min(s+lr.wo.SeamRequests, lr.e0)
}

// replayRange returns the requests window w's replay serves: the window's,
// widened to the replay's start for the first, to its end for the last
// (the joins).
func (lr *lookRun) replayRange(w int) (from, to int) {
	from, to = lr.window(w)
	if w == lr.first {
		from = lr.a
	}
	if w == lr.last {
		to = lr.b
	}
	return from, to
}

// advance does every step the requests read so far allow, in order:
// window bounds, seams, replays; then drops the requests no later step
// reads.
func (lr *lookRun) advance(ctx context.Context) error {
	for {
		switch {
		case lr.bounded <= lr.last && lr.read >= func() int { _, e := lr.window(lr.bounded); return e }():
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := lr.bound(ctx, lr.bounded); err != nil {
				return fmt.Errorf("window %d: %w", lr.bounded, err)
			}
			lr.bounded++
		case lr.seams && lr.seamNext <= lr.last && lr.read >= lr.seamEnd(lr.seamNext):
			if err := ctx.Err(); err != nil {
				return err
			}
			s, _ := lr.window(lr.seamNext)
			if err := lr.seam(ctx, lr.seamNext); err != nil {
				return fmt.Errorf("seam at request %d: %w", s, err)
			}
			lr.seamNext++
		case lr.replayed <= lr.last && lr.bounded > lr.replayed && lr.readyToReplay(lr.replayed):
			if err := lr.replay(lr.replayed); err != nil {
				return fmt.Errorf("stitched schedule: %w", err)
			}
			lr.replayed++
			lr.drop()
		default:
			return nil
		}
	}
}

// readyToReplay reports whether window w's replay has what it reads: the
// requests up to its horizon (and its end) and the seams of the
// boundaries before the horizon.
func (lr *lookRun) readyToReplay(w int) bool {
	_, e := lr.window(w)
	_, to := lr.replayRange(w)
	hz := lr.horizon(e)
	if lr.read < max(hz, to) {
		return false
	}
	s, _ := lr.window(lr.seamNext)
	return !lr.seams || lr.seamNext > lr.last || s >= hz
}

// bound bounds window w's relaxation and restriction and marks the intervals the restriction's best replay keeps.
func (lr *lookRun) bound(ctx context.Context, w int) error {
	start := time.Now()
	n, windows := lr.n, lr.windows
	s, e := lr.window(w)
	rlo, rhi := RelaxationRange(n, windows, w, lr.wo)
	hist, err := lr.history(w, rlo, rhi)
	if err != nil {
		return err
	}
	both := renumber(slices.Concat(hist, lr.reqs(rlo, rhi)))
	rel, err := NewRelaxationWeighted(both[:len(hist)], both[len(hist):], overlapWeights(n, windows, w, lr.wo), lr.block, lr.capacity, lr.obj)
	if err != nil {
		return err
	}
	lo, err := rel.Bound(ctx, lr.opt)
	if err != nil {
		return fmt.Errorf("relaxation: %w", err)
	}
	res, err := New(renumber(lr.reqs(s, e)), lr.block, lr.capacity, lr.obj)
	if err != nil {
		return err
	}
	up, err := res.Bound(ctx, lr.opt)
	if err != nil {
		return fmt.Errorf("restriction: %w", err)
	}
	lr.mark(keptPlain, up.hits, s, s, -1)
	lr.wb.Lower += lo.Lower
	lr.restricted += up.Upper
	lr.wb.PerWindow = append(lr.wb.PerWindow, WindowFigure{First: s, Requests: e - s, History: rel.free,
		Lower: lo.Lower, Restricted: up.Upper, Seconds: time.Since(start).Seconds()})
	return nil
}

// seam re-solves the seam at window w's start (package comment, "Seams").
func (lr *lookRun) seam(ctx context.Context, w int) error {
	s, _ := lr.window(w)
	lo, hi := max(s-lr.wo.SeamRequests, lr.s0), lr.seamEnd(w)
	sq, err := New(renumber(lr.reqs(lo, hi)), lr.block, lr.capacity, lr.obj)
	if err != nil {
		return err
	}
	sb, err := sq.Bound(ctx, lr.opt)
	if err != nil {
		return err
	}
	lr.mark(keptSeam, sb.hits, lo, s, s)
	return nil
}

// mark sets flag on the references whose interval a replay keeps, as a
// guide on the program's columns is marked, but without the column test
// (made when the flag is read, at the reader's horizon): hits[i] are the hits of request lo+i in
// a replay of the requests lo, lo+1, … from an empty cache; the interval
// ending at a hit is marked when it ends at or after from, is variable,
// starts at or after lo and, when cross ≥ 0, starts before cross.
func (lr *lookRun) mark(flag uint8, hits []int, lo, from, cross int) {
	for i, hk := range hits {
		q := lo + i
		if q < from {
			continue
		}
		for d := range hk {
			ref := lr.ref(q, d)
			if p := int(lr.prev[ref]); p >= lo && q-p > 1 && (cross < 0 || p < cross) {
				lr.kept[ref] |= flag
			}
		}
	}
}

// history returns the history requests of window w's relaxation, over
// the requests [s, e) (held): HistoryOf's, the span's or their chains
// rebuilt from the blocks' parents (package comment, "Streaming"), or
// with carried histories CarriedHistory's, a block carried when a
// reference of it in [s, e) has a previous use before s (with the span's
// histories: when one of them holds it).
func (lr *lookRun) history(w, s, e int) ([]prefixcache.Req, error) {
	if lr.spanHist != nil {
		hist := lr.spanHist[w-lr.first]
		if !lr.carried {
			return hist, nil
		}
		set := chainSet(hist) // every block a history chain holds was used before s, and every one used before is in one
		var prev []prefixcache.BlockID
		if s > 0 {
			prev = lr.chain(s - 1)
		}
		return CarriedHistory(lr.reqs(s, e), prev, lr.block, func(id prefixcache.BlockID) bool { return set[id] })
	}
	if lr.carried {
		before := make(map[prefixcache.BlockID]bool)
		for ref := lr.ref(s, 0); ref < lr.ref(e, 0); ref++ {
			if p := lr.prev[ref]; p >= 0 && int(p) < s {
				before[lr.blocks[ref]] = true
			}
		}
		var prev []prefixcache.BlockID
		if s > 0 {
			prev = lr.chain(s - 1)
		}
		return CarriedHistory(lr.reqs(s, e), prev, lr.block, func(id prefixcache.BlockID) bool { return before[id] })
	}
	var ts []int
	for ref := lr.ref(s, 0); ref < lr.ref(e, 0); ref++ {
		if p := lr.prev[ref]; p >= 0 && int(p) < s {
			ts = append(ts, int(p))
		}
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	out := make([]prefixcache.Req, len(ts))
	for i, u := range ts {
		if !lr.rebuild { // held: the chain itself
			if u < lr.base {
				return nil, fmt.Errorf("internal: history request %d dropped (held from %d)", u, lr.base)
			}
			out[i] = prefixcache.Req{Index: u, Input: lr.in(u), Blocks: lr.chain(u)}
			continue
		}
		var chain []prefixcache.BlockID
		for id := lr.leaf[u]; id >= 0; id = lr.parent[id] {
			chain = append(chain, prefixcache.BlockID(id))
		}
		slices.Reverse(chain)
		out[i] = prefixcache.Req{Index: u, Input: lr.allInput[u], Blocks: chain}
	}
	return out, nil
}

// columns returns, for the references of the requests [s, hz) (held,
// hz at or past every horizon extended to before), whether the interval
// ending there is a column of the program of the trace's requests before
// hz (newReplayTrace's col on those requests): extend's, read off.
func (lr *lookRun) columns(s, hz int) []bool {
	lr.extend(hz)
	col := make([]bool, lr.ref(hz, 0)-lr.ref(s, 0))
	for t := s; t < hz; t++ {
		for d := range lr.chain(t) {
			col[lr.ref(t, d)-lr.ref(s, 0)] = lr.column(t, d)
		}
	}
	return col
}

// column reports whether the interval ending at held request t's
// depth-d reference (t before the horizon the columns were extended to)
// is a column of the program of the requests before that horizon: needed
// and variable.
func (lr *lookRun) column(t, d int) bool {
	ref := lr.ref(t, d)
	return lr.kept[ref]&refNeeded != 0 && lr.prev[ref] >= 0 && int32(t)-lr.prev[ref] > 1
}

// extend extends the columns (the refNeeded flags) from the program of
// the requests before lr.colHz to that of the requests before hz (held
// from lr.colHz on): newReplayTrace's needed, a reference needed when its
// weight is positive or when it is the interval of the parent around a
// needed variable interval of the next depth, made incremental. Each
// reference is needed for good once it is (a longer trace only adds
// intervals), and marks only references of the same or earlier requests,
// so the needed references of the program before hz are the closure of
// the positive weights before hz under those marks: the new requests'
// weights are seeded, and each reference that becomes needed walks its
// parent's uses back once (a worklist). Only references from base on are
// held; a reference is marked only from later ones, so the dropped ones
// decide nothing that is still read.
func (lr *lookRun) extend(hz int) {
	if hz <= lr.colHz {
		return
	}
	work := lr.work[:0] // needed references still to walk from: request, depth
	for t := lr.colHz; t < hz; t++ {
		ch := lr.chain(t)
		c := 0
		for d := range ch {
			if lr.prev[lr.ref(t, d)] == int32(t-1) && t > 0 {
				c++
			} else {
				break
			}
		}
		for d := c; d < len(ch); d++ {
			if lr.prev[lr.ref(t, d)] < 0 {
				break
			}
			if lr.obj.Cost(lr.in(t), d, lr.block)-lr.obj.Cost(lr.in(t), d+1, lr.block) > 0 {
				lr.kept[lr.ref(t, d)] |= refNeeded
				work = append(work, [2]int32{int32(t), int32(d)})
			}
		}
	}
	for len(work) > 0 {
		t, d := int(work[len(work)-1][0]), int(work[len(work)-1][1])
		work = work[:len(work)-1]
		pv := lr.prev[lr.ref(t, d)]
		if d < 1 || pv < 0 || int32(t)-pv == 1 {
			continue
		}
		for cur := int32(t); cur > pv && int(cur) >= lr.base; {
			pr := lr.ref(int(cur), d-1)
			pp := lr.prev[pr]
			if cur-pp > 1 && lr.kept[pr]&refNeeded == 0 {
				lr.kept[pr] |= refNeeded
				work = append(work, [2]int32{cur, int32(d - 1)})
			}
			cur = pp
		}
	}
	lr.work, lr.colHz = work, hz
}

// replay serves window w's requests (replayRange's) through the plain and
// the seamed replay, ranking by the next uses before w's horizon: first it
// re-ranks the cached blocks whose next use the horizon has just reached
// (the earlier windows' keys said "unknown"), then serves the requests,
// the end join's replay in lockstep over the replay's last endN.
func (lr *lookRun) replay(w int) error {
	s, e := lr.window(w)
	hz := lr.horizon(e)
	from := s // the first request whose references the horizon has just reached
	if w > lr.first {
		_, pe := lr.window(w - 1)
		from = lr.horizon(pe)
	}
	lr.extend(hz)
	r0, r1 := lr.replayRange(w)
	for _, rp := range []*lookReplay{lr.plain, lr.seamed} {
		if rp == nil {
			continue
		}
		pol := rp.pol
		pol.hz = hz
		for r := max(from, s); r < hz; r++ {
			for d, id := range lr.chain(r) {
				ref := lr.ref(r, d)
				if p := lr.prev[ref]; p >= 0 && int(p) < s {
					pol.reveal(id, r, d)
				}
			}
		}
		for t := r0; t < r1; t++ {
			sh := -1
			if t >= lr.b-lr.endN {
				eq := &lr.end.Reqs[t-(lr.b-lr.endN)]
				var err error
				if sh, err = rp.sig.Serve(eq); err != nil {
					return fmt.Errorf("end join: %w", err)
				}
				pol.held(eq.Blocks)
			}
			q := prefixcache.Req{Index: t, Input: lr.in(t), Blocks: lr.chain(t)}
			k, err := rp.c.Serve(&q)
			if err != nil {
				return err
			}
			if pol.broken {
				return fmt.Errorf("request %d: the shadow of the end join had to evict a block the join's replay holds", t)
			}
			if k < sh {
				return fmt.Errorf("request %d: the shadow of the end join hit %d blocks, its replay %d", t, k, sh)
			}
			if t >= lr.count {
				rp.v += lr.obj.Cost(lr.in(t), k, lr.block)
			}
			if rp.hits != nil {
				rp.hits = append(rp.hits, k)
			}
		}
		if w == lr.last && lr.end != nil {
			for _, q := range lr.end.Reqs[:lr.endN] {
				for _, id := range q.Blocks {
					if rp.sig.Cached(id) && !rp.c.Cached(id) {
						return fmt.Errorf("the shadow of the end join does not hold block %d at request %d, which the join's replay holds", id, lr.b)
					}
				}
			}
		}
	}
	return nil
}

// drop forgets the held requests that no later step reads: those before
// the next window to replay (its replay's first request), to bound (its
// lower overlap), and the next seam (its first half).
func (lr *lookRun) drop() {
	if lr.flat != nil {
		return
	}
	keep := lr.b
	if lr.replayed <= lr.last {
		keep, _ = lr.replayRange(lr.replayed)
	}
	if lr.bounded <= lr.last {
		lo, _ := RelaxationRange(lr.n, lr.windows, lr.bounded, lr.wo)
		keep = min(keep, lo)
		if lr.carried && lo > 0 {
			keep = min(keep, lo-1) // the request before it, whose chain its carried history ends with
		}
	}
	if lr.seams && lr.seamNext <= lr.last {
		s, _ := lr.window(lr.seamNext)
		keep = min(keep, max(s-lr.wo.SeamRequests, lr.s0))
	}
	keep = min(keep, lr.read-1) // the last request read stays, so that a constant interval's previous use is always held when read
	k := keep - lr.base
	if k <= 0 || 2*k < lr.read-lr.base { // drop when at least half of what is held goes
		return
	}
	r0 := lr.off[k]
	if lr.carried {
		for ref := range r0 {
			if id := lr.blocks[ref]; lr.held[id] < int32(keep) {
				delete(lr.held, id)
			}
		}
	}
	lr.input = lr.input[:copy(lr.input, lr.input[k:])]
	lr.blocks = lr.blocks[:copy(lr.blocks, lr.blocks[r0:])]
	lr.prev = lr.prev[:copy(lr.prev, lr.prev[r0:])]
	lr.next = lr.next[:copy(lr.next, lr.next[r0:])]
	lr.kept = lr.kept[:copy(lr.kept, lr.kept[r0:])]
	lr.off = lr.off[:copy(lr.off, lr.off[k:])]
	for i := range lr.off {
		lr.off[i] -= r0
	}
	lr.base = keep
}

// finish checks the replays and returns the bounds: the plain replay
// against the windows' restrictions and the lower bound against the
// replays, where they apply (package comment, "Joins" and "Lower
// overlap": not across joins, nor for a run's part of an overlapping
// lower bound).
func (lr *lookRun) finish() (*WindowBounds, error) {
	if lr.replayed != lr.last+1 {
		return nil, fmt.Errorf("internal: %d of %d windows replayed", lr.replayed-lr.first, lr.last+1-lr.first)
	}
	wb := lr.wb
	joined := lr.start != nil || lr.end != nil
	whole := lr.first == 0 && lr.last == lr.windows-1
	v := lr.plain.v
	if !joined && v > lr.restricted+tol*max(1, math.Abs(lr.restricted)) {
		return nil, fmt.Errorf("stitched schedule: it replays to %v, above the windows' restrictions' %v", v, lr.restricted)
	}
	wb.UpperNoSeams = v
	if lr.seamed != nil {
		v = min(v, lr.seamed.v)
	}
	if whole {
		wb.Lower = TotalLower(lr.obj.Kind, wb.LowerOverlapRequests, wb.Lower)
	}
	if all := wb.LowerOverlapRequests == 0 || whole; wb.Lower > v+tol*max(1, math.Abs(v)) && !joined && all {
		return nil, fmt.Errorf("windowed lower bound %v above the stitched schedule's %v", wb.Lower, v)
	}
	wb.setUpper(v)
	return wb, nil
}

// lookReplay is one stitched replay of a lookRun: its cache, policy and
// cost so far, and the end join's replay it shadows (nil: none).
type lookReplay struct {
	c    *prefixcache.Cache
	pol  *lookPolicy
	sig  *prefixcache.Cache
	v    float64
	hits []int // per request, when recorded (not nil)
}

func (lr *lookRun) newReplay(flags uint8) (*lookReplay, error) {
	pol := &lookPolicy{lr: lr, flags: flags, slots: lr.h > 0 || lr.end != nil}
	if pol.slots {
		pol.slot = make(map[prefixcache.BlockID]int32)
	}
	if lr.start != nil {
		pol.start = &ranked{p: lr.start, rule: lr.startRule}
	}
	capTokens := int64(lr.capacity) * lr.block
	c, err := prefixcache.New(capTokens, lr.block, pol)
	if err != nil {
		return nil, err
	}
	rp := &lookReplay{c: c, pol: pol}
	if lr.end != nil {
		if rp.sig, err = prefixcache.New(capTokens, lr.block, &ranked{p: lr.end, rule: lr.endRule}); err != nil {
			return nil, err
		}
		rp.sig.OnEvict(pol.released)
		pol.sigma = rp.sig
	}
	return rp, nil
}
