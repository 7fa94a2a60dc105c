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

	points  []point // in increasing order of capacity
	capB    []int64 // capB[i] = points[i].capB, blocks, for the groups' searches
	zero    int     // the leading points of capacity 0, in no group: they never cache
	groups  []group // the other points' caches, in order of the points (groups.go)
	next    []group // scratch: the groups after the turn, when they outgrow e.groups
	w       int     // groups written in place at the turn (emit)
	limit   int     // groups read at the turn: emit may write below it
	copying bool    // the turn's groups go to next
	land    []group // scratch: where a walk's points land, in reverse order
	ev      []int64 // difference array over the points: evictions
	cst     []int64 // difference array: Σ over the turns of min(n'_c, capB) − xb, the term free of capB
	cf      []int64 // difference array: the same sum's coefficient of capB
	blocks  int64   // blocks of every conversation, Σ n
	at      []int   // at[i]: the point of the engine's i-th capacity as given
	xb      []int64 // scratch: c's cached blocks at each point, at the turn
	from    int64   // loads ≥ from tokens go to late
	late    *Late   // the turns deferred, for every point's accumulator
	shared  *shared // the histogram entries runs of points share

	// The sums (every figure but the histogram), while exact: in
	// integers, the figures every point shares in common, those of the
	// leading points caching nothing in pre[i] (points 0 … i), of the
	// trailing ones caching the conversation whole in suf[j] (points
	// j … K−1), of the points between in lin when they cache
	// capB − A blocks each (lin nil: capacities too large for it), else
	// in own (see sums). Once budget (what is left of the limit of
	// metrics.Terms.Cost) runs out, exact is false and each point's
	// accumulator adds its turns.
	exact    bool
	terms    metrics.Terms
	budget   int64
	common   metrics.Exact
	pre, suf []metrics.Exact
	own      []metrics.Exact
	lin      *linear
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

// point is one capacity's accumulator and, after the pass (finish), its
// evictions; its cache is described by the group it belongs to.
type point struct {
	capB int64 // capacity, blocks

	acc           *metrics.Accumulator
	evictions     int64
	evictedBlocks int64
}

func newEngine(caps []int64, opt replay.Options, from, limit int64) *engine {
	e := &engine{block: opt.BlockSize, head: none, tail: none, points: make([]point, len(caps)), at: make([]int, len(caps)),
		xb: make([]int64, len(caps)), from: from, late: NewLate(opt.BlockSize), shared: newShared(len(caps)),
		budget: limit, pre: make([]metrics.Exact, len(caps)), suf: make([]metrics.Exact, len(caps)), own: make([]metrics.Exact, len(caps))}
	e.terms, e.exact = metrics.NewTerms(opt.Xi, opt.Model, opt.SLOMs)
	if len(caps) > 0 && slices.Max(caps) <= linearLimit {
		e.lin = newLinear(len(caps))
	}
	order := make([]int, len(caps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(caps[i], caps[j]) })
	for k, i := range order {
		e.at[i] = k
		e.points[k] = point{capB: caps[i] / opt.BlockSize, acc: metrics.New(opt.Xi, opt.Model, opt.SLOMs)}
		e.points[k].acc.SetLater(e.late.Uncached(e.points[k].capB))
	}
	K := len(caps)
	e.capB = make([]int64, K)
	for k := range e.points {
		e.capB[k] = e.points[k].capB
		if e.capB[k] == 0 {
			e.zero = k + 1
		}
	}
	if e.zero < K {
		e.groups = append(e.groups, group{lo: e.zero, hi: K, y: none, last: -1})
	}
	e.ev, e.cst, e.cf = make([]int64, K+1), make([]int64, K+1), make([]int64, K+1)
	return e
}

// finish hands each point's accumulator the histogram entries it shares
// with other points and the late turns whose counts are sorted once for
// all of them (Late.Freeze); run must not be called after it.
func (e *engine) finish() {
	e.giveEvictions()
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

// middle returns A, the blocks of the conversations served since the
// turn's conversation c (the package doc's claim: c caches
// clamp(capB − A, 0, n) blocks at a capacity of capB blocks), read off the
// points: from the first of the points lo … hi−1 between the leading ones
// caching nothing and the trailing ones caching c whole, or, with none
// between, the largest capacity caching nothing (0 if none). ok reports
// whether it gives back e.xb at every point between (capB − A each); the
// runs' ends are deferTurn's to check.
func (e *engine) middle(lo, hi int) (a int64, ok bool) {
	if lo == hi {
		if lo > 0 {
			return e.points[lo-1].capB, true
		}
		return 0, true
	}
	a = e.points[lo].capB - e.xb[lo]
	for i := lo + 1; i < hi; i++ {
		if e.points[i].capB-e.xb[i] != a {
			return a, false
		}
	}
	return a, true
}

// deferTurn records, when it can, a turn of load d tokens whose
// conversation held m whole blocks and was cached xb[i] blocks at point i,
// in the shared store, and reports whether it did. By the package doc's
// claim, xb[i] = clamp(capB_i − A, 0, m); A is read off the points
// (middle, with lo, hi the runs of points caching nothing and all m
// blocks) and the record is kept only if it gives back every point's xb —
// the points between by middle's check, the leading ones (capB ≤ A) and
// the trailing ones (capB ≥ A + m) by their run's last and first point,
// the points being in increasing order of capacity — so the store never
// holds a figure the engine did not compute.
func (e *engine) deferTurn(d, m int64, lo, hi int, a int64, ok bool) bool {
	K := len(e.points)
	if m == 0 {
		if lo < K {
			return false
		}
		e.late.Add(d)
		return true
	}
	if !ok || (lo > 0 && e.points[lo-1].capB > a) || (hi < K && e.points[hi].capB-a < m) {
		return false
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

// histogram counts a turn of load d tokens, whose conversation held nOld
// whole blocks and was cached e.xb[i] blocks at point i, in the points'
// histograms: when its load is at least e.from tokens, in the store of
// late turns if it can hold it; otherwise the leading points caching
// nothing (0 … lo−1) and the trailing ones caching all nOld blocks
// (hi … K−1) share one entry each (shared), and the points between get
// one each. a and ok are middle's.
func (e *engine) histogram(d, nOld int64, lo, hi int, a int64, ok bool) {
	if d >= e.from && e.deferTurn(d, nOld, lo, hi, a, ok) {
		return
	}
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
