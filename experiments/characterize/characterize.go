// Package characterize measures a block-hash trace the way the workload
// study (seed 000, §3) does: the ideal (infinite-cache) block hit ratio,
// the reuse-time distribution of each request category, the lifespan of
// blocks, the cache size an ideal policy needs to reach the ideal hit
// ratio, and the prefixes shared by many requests (system prompts).
//
// A block is a node of the trace's prefix tree: the pair (parent block,
// hash id), so that equal ids at different chain positions or after
// different prefixes are different blocks, as a prefix cache sees them.
// (On traces whose ids are prefix-chained, such as Mooncake's, this is the
// same as counting distinct ids.)
//
// A use of a block is its occurrence in a request's chain; the request's
// category is its type and its turn number within its conversation,
// "text-2", with turns above Options.MaxTurn pooled ("text-5+"), or
// "turn-2" when the trace has no types. A reuse event is a use of a block
// used before; it belongs to the category of the block's previous use, and
// its reuse time is the seconds since that use (the definitions of the
// study's Figures 12–15 and of the workload-aware policy's fit).
package characterize

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/tailbound/tailbound/models/blocktrace"
	"gonum.org/v1/gonum/stat"
)

// Options tune the analyses.
type Options struct {
	// MaxTurn pools turns above it into one category per type (default 5).
	MaxTurn int
	// Hubs is the number of prefix hubs reported (default 10).
	Hubs int
	// SharedShare is the share of requests a prefix must be on to count as
	// shared in Report.SharedPrefixBlocks (default 0.05).
	SharedShare float64
	// WindowS is the width of the time-series windows, seconds (0: no
	// series).
	WindowS float64
	// Spatial turns on the spatial-locality grid (Report.Spatial).
	Spatial bool
}

func (o *Options) defaults() {
	if o.MaxTurn <= 0 {
		o.MaxTurn = 5
	}
	if o.Hubs <= 0 {
		o.Hubs = 10
	}
	if o.SharedShare <= 0 {
		o.SharedShare = 0.05
	}
}

// Quantiles summarises a sample in seconds: empirical quantiles (the
// smallest sample value whose empirical CDF reaches p), mean and maximum.
// All are 0 for an empty sample.
type Quantiles struct {
	P10  float64 `json:"p10_s"`
	P25  float64 `json:"p25_s"`
	P50  float64 `json:"p50_s"`
	P75  float64 `json:"p75_s"`
	P90  float64 `json:"p90_s"`
	P99  float64 `json:"p99_s"`
	Max  float64 `json:"max_s"`
	Mean float64 `json:"mean_s"`
}

// quantiles sorts x in place and summarises it.
func quantiles(x []float64) Quantiles {
	if len(x) == 0 {
		return Quantiles{}
	}
	sort.Float64s(x)
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, x, nil) }
	return Quantiles{P10: q(0.10), P25: q(0.25), P50: q(0.50), P75: q(0.75), P90: q(0.90), P99: q(0.99),
		Max: x[len(x)-1], Mean: stat.Mean(x, nil)}
}

// Category is the reuse profile of one request category.
type Category struct {
	// Name is "type-turn", e.g. "text-1" or "turn-5+".
	Name string `json:"name"`
	// Uses counts the block uses by requests of the category.
	Uses int64 `json:"uses_blocks"`
	// Reuses counts the reuse events whose previous use is in the category.
	Reuses int64 `json:"reuses_blocks"`
	// ReuseFraction = Reuses / Uses: the share of the category's uses that
	// are used again.
	ReuseFraction float64 `json:"reuse_fraction"`
	// ReuseTime summarises the reuse times, seconds.
	ReuseTime Quantiles `json:"reuse_time"`
	// Sorted reuse times, seconds (for CDF plots; not in JSON).
	Samples []float64 `json:"-"`
}

// Lifespan summarises the time between a block's first and last use.
type Lifespan struct {
	// Blocks counts the distinct blocks; All summarises their lifespans
	// (0 for a block used once), seconds.
	Blocks int64     `json:"blocks"`
	All    Quantiles `json:"all"`
	// Reused counts the blocks used more than once; ReusedSpan summarises
	// their lifespans, seconds.
	Reused     int64     `json:"reused_blocks"`
	ReusedSpan Quantiles `json:"reused"`
	// Sorted lifespans of all and of reused blocks, seconds (not in JSON).
	AllSamples, ReusedSamples []float64 `json:"-"`
}

// Capacity is the cache an ideal policy needs to reach the ideal hit ratio.
//
// After request i is served, a block is live if it has been used (by
// requests 0..i) and will be used again (by a later request). An ideal
// policy — the offline optimum, e.g. Belady with bypass: never keep a dead
// block, never evict a live one — keeps exactly the live blocks, so every
// reuse hits with PeakLiveBlocks blocks of cache, and with one block fewer
// some reuse must miss (after the peak request, one of its live blocks is
// out of the cache until its next use, which then misses). The set of live
// blocks is closed under parents (a later use of a block uses its prefix),
// so the ideal policy never leaves an orphan. This is the study's measure
// (§3.5: add a request's blocks if they will be reused, remove blocks that
// never will be).
type Capacity struct {
	PeakLiveBlocks int64 `json:"peak_live_blocks"`
	// PeakLiveTokens = PeakLiveBlocks × block size.
	PeakLiveTokens int64 `json:"peak_live_tokens"`
	// PeakAfter is the 0-based index of the request after which the peak
	// is first reached, and PeakTime its arrival time, seconds.
	PeakAfter int     `json:"peak_after_request"`
	PeakTime  float64 `json:"peak_time_s"`
	// MeanLiveBlocks is the mean over the request boundaries.
	MeanLiveBlocks float64 `json:"mean_live_blocks"`
	// LiveTimes and LiveBlocks are, after each request, its arrival in
	// seconds after the first arrival and the live blocks (not in JSON;
	// for the live-cache figure).
	LiveTimes, LiveBlocks []float64 `json:"-"`
}

// Hub is a prefix-tree node with many distinct successors: a prefix that
// many different continuations share (a system prompt, a shared document).
type Hub struct {
	// Depth is the node's position in its chains, 1-based, in blocks;
	// DepthTokens = Depth × block size.
	Depth       int   `json:"depth_blocks"`
	DepthTokens int64 `json:"depth_tokens"`
	// Fanout counts the distinct blocks that follow it.
	Fanout int `json:"fanout_blocks"`
	// Requests counts the requests whose chain passes through it.
	Requests int64 `json:"requests"`
	// Hash is its id in the trace.
	Hash int64 `json:"hash_id"`
}

// Report is the characterization of one trace.
type Report struct {
	Requests    int64 `json:"requests"`
	BlockTokens int   `json:"block_tokens"`
	// SpanS is the time from the first to the last arrival, seconds.
	SpanS float64 `json:"span_s"`
	// InputTokens and OutputTokens sum the requests' lengths.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// RefBlocks counts the blocks of all chains, DistinctBlocks the
	// distinct blocks (prefix-tree nodes).
	RefBlocks      int64 `json:"ref_blocks"`
	DistinctBlocks int64 `json:"distinct_blocks"`
	// IdealHitRatio = 1 − DistinctBlocks/RefBlocks: the block hit ratio of
	// an infinite cache, where every use but the first of a block hits.
	IdealHitRatio float64  `json:"ideal_block_hit_ratio"`
	Capacity      Capacity `json:"capacity_for_ideal"`
	// Categories in order of type name, then turn; Overall pools them.
	Categories []Category `json:"categories"`
	Overall    Category   `json:"overall"`
	Lifespan   Lifespan   `json:"lifespan"`
	// Hubs are the nodes of largest fanout (ties: more requests first,
	// then shallower, then smaller hash).
	Hubs []Hub `json:"hubs"`
	// SharedPrefixBlocks is the depth of the deepest block that at least
	// SharedShare of the requests use: the span of a prefix (system
	// prompt) common to that share of the trace; 0 if none.
	SharedPrefixBlocks int     `json:"shared_prefix_blocks"`
	SharedShare        float64 `json:"shared_prefix_share"`
	// WindowS and Series are the time series (Options.WindowS; absent
	// when off).
	WindowS float64  `json:"window_s,omitempty"`
	Series  []Window `json:"series,omitempty"`
	// Spatial is the spatial-locality grid (Options.Spatial; absent when
	// off), offsets ascending, then strides.
	Spatial []SpatialCell `json:"spatial_locality,omitempty"`
	// FirstTurnTokens and FollowUpTokens are input + output tokens of each
	// first turn and each follow-up turn (a request of an unlinked trace is
	// a first turn), in trace order (for per-request KV sizes; not in JSON).
	FirstTurnTokens, FollowUpTokens []float64 `json:"-"`
}

type nodeKey struct {
	parent int32
	hash   int64
}

// node is one distinct block.
type node struct {
	hash              int64
	first, last       float64 // times of first and latest use, s
	firstReq, lastReq int32
	lastCat           int32
	refs, kids, depth int32
}

type catKey struct {
	typ  string
	turn int
}

// Run characterizes the requests of src, whose hashes stand for blocks of
// blockTokens tokens. Requests must come in arrival order.
func Run(src blocktrace.Source, blockTokens int, opt Options) (*Report, error) {
	opt.defaults()
	if blockTokens < 1 {
		return nil, fmt.Errorf("block size %d tokens must be ≥ 1", blockTokens)
	}
	ids := map[nodeKey]int32{}
	var nodes []node
	cats := map[catKey]int32{}
	var catKeys []catKey
	var samples [][]float64
	var uses []int64
	turns := map[int]int{}
	rep := &Report{BlockTokens: blockTokens, SharedShare: opt.SharedShare}
	tr, err := newTracker(opt)
	if err != nil {
		return nil, err
	}
	var times []float64
	first, last := 0.0, 0.0
	for {
		r, err := src()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if r.Input < 0 || r.Output < 0 {
			return nil, fmt.Errorf("request %d: negative length (input %d, output %d tokens)", r.Index, r.Input, r.Output)
		}
		if rep.Requests > 0 && r.Time < last {
			return nil, fmt.Errorf("request %d: time %g s is earlier than the previous request's %g s", r.Index, r.Time, last)
		}
		if rep.Requests == 0 {
			first = r.Time
		}
		if rep.Requests >= 1<<31-1 || len(nodes)+len(r.Hashes) >= 1<<31-1 {
			return nil, fmt.Errorf("request %d: more than 2^31 requests or blocks", r.Index)
		}
		last = r.Time
		req := int32(rep.Requests)
		times = append(times, r.Time)
		rep.Requests++
		rep.InputTokens += r.Input
		rep.OutputTokens += r.Output
		turn := 1
		if r.Conv >= 0 {
			turns[r.Conv]++
			turn = turns[r.Conv]
		}
		win, err := tr.request(r.Time, req == 0, turn, r.Input+r.Output)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", r.Index, err)
		}
		ck := catKey{r.Category, min(turn, opt.MaxTurn)}
		c, ok := cats[ck]
		if !ok {
			c = int32(len(catKeys))
			cats[ck] = c
			catKeys = append(catKeys, ck)
			samples = append(samples, nil)
			uses = append(uses, 0)
		}
		uses[c] += int64(len(r.Hashes))
		parent := int32(-1)
		for j, h := range r.Hashes {
			k := nodeKey{parent, h}
			id, seen := ids[k]
			if !seen {
				id = int32(len(nodes))
				ids[k] = id
				nodes = append(nodes, node{hash: h, first: r.Time, firstReq: req, depth: int32(j + 1)})
				if parent >= 0 {
					nodes[parent].kids++
				}
			} else {
				n := &nodes[id]
				samples[n.lastCat] = append(samples[n.lastCat], r.Time-n.last)
			}
			tr.block(win, id, j, len(r.Hashes), seen)
			n := &nodes[id]
			n.last, n.lastReq, n.lastCat = r.Time, req, c
			n.refs++
			parent = id
		}
		rep.RefBlocks += int64(len(r.Hashes))
	}
	rep.SpanS = last - first
	rep.DistinctBlocks = int64(len(nodes))
	if rep.RefBlocks > 0 {
		rep.IdealHitRatio = 1 - float64(rep.DistinctBlocks)/float64(rep.RefBlocks)
	}
	rep.Capacity = capacity(nodes, times, int64(blockTokens))
	rep.Categories, rep.Overall = categories(catKeys, samples, uses, opt.MaxTurn)
	rep.Lifespan = lifespan(nodes)
	rep.Hubs = hubs(nodes, opt.Hubs, int64(blockTokens))
	tr.finish(rep)
	for _, n := range nodes {
		if rep.Requests > 0 && float64(n.refs) >= opt.SharedShare*float64(rep.Requests) {
			rep.SharedPrefixBlocks = max(rep.SharedPrefixBlocks, int(n.depth))
		}
	}
	return rep, nil
}

// capacity sweeps the live-block count over the request boundaries: block
// b is live after requests firstReq..lastReq−1.
func capacity(nodes []node, times []float64, block int64) Capacity {
	var c Capacity
	if len(times) == 0 {
		return c
	}
	diff := make([]int64, len(times)+1)
	for _, n := range nodes {
		if n.lastReq > n.firstReq {
			diff[n.firstReq]++
			diff[n.lastReq]--
		}
	}
	var live, sum int64
	c.LiveTimes, c.LiveBlocks = make([]float64, len(times)), make([]float64, len(times))
	for i := range times {
		live += diff[i]
		sum += live
		c.LiveTimes[i], c.LiveBlocks[i] = times[i]-times[0], float64(live)
		if live > c.PeakLiveBlocks {
			c.PeakLiveBlocks, c.PeakAfter, c.PeakTime = live, i, times[i]
		}
	}
	c.PeakLiveTokens = c.PeakLiveBlocks * block
	c.MeanLiveBlocks = float64(sum) / float64(len(times))
	return c
}

func catName(k catKey, maxTurn int) string {
	typ := k.typ
	if typ == "" {
		typ = "turn"
	}
	s := typ + "-" + strconv.Itoa(k.turn)
	if k.turn == maxTurn && maxTurn > 1 {
		s += "+"
	}
	return s
}

func categories(keys []catKey, samples [][]float64, uses []int64, maxTurn int) ([]Category, Category) {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if keys[a].typ != keys[b].typ {
			if keys[a].typ < keys[b].typ {
				return -1
			}
			return 1
		}
		return keys[a].turn - keys[b].turn
	})
	var out []Category
	all := Category{Name: "all"}
	for _, i := range order {
		c := Category{Name: catName(keys[i], maxTurn), Uses: uses[i], Reuses: int64(len(samples[i]))}
		all.Uses += c.Uses
		all.Reuses += c.Reuses
		all.Samples = append(all.Samples, samples[i]...)
		c.Samples = samples[i]
		c.ReuseTime = quantiles(c.Samples)
		if c.Uses > 0 {
			c.ReuseFraction = float64(c.Reuses) / float64(c.Uses)
		}
		out = append(out, c)
	}
	all.ReuseTime = quantiles(all.Samples)
	if all.Uses > 0 {
		all.ReuseFraction = float64(all.Reuses) / float64(all.Uses)
	}
	return out, all
}

func lifespan(nodes []node) Lifespan {
	l := Lifespan{Blocks: int64(len(nodes))}
	l.AllSamples = make([]float64, len(nodes))
	for i, n := range nodes {
		l.AllSamples[i] = n.last - n.first
		if n.refs > 1 {
			l.ReusedSamples = append(l.ReusedSamples, n.last-n.first)
		}
	}
	l.Reused = int64(len(l.ReusedSamples))
	l.All = quantiles(l.AllSamples)
	l.ReusedSpan = quantiles(l.ReusedSamples)
	return l
}

func hubs(nodes []node, n int, block int64) []Hub {
	var hs []Hub
	for _, nd := range nodes {
		if nd.kids > 1 {
			hs = append(hs, Hub{Depth: int(nd.depth), DepthTokens: int64(nd.depth) * block, Fanout: int(nd.kids),
				Requests: int64(nd.refs), Hash: nd.hash})
		}
	}
	slices.SortStableFunc(hs, func(a, b Hub) int {
		switch {
		case a.Fanout != b.Fanout:
			return b.Fanout - a.Fanout
		case a.Requests != b.Requests:
			return int(b.Requests - a.Requests)
		case a.Depth != b.Depth:
			return a.Depth - b.Depth
		case a.Hash < b.Hash:
			return -1
		case a.Hash > b.Hash:
			return 1
		}
		return 0
	})
	return hs[:min(n, len(hs))]
}
