// Package blocksim replays block-level traces (SPEC §8) through prefix
// caches: several policies and capacities over one read of the trace, each
// cache in its own goroutine so that independent runs use every core (LRU
// at two or more capacities is one run of models/stackcurve's stack pass,
// block-level LRU being a stack algorithm, whose figures at every capacity
// are those of a cache of that capacity). It measures the block and token hit ratios, TTFT and TEL of each, and the
// ideal (infinite-cache) figures of the trace.
package blocksim

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"io"

	"github.com/tailbound/tailbound/internal/fanout"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/queue"
	"github.com/tailbound/tailbound/models/stackcurve"
)

// Run is one cache to replay: a policy at a capacity.
type Run struct {
	// Name is the policy's display name.
	Name string
	// New builds the policy.
	New prefixcache.Factory
	// Capacity is the cache size in tokens, a multiple of the block size.
	Capacity int64
}

// Options are the settings shared by all runs.
type Options struct {
	// Params are the instance: BlockSize is the trace's block size and Xi
	// the TEL threshold ξ, tokens. Capacity is ignored (each Run has its
	// own) and Forced is not supported (a request's chain is always
	// admitted).
	instance.Params
	// Model is the TTFT model.
	Model latency.Model
	// SLOMs is the SLO for violation counts, ms.
	SLOMs float64
	// QHat is the tail-aware policies' estimate of a continuation's new
	// tokens; 0 = auto.
	QHat float64
	// PolicyOptions are policy-specific key=value settings.
	PolicyOptions map[string]string
	// Progress, when not nil, is told the requests replayed now and then.
	Progress progress.Func
	// Queue turns on queued TTFT (Result.Queued): each run's requests wait
	// in a FIFO prefill queue of QueueServers servers (package queue) whose service
	// times are their TTFTs under Model.
	Queue bool
	// QueueServers is the number of servers of that queue (0 means 1).
	QueueServers int
	// Bulk, when not nil, reads the same requests as the Source given to
	// Replay, in bulk (blocktrace.Bulk): Replay then reads through it and
	// not the Source, except under NoIdeal, which reads the Source. The
	// requests must be of one block each (an object trace): when every
	// run's policy serves objects, the replay is the object replay
	// (objects.go), and a request of other than one block is an error.
	Bulk blocktrace.Bulk
	// Objects, when not nil beside Bulk, reads the same requests as
	// objects (blocktrace.ObjectBulk): the object replay reads it instead
	// of Bulk, and makes no Request.
	Objects blocktrace.ObjectBulk
	// NoIdeal turns the ideal figures off, so that memory follows the
	// caches' working set instead of the trace: each run numbers the
	// blocks itself and forgets those its cache evicts (stream.go). Only
	// CachedOnly policies (lru, fifo, lfu, aging-lfu, gdsf) and Remembering
	// ones (s3fifo) can run so; the Ideal returned holds
	// Requests and RefBlocks only, and HistoryHit has no value (NaN).
	NoIdeal bool

	// lateFrom, when > 0, replaces stackcurve.DeferFrom (tests: every
	// request of an LRU sweep through the Late store).
	lateFrom int64
}

// Result is one run's outcome. Token figures follow SPEC §2 with a request
// as a turn: the load D is the input length, the cached amount x is
// min(hit blocks × block size, D), so TTFT = β + α·(D − x).
type Result struct {
	Name           string
	CapacityTokens int64
	CapacityBlocks int
	// Requests served.
	Requests int64
	// RefBlocks and HitBlocks count the blocks of all chains and those hit.
	RefBlocks, HitBlocks int64
	// BlockHitRatio is HitBlocks / RefBlocks.
	BlockHitRatio float64
	// Evictions is the number of blocks evicted.
	Evictions int64
	// Summary holds TEL, TTFT percentiles and token hit ratios; its
	// HistoryHit is the share of the ideal (infinite-cache) hit tokens
	// that this cache hit.
	Summary metrics.Summary
	Metrics *metrics.Accumulator
	// Queued is the queued-TTFT summary (Options.Queue; nil when off).
	Queued *queue.Summary
}

// Ideal is what an infinite cache achieves on the trace: every block used
// before hits.
type Ideal struct {
	Requests int64
	// RefBlocks counts the blocks of all chains; Distinct the distinct
	// blocks (prefix-tree nodes).
	RefBlocks, Distinct int64
	// BlockHitRatio = (RefBlocks − Distinct)/RefBlocks.
	BlockHitRatio float64
	// PeakLiveBlocks is the capacity, in blocks, that the ideal hit ratio
	// needs: the largest number of blocks that, between two requests, have
	// been used and will be used again (the workload study's measure: an
	// ideal policy keeps exactly those).
	PeakLiveBlocks int64
	// Summary holds TTFT, TEL and the token hit ratio of the infinite cache.
	Summary metrics.Summary
	// None reports that the figures were not computed (Options.NoIdeal):
	// only Requests and RefBlocks hold values.
	None bool
}

const batchSize = 2048

// batch is a batch of interned requests and the arena their chains use.
type batch struct {
	reqs  []prefixcache.Req
	arena []prefixcache.BlockID
	// objs are the object replay's requests (objects.go), the first of
	// them the trace's request first.
	objs  []objReq
	first int
}

type runner struct {
	run    Run
	fg     *prefixcache.Forgetter // Options.NoIdeal: the run's own block ids
	arena  []prefixcache.BlockID  // Options.NoIdeal: the chain being served
	cache  *prefixcache.Cache
	policy prefixcache.Policy
	// curve, when not nil, replays the run instead of cache (its capacity
	// number curveAt): the run is one point of a stack pass.
	curve   *stackcurve.BlockLRU
	curveAt int
	acc     *metrics.Accumulator
	reqs    int64
	refs    int64
	hits    int64
	blockT  int64
	model   latency.Model
	queue   *queue.FIFO
	req     prefixcache.Req // the object replay's request being served (serveObjects)
}

// Replay runs every run over the requests of src and returns their results
// in the order given, and the trace's ideal figures (Ideal.None under
// Options.NoIdeal, which refuses policies that are neither CachedOnly nor
// Remembering with an
// option.Error naming --no-ideal). A malformed request or
// a policy that breaks the cache's rules is an error; no partial result is
// returned.
func Replay(src blocktrace.Source, runs []Run, opt Options) ([]Result, Ideal, error) {
	if err := opt.Model.Validate(); err != nil {
		return nil, Ideal{}, err
	}
	if opt.Forced {
		return nil, Ideal{}, errors.New("forced caching is not supported at the block level")
	}
	if err := opt.Validate(); err != nil {
		return nil, Ideal{}, err
	}
	rs := make([]*runner, len(runs))
	for i, r := range runs {
		in := opt.Params
		in.Capacity = r.Capacity
		if err := in.Validate(); err != nil {
			return nil, Ideal{}, err
		}
		p, err := r.New(prefixcache.Config{Params: in, QHat: opt.QHat, Options: opt.PolicyOptions})
		if err != nil {
			return nil, Ideal{}, fmt.Errorf("policy %s: %w", r.Name, err)
		}
		c, err := prefixcache.New(in.Capacity, in.BlockSize, p)
		if err != nil {
			return nil, Ideal{}, err
		}
		rs[i] = &runner{run: r, cache: c, policy: p, acc: metrics.New(opt.Xi, opt.Model, opt.SLOMs), blockT: opt.BlockSize, model: opt.Model}
		if opt.Queue {
			rs[i].queue = &queue.FIFO{Servers: opt.QueueServers}
		}
		if opt.NoIdeal {
			if err := rs[i].forgetting(p); err != nil {
				return nil, Ideal{}, err
			}
		}
	}
	if opt.NoIdeal {
		ideal, err := replayStream(src, rs, opt)
		if err != nil {
			return nil, Ideal{}, err
		}
		return results(rs), ideal, nil
	}
	consumers, err := stackRuns(rs, cmp.Or(opt.lateFrom, stackcurve.DeferFrom))
	if err != nil {
		return nil, Ideal{}, err
	}
	f := newFeeder(opt)
	var ra *ahead
	if opt.Bulk != nil {
		ra = readDirect(opt.Bulk, batchSize)
	} else {
		ra = readAhead(src, nil, batchSize)
	}
	defer ra.stop()
	if objectsOK(opt, consumers) {
		obs := &objSource{bulk: opt.Objects, reqs: ra}
		readErr, errs := fanout.Broadcast(len(consumers), func() *batch {
			return &batch{objs: make([]objReq, 0, batchSize)}
		}, func(b *batch) (int, bool, error) { return f.fillObjects(obs, b) },
			func(i int, b *batch) error { return consumers[i].runs[0].serveObjects(b.objs, b.first) })
		return finish(f, rs, consumers, readErr, errs)
	}
	// The ideal figures are one more consumer of the batches, after the
	// runs: off the feeder, which is the pipeline's slowest stage on a
	// stream of short requests.
	readErr, errs := fanout.Broadcast(len(consumers)+1, func() *batch {
		return &batch{reqs: make([]prefixcache.Req, 0, batchSize), arena: make([]prefixcache.BlockID, 0, 32*batchSize)}
	}, func(b *batch) (int, bool, error) { return f.fill(ra, b) },
		func(i int, b *batch) error {
			if i == len(consumers) {
				f.observe(b.reqs)
				return nil
			}
			return consumers[i].serve(b.reqs)
		})
	return finish(f, rs, consumers, readErr, errs)
}

// finish returns Replay's results once the batches are all served.
func finish(f *feeder, rs []*runner, consumers []*consumer, readErr error, errs []error) ([]Result, Ideal, error) {
	if readErr != nil {
		return nil, Ideal{}, readErr
	}
	for i, c := range consumers {
		if errs[i] != nil {
			return nil, Ideal{}, c.runs[0].failed(errs[i])
		}
	}
	return results(rs), f.ideal(), nil
}

// consumer is one reader of the batches: a runner with its own cache, or a
// group of LRU runs at several capacities replayed by one stack pass.
type consumer struct {
	runs  []*runner
	curve *stackcurve.BlockLRU // nil: runs[0] alone, through its cache
	hits  []int                // scratch: a request's hit per capacity, blocks
	// late holds, once for all capacities, the requests of at least
	// stackcurve.DeferFrom input tokens, whose uncached counts would
	// otherwise be one histogram entry per request and capacity.
	late     *stackcurve.Late
	lateFrom int64   // input tokens from which a request goes to late
	runs64   []int64 // scratch: the request's hit runs (BlockLRU.Runs)
}

// maxLateRuns bounds the runs of hit positions a request keeps in a Late
// store; a request with more is accounted per capacity as before.
const maxLateRuns = 16

// stackRuns returns the consumers of rs: the LRU runs of one name at two
// or more capacities become one stack pass (models/stackcurve: block-level
// LRU is a stack algorithm, so one pass gives every capacity's hits and
// evictions), every other run is replayed through its own cache.
func stackRuns(rs []*runner, lateFrom int64) ([]*consumer, error) {
	groups := map[string][]*runner{}
	for _, r := range rs {
		if prefixcache.IsLRU(r.policy) {
			groups[r.run.Name] = append(groups[r.run.Name], r)
		}
	}
	var out []*consumer
	done := map[string]bool{}
	for _, r := range rs {
		g := groups[r.run.Name]
		if !prefixcache.IsLRU(r.policy) || len(g) < 2 {
			out = append(out, &consumer{runs: []*runner{r}})
			continue
		}
		if done[r.run.Name] {
			continue
		}
		done[r.run.Name] = true
		caps := make([]int, len(g))
		for i, gr := range g {
			caps[i] = gr.cache.Capacity()
		}
		curve, err := stackcurve.NewBlockLRU(caps)
		if err != nil {
			return nil, err
		}
		late := stackcurve.NewLate(g[0].blockT)
		for i, gr := range g {
			gr.curve, gr.curveAt = curve, i
			gr.acc.SetLater(late.Uncached(int64(caps[i])))
		}
		out = append(out, &consumer{runs: g, curve: curve, hits: make([]int, len(g)), late: late, lateFrom: lateFrom})
	}
	return out, nil
}

// serve serves a batch of requests, in trace order.
func (c *consumer) serve(reqs []prefixcache.Req) error {
	if c.curve == nil {
		return c.runs[0].serve(reqs)
	}
	for i := range reqs {
		q := &reqs[i]
		if err := c.curve.Serve(q.Blocks, c.hits); err != nil {
			return fmt.Errorf("request %d: %w", q.Index, err)
		}
		h := min(int64(q.Seen)*c.runs[0].blockT, q.Input)
		late := false
		if q.Input >= c.lateFrom {
			c.runs64 = c.curve.Runs(c.runs64[:0])
			if late = len(c.runs64) <= 2*maxLateRuns; late {
				c.late.Add(q.Input, c.runs64...)
			}
		}
		for j, r := range c.runs {
			if err := r.account(q, h, c.hits[j], min(int64(c.hits[j])*r.blockT, q.Input), late); err != nil {
				return err
			}
		}
	}
	return nil
}

// failed names the run that err stopped.
func (r *runner) failed(err error) error {
	return fmt.Errorf("policy %s at %d tokens: %w", r.run.Name, r.run.Capacity, err)
}

// results returns the runs' results, in order.
func results(rs []*runner) []Result {
	out := make([]Result, len(rs))
	for i, r := range rs {
		out[i] = Result{Name: r.run.Name, CapacityTokens: r.run.Capacity, CapacityBlocks: r.cache.Capacity(),
			Requests: r.reqs, RefBlocks: r.refs, HitBlocks: r.hits, Evictions: r.evictions(),
			Summary: r.acc.Summary(), Metrics: r.acc}
		if r.refs > 0 {
			out[i].BlockHitRatio = float64(r.hits) / float64(r.refs)
		}
		if r.queue != nil {
			s := r.queue.Summary()
			out[i].Queued = &s
		}
	}
	return out
}

// evictions returns the blocks the run evicted.
func (r *runner) evictions() int64 {
	if r.curve != nil {
		return r.curve.Evictions(r.curveAt)
	}
	return r.cache.Evictions()
}

func (r *runner) serve(reqs []prefixcache.Req) error {
	for i := range reqs {
		if j := i + lookahead; j < len(reqs) && len(reqs[j].Blocks) > 0 {
			r.cache.Touch(reqs[j].Blocks[0]) // as the feeder does (Interner.Touch)
		}
		q := &reqs[i]
		if err := r.serveOne(q, min(int64(q.Seen)*r.blockT, q.Input)); err != nil {
			return err
		}
	}
	return nil
}

// serveOne serves q, of which an infinite cache hits h tokens (0 when
// unknown: Options.NoIdeal).
func (r *runner) serveOne(q *prefixcache.Req, h int64) error {
	hit, x, err := r.cache.ServeTokens(q)
	if err != nil {
		return err
	}
	return r.account(q, h, hit, x, false)
}

// account adds q, of which an infinite cache hits h tokens and the run's
// cache hit blocks holding x tokens of the prompt, to the run's figures;
// late when its uncached count is in the Late store of the run's
// accumulator (metrics.Accumulator.AddLater).
func (r *runner) account(q *prefixcache.Req, h int64, hit int, x int64, late bool) error {
	r.reqs++
	r.refs += int64(len(q.Blocks))
	r.hits += int64(hit)
	if late {
		r.acc.AddLater(h, x, q.Input)
	} else {
		r.acc.Add(h, x, q.Input)
	}
	if r.queue != nil {
		if _, _, err := r.queue.Serve(q.Time, r.model.TTFTMs(float64(q.Input-x))); err != nil {
			return fmt.Errorf("request %d: %w", q.Index, err)
		}
	}
	return nil
}

// feeder reads the trace, numbers its blocks and keeps the ideal figures.
//
// It is the part of a replay whose memory grows with the trace, by about
// 16 bytes per distinct block (prefix-tree node), because the ideal
// figures need it: telling a block seen before from a new one (the
// ideal hit, Req.Seen, and the distinct count) takes the Interner's index
// of every block seen, and the peak of live blocks (PeakLiveBlocks) takes
// each block's first and last use, known only at the end. The caches, and
// the policies that keep state for cached blocks only
// (prefixcache.CachedOnly: LRU, FIFO, LFU, Aging-LFU, GDSF), are bounded by their capacity
// (S3-FIFO, prefixcache.Remembering, by its capacity and its ghost's);
// Options.NoIdeal replaces the feeder by the streaming replay of stream.go,
// bounded by them alone.
type feeder struct {
	opt  Options
	in   *prefixcache.Interner
	acc  *metrics.Accumulator
	uses useTable   // request index of each block's first and latest use
	objs objectUses // the same, by object, in the object replay (objects.go)
	refs int64      // block references observed
	read int64      // requests read and interned; all observed once Replay's workers are done
	// lastTime is the time of the object replay's latest request,
	// seconds (fillObjects checks the order as the Interner does).
	lastTime float64
}

func newFeeder(opt Options) *feeder {
	return &feeder{opt: opt, in: prefixcache.NewInterner(), acc: metrics.New(opt.Xi, opt.Model, opt.SLOMs)}
}

// fill reads the next batch of requests from src into b, interned, and
// reports how many it holds and whether src is exhausted.
func (f *feeder) fill(src *ahead, b *batch) (int, bool, error) {
	b.reqs, b.arena = b.reqs[:0], b.arena[:0]
	done := false
	for len(b.reqs) < batchSize {
		r, err := src.next()
		if err == io.EOF {
			done = true
			break
		}
		if err != nil {
			return 0, false, err
		}
		r.Index = int(f.read)
		if p := src.peek(lookahead); p != nil && len(p.Hashes) > 0 {
			// Start loading the block of a request further on: on a
			// stream of single blocks from a large set of objects, most
			// lookups miss the processor's caches, and a miss the
			// processor waits for, request after request, is the
			// feeder's main cost.
			f.in.Touch(p.Hashes[0])
		}
		b.reqs = append(b.reqs, prefixcache.Req{})
		q := &b.reqs[len(b.reqs)-1]
		arena, err := f.in.InternTo(q, r, b.arena)
		if err != nil {
			return 0, false, err
		}
		b.arena = arena
		f.read++
	}
	reportProgress(f.opt.Progress, f.read, done)
	return len(b.reqs), done, nil
}

// lookahead is how many requests ahead the feeder and a cache touch a
// block's entry before they need it (Interner.Touch, Cache.Touch; on
// stream (a) in scratch benchmarks 8 took 20-40% off the numbering, 16
// less, and 7-30% off LRU's serving). The ideal figures' table is not
// touched so: its random access is a store, which the processor does not
// wait for (touching it doubled their time).
const lookahead = 8

// progressEvery is how many requests go between two progress reports.
const progressEvery = 32 * batchSize

// reportProgress tells f, when not nil, the requests read now and then,
// and at the end (done).
func reportProgress(f progress.Func, read int64, done bool) {
	if done || read%progressEvery < batchSize {
		f.Report("replay: requests", read, 0)
	}
}

// observe adds a batch of interned requests, in trace order, to the ideal
// figures.
func (f *feeder) observe(reqs []prefixcache.Req) {
	for i := range reqs {
		q := &reqs[i]
		idx := int32(q.Index)
		for _, id := range q.Blocks {
			if int(id) >= f.uses.n { // a new block: ids come in order of first use
				f.uses.add(idx)
				continue
			}
			f.uses.at(id).last = idx
		}
		f.refs += int64(len(q.Blocks))
		x := min(int64(q.Seen)*f.opt.BlockSize, q.Input)
		f.acc.Add(x, x, q.Input)
	}
}

// useBits is the base-2 logarithm of the blocks per page of useTable.
const (
	useBits = 16
	useMask = 1<<useBits - 1
)

// use is the request index of a block's first and latest use.
type use struct{ first, last int32 }

// useTable holds a use per block, by BlockID, in pages of 2^useBits
// blocks. Pages, not one slice: a slice grown an element at a time was
// copied over and over as it grew (a tenth of a single-block replay's CPU
// time on 10^6 distinct blocks), and a page is never moved.
type useTable struct {
	pages [][]use
	n     int // blocks held
}

// add appends the use of a new block, first used (and last so far) by
// request idx.
func (t *useTable) add(idx int32) {
	if t.n&useMask == 0 {
		t.pages = append(t.pages, make([]use, 1<<useBits))
	}
	t.pages[t.n>>useBits][t.n&useMask] = use{idx, idx}
	t.n++
}

// at returns the use of block id, which must be below n.
func (t *useTable) at(id prefixcache.BlockID) *use {
	return &t.pages[id>>useBits][id&useMask]
}

func (f *feeder) ideal() Ideal {
	id := Ideal{Requests: f.read, RefBlocks: f.refs, Distinct: int64(f.uses.n + f.objs.n), Summary: f.acc.Summary()}
	if f.refs > 0 {
		id.BlockHitRatio = float64(f.refs-id.Distinct) / float64(f.refs)
	}
	if f.objs.n > 0 {
		id.PeakLiveBlocks = f.objs.peakLive()
		return id
	}
	// The live count between requests r and r+1 is #{first ≤ r} −
	// #{last ≤ r} over the blocks used again; it rises only at a first
	// use, and first uses come in block-id order (ids are given in order
	// of first use), so the peak is found from the sorted last uses alone:
	// memory per reused block, not per request.
	reused := 0
	for b := 0; b < f.uses.n; b++ {
		if u := f.uses.at(prefixcache.BlockID(b)); u.last > u.first {
			reused++
		}
	}
	ends := make([]int32, 0, reused) // counted first: no copies as it fills
	for b := 0; b < f.uses.n; b++ {
		if u := f.uses.at(prefixcache.BlockID(b)); u.last > u.first {
			ends = append(ends, u.last)
		}
	}
	sortIndices(ends)
	var starts int64
	j := 0
	for b := 0; b < f.uses.n; {
		r := f.uses.at(prefixcache.BlockID(b)).first
		for ; b < f.uses.n; b++ {
			u := f.uses.at(prefixcache.BlockID(b))
			if u.first != r {
				break
			}
			if u.last > u.first {
				starts++
			}
		}
		for j < len(ends) && ends[j] <= r {
			j++
		}
		id.PeakLiveBlocks = max(id.PeakLiveBlocks, starts-int64(j))
	}
	return id
}
