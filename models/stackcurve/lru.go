package stackcurve

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tailbound/tailbound/internal/fanout"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// batchSize is the number of turns read before they are handed to the
// engines (as in models/replay).
const batchSize = 4096

// LRU replays turn-level LRU over the turns of src at every capacity of
// caps (tokens, each a multiple of opt.BlockSize and checked like a
// replay's; opt.Capacity is ignored) in one read of the trace, and returns
// one result per capacity, in the order of caps, named name. Each result
// equals replay.Replay of policy.NewLRU at that capacity, figure for
// figure. The capacities are split over workers engines (each keeping its
// own recency list) that run on the same batches in their own goroutines;
// workers < 1 means 1.
func LRU(src replay.Source, name string, caps []int64, opt replay.Options, workers int) ([]replay.Result, error) {
	return lru(src, name, caps, opt, workers, deferFrom, metrics.ExactLimit)
}

// lru is LRU deferring the histogram entries of the turns whose load is at
// least from tokens to the engines' shared stores (Late), and keeping the
// sums in integers (engine.sums) while the turns' costs (metrics.Terms)
// sum to at most limit.
func lru(src replay.Source, name string, caps []int64, opt replay.Options, workers int, from, limit int64) ([]replay.Result, error) {
	if err := opt.Model.Validate(); err != nil {
		return nil, err
	}
	if err := latency.CheckSLOMs(opt.SLOMs); err != nil {
		return nil, fmt.Errorf("SLO (--slo-ms): %w", err)
	}
	for _, c := range caps {
		p := opt.Params
		p.Capacity = c
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("capacity %d tokens: %w", c, err)
		}
	}
	workers = max(1, min(workers, len(caps)))
	engines := make([]*engine, workers)
	for w := range engines {
		var mine []int64
		for i := w; i < len(caps); i += workers {
			mine = append(mine, caps[i])
		}
		engines[w] = newEngine(mine, opt, from, limit)
	}
	readErr, _ := fanout.Broadcast(workers, func() *[]trace.Turn { b := make([]trace.Turn, 0, batchSize); return &b },
		func(b *[]trace.Turn) (int, bool, error) {
			*b = (*b)[:0]
			for len(*b) < batchSize {
				t, err := src()
				if err == io.EOF {
					break
				}
				if err != nil {
					return 0, false, err
				}
				*b = append(*b, t)
			}
			return len(*b), len(*b) < batchSize, nil
		},
		func(w int, b *[]trace.Turn) error {
			engines[w].run(*b)
			return nil
		})
	if readErr != nil {
		return nil, readErr
	}
	// The summaries (each capacity's percentiles read through its
	// histogram and the late store) are computed by the engines' workers
	// in parallel too.
	out := make([]replay.Result, len(caps))
	var wg sync.WaitGroup
	for w, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.finish()
			for i := w; i < len(caps); i += workers {
				p := &e.points[e.at[i/workers]]
				out[i] = replay.Result{Name: name, Summary: p.acc.Summary(), Evictions: p.evictions,
					EvictedTokens: p.evictedBlocks * e.block, Metrics: p.acc}
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// none marks the absence of a conversation in the recency list.
const none int32 = -1

// engine replays LRU at several capacities over one recency list.
type engine struct {
	block int64

	convs []conv // by conversation id
	head  int32  // most recent conversation with n > 0
	tail  int32  // least recent one

	points []point // in increasing order of capacity
	at     []int   // at[i]: the point of the engine's i-th capacity as given
	xb     []int64 // scratch: c's cached blocks at each point, at the turn
	from   int64   // loads ≥ from tokens go to late
	late   *Late   // the turns deferred, for every point's accumulator
	shared *shared // the histogram entries runs of points share

	// The sums (every figure but the histogram), while exact: in
	// integers, the figures every point shares in common, those of the
	// leading points caching nothing in pre[i] (points 0 … i), of the
	// trailing ones caching the conversation whole in suf[j] (points
	// j … K−1), of the points between in their own point.sums (see sums).
	// Once budget (what is left of the limit of metrics.Terms.Cost) runs
	// out, exact is false and each point's accumulator adds its turns.
	exact    bool
	terms    metrics.Terms
	budget   int64
	common   metrics.Exact
	pre, suf []metrics.Exact
}

// conv is a conversation's state in an engine, its fields together so
// that a point's finger moving to a conversation reads one cache line,
// not one per field.
type conv struct {
	hist int64 // history, tokens
	n    int64 // whole blocks of the history, ⌊hist/B⌋
	last int   // index of the conversation's latest turn
	prev int32 // recency list: the next more recent conversation
	next int32 // recency list: the next less recent conversation
}

// point is one capacity's cache, seen through the recency list: every
// conversation more recent than b is cached whole, b caches cb blocks
// (1 ≤ cb ≤ n[b]), the ones behind b nothing; b is none when nothing is
// cached.
type point struct {
	capB  int64 // capacity, blocks
	total int64 // cached blocks
	b     int32
	cb    int64
	lastB int // e.convs[b].last, kept here to spare a random read per turn

	acc           *metrics.Accumulator
	sums          metrics.Exact // while e.exact, its own sums (engine.sums)
	evictions     int64
	evictedBlocks int64
}

func newEngine(caps []int64, opt replay.Options, from, limit int64) *engine {
	e := &engine{block: opt.BlockSize, head: none, tail: none, points: make([]point, len(caps)), at: make([]int, len(caps)),
		xb: make([]int64, len(caps)), from: from, late: NewLate(opt.BlockSize), shared: newShared(len(caps)),
		budget: limit, pre: make([]metrics.Exact, len(caps)), suf: make([]metrics.Exact, len(caps))}
	e.terms, e.exact = metrics.NewTerms(opt.Xi, opt.Model, opt.SLOMs)
	order := make([]int, len(caps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(caps[i], caps[j]) })
	for k, i := range order {
		e.at[i] = k
		e.points[k] = point{capB: caps[i] / opt.BlockSize, b: none, acc: metrics.New(opt.Xi, opt.Model, opt.SLOMs)}
		e.points[k].acc.SetLater(e.late.Uncached(e.points[k].capB))
	}
	return e
}

// finish hands each point's accumulator the histogram entries it shares
// with other points and the late turns whose counts are sorted once for
// all of them (Late.Freeze); run must not be called after it.
func (e *engine) finish() {
	e.giveSums()
	accs := make([]*metrics.Accumulator, len(e.points))
	if len(e.points) > 0 {
		e.late.Freeze(e.points[0].capB, e.points[len(e.points)-1].capB)
	}
	for k := range e.points {
		accs[k] = e.points[k].acc
		accs[k].SetShifted(e.late.Shifted(e.points[k].capB)...)
	}
	e.shared.give(accs)
}

// deferTurn records, when it can, a turn of load d tokens whose
// conversation held m whole blocks and was cached xb[i] blocks at point i,
// in the shared store, and reports whether it did. By the package doc's
// claim, xb[i] = clamp(capB_i − A, 0, m), where A is the number of blocks
// of the conversations served since; A is read off the points (the
// largest capacity with nothing cached is a lower bound, and one point
// caching part of m fixes it) and the record is kept only if it gives back
// every point's xb, so the store never holds a figure the engine did not
// compute.
func (e *engine) deferTurn(d, m int64) bool {
	if m == 0 {
		for _, x := range e.xb {
			if x != 0 {
				return false
			}
		}
		e.late.Add(d)
		return true
	}
	var a int64
	for i, x := range e.xb {
		if c := e.points[i].capB; x == 0 {
			a = max(a, c)
		} else if x < m {
			a = c - x
			break
		}
	}
	for i, x := range e.xb {
		if min(max(e.points[i].capB-a, 0), m) != x {
			return false
		}
	}
	e.late.Add(d, a, m)
	return true
}

// grow makes room for conversation c (ids are dense, in order of first
// appearance).
func (e *engine) grow(c int) {
	for len(e.convs) <= c {
		e.convs = append(e.convs, conv{last: -1, prev: none, next: none})
	}
}

// unlink removes conversation c from the recency list.
func (e *engine) unlink(c int32) {
	p, q := e.convs[c].prev, e.convs[c].next
	if p == none {
		e.head = q
	} else {
		e.convs[p].next = q
	}
	if q == none {
		e.tail = p
	} else {
		e.convs[q].prev = p
	}
	e.convs[c].prev, e.convs[c].next = none, none
}

// pushFront makes conversation c the most recent.
func (e *engine) pushFront(c int32) {
	e.convs[c].prev, e.convs[c].next = none, e.head
	if e.head == none {
		e.tail = c
	} else {
		e.convs[e.head].prev = c
	}
	e.head = c
}

// cached returns conversation c's cached blocks at point p at its turn:
// in tells whether c holds blocks (nOld of them), lastC is the index of
// its previous turn.
func (e *engine) cached(p *point, in bool, c int32, lastC int, nOld int64) int64 {
	switch {
	case !in || p.b == none:
		return 0
	case p.b == c:
		return p.cb
	case lastC > p.lastB:
		return nOld
	}
	return 0
}

// run replays turns at every capacity of the engine.
func (e *engine) run(turns []trace.Turn) {
	for _, t := range turns {
		e.grow(t.Conv)
		c := int32(t.Conv)
		cs := &e.convs[c]
		h := cs.hist
		nOld := cs.n
		cs.hist = h + t.Prompt + t.Response
		nNew := cs.hist / e.block
		d := h + t.Prompt
		if nNew == 0 {
			// c holds no block before or after (nOld ≤ nNew): it caches
			// nothing at any point, and nothing moves.
			clear(e.xb)
			e.sums(h, d, nOld)
			e.histogram(d, nOld)
			continue
		}
		in := nOld > 0 // c is in the list
		lastC := cs.last
		var pc int32 = none // c's more recent neighbour before the turn
		if in {
			pc = cs.prev
			e.unlink(c) // the rest of the list, S' of the package doc
		}
		for i := range e.points {
			p := &e.points[i]
			xb := e.cached(p, in, c, lastC, nOld) // c's cached blocks at the turn
			e.xb[i] = xb
			// c leaves its place: the rest's cached part ends at c's more
			// recent neighbour when c was the boundary.
			if in && p.b == c {
				p.b = pc
				if pc != none {
					p.cb, p.lastB = e.convs[pc].n, e.convs[pc].last
				}
			}
			nc := min(nNew, p.capB)
			p.total += nc - xb
			if p.b == none && nc > 0 {
				p.b, p.cb, p.lastB = c, nc, t.Index
			}
			over := p.total - p.capB
			if over <= 0 {
				continue
			}
			p.total = p.capB
			p.evictedBlocks += over
			for over > 0 {
				p.evictions++
				if p.cb > over {
					p.cb -= over
					break
				}
				over -= p.cb
				p.b = e.convs[p.b].prev
				if p.b == none { // c itself, not yet linked at the front
					p.b = c
				}
				p.cb, p.lastB = e.convs[p.b].n, e.convs[p.b].last
				if p.b == c {
					p.cb, p.lastB = nc, t.Index
				}
			}
		}
		e.sums(h, d, nOld)
		e.histogram(d, nOld)
		e.convs[c].n = nNew
		e.convs[c].last = t.Index
		e.pushFront(c)
	}
}

// runs returns the points that share a turn's figures, from e.xb (c's
// cached blocks at each point; c held nOld whole blocks): points
// 0 … lo−1 cache nothing, points hi … K−1 cache all nOld blocks (none
// when nOld is 0), the points lo … hi−1 between each something else.
func (e *engine) runs(nOld int64) (lo, hi int) {
	K := len(e.points)
	lo, hi = 0, K
	for lo < K && e.xb[lo] == 0 {
		lo++
	}
	if nOld > 0 {
		for hi > lo && e.xb[hi-1] == nOld {
			hi--
		}
	}
	return lo, hi
}

// sums adds a turn of history h and load d tokens, whose conversation
// held nOld whole blocks and was cached e.xb[i] blocks at point i, to
// every figure of every point but the histogram. While the turns' costs
// fit the budget (metrics.Terms.Cost) the figures are kept in integers,
// exactly, which lets a turn count once for the points it gives the same
// figures — its load and history once for all, its cached and uncached
// tokens once for the leading points caching nothing and once for the
// trailing ones caching nOld blocks (as the histogram's shared runs) —
// where the floating-point sums of an accumulator must be added at every
// point in trace order. The turn that would exceed the budget, and every
// one after it, is added by each point's accumulator.
func (e *engine) sums(h, d, nOld int64) {
	if e.exact {
		if cost := e.terms.Cost(d); cost <= e.budget {
			e.budget -= cost
		} else {
			e.giveSums()
		}
	}
	if !e.exact {
		for i := range e.points {
			e.points[i].acc.AddLater(h, e.xb[i]*e.block, d)
		}
		return
	}
	e.common.AddLoad(h, d)
	lo, hi := e.runs(nOld)
	if lo > 0 {
		e.terms.Add(&e.pre[lo-1], 0, d)
	}
	if hi < len(e.points) {
		x := nOld * e.block
		e.terms.Add(&e.suf[hi], x, d-x)
	}
	for i := lo; i < hi; i++ {
		x := e.xb[i] * e.block
		e.terms.Add(&e.points[i].sums, x, d-x)
	}
}

// giveSums, while the sums are exact, hands each point's accumulator its
// figures so far — the common ones, the runs covering it and its own —
// and ends the exact sums.
func (e *engine) giveSums() {
	if !e.exact {
		return
	}
	e.exact = false
	K := len(e.points)
	run := make([]metrics.Exact, K) // run[k]: the pre and suf runs covering k
	var acc metrics.Exact
	for k := K - 1; k >= 0; k-- {
		acc.Merge(e.pre[k])
		run[k] = acc
	}
	acc = metrics.Exact{}
	for k := range K {
		acc.Merge(e.suf[k])
		s := e.common
		s.Merge(run[k])
		s.Merge(acc)
		s.Merge(e.points[k].sums)
		e.points[k].acc.SetExact(e.terms, s)
	}
}

// histogram counts a turn of load d tokens, whose conversation held nOld
// whole blocks and was cached e.xb[i] blocks at point i, in the points'
// histograms: when its load is at least e.from tokens, in the store of
// late turns if it can hold it; otherwise the leading points caching
// nothing (0 … lo−1) and the trailing ones caching all nOld blocks
// (hi … K−1) share one entry each (shared), and the points between get
// one each.
func (e *engine) histogram(d, nOld int64) {
	if d >= e.from && e.deferTurn(d, nOld) {
		return
	}
	lo, hi := e.runs(nOld)
	K := len(e.points)
	if lo > 0 {
		e.shared.prefix[lo-1].add(d)
	}
	if hi < K {
		e.shared.suffix[hi].add(d - nOld*e.block)
	}
	for i := lo; i < hi; i++ {
		e.points[i].acc.AddLaterCount(d-e.xb[i]*e.block, 1)
	}
}
