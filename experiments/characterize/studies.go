package characterize

import (
	"github.com/tailbound/tailbound/experiments/report"

	"fmt"
	"math"
)

// Window is one W-second slice of the trace: its arrival rate and the
// ideal (infinite-cache) block hit ratio of its requests, the study's
// request-rate and hit-ratio time series.
type Window struct {
	// StartS is the window's start, seconds after the first arrival.
	StartS   float64 `json:"start_s"`
	Requests int64   `json:"requests"`
	// RatePerS = Requests / W, requests per second.
	RatePerS float64 `json:"rate_per_s"`
	// RefBlocks counts the blocks of the window's chains and HitBlocks
	// those used before (by any earlier request, in any window).
	RefBlocks int64 `json:"ref_blocks"`
	HitBlocks int64 `json:"hit_blocks"`
	// HitRatio = HitBlocks / RefBlocks (nil, JSON null, for a window
	// with no block references).
	HitRatio *float64 `json:"ideal_block_hit_ratio"`
}

// SpatialCell is the ideal hit ratio when each request stores only part
// of its chain.
//
// The study's spatial locality (seed 000, §3.4, Figures 16–18): every
// request stores in an infinite cache only the blocks of its chain whose
// position j (0-based, of n blocks) lies in the window
// [Offset·n, (Offset+Stride)·n); a block hits when an earlier request
// stored it (the same prefix-tree node), wherever it lies in the current
// request, and whether or not the blocks before it hit (the study measures
// reuse of intermediate parts, which a strict prefix cache could not
// serve). HitRatio is hit blocks / referenced blocks. Offset 0, stride 1
// is the ideal block hit ratio.
type SpatialCell struct {
	// Offset and Stride are shares of the request's chain, in tenths.
	Offset float64 `json:"offset"`
	Stride float64 `json:"stride"`
	// HitRatio is nil (JSON null) when the trace references no block.
	HitRatio *float64 `json:"ideal_block_hit_ratio"`
}

// spatialGrid lists the (offset, stride) pairs in tenths: offsets 0..9,
// strides 1..10−offset; 55 pairs, each one bit of a uint64.
func spatialGrid() [][2]int {
	var g [][2]int
	for o := 0; o < 10; o++ {
		for s := 1; o+s <= 10; s++ {
			g = append(g, [2]int{o, s})
		}
	}
	return g
}

// tracker gathers the optional analyses inside Run.
type tracker struct {
	window   float64
	first    float64
	series   []Window
	spatial  bool
	grid     [][2]int
	bits     []uint64
	hits     []int64
	firstTok []float64 // input + output tokens of first turns
	laterTok []float64 // of follow-up turns
}

func newTracker(opt Options) (*tracker, error) {
	t := &tracker{window: opt.WindowS, spatial: opt.Spatial}
	if opt.WindowS < 0 || math.IsNaN(opt.WindowS) || math.IsInf(opt.WindowS, 0) {
		return nil, fmt.Errorf("window %g s: must be a finite number ≥ 0", opt.WindowS)
	}
	if t.spatial {
		t.grid = spatialGrid()
		t.hits = make([]int64, len(t.grid))
	}
	return t, nil
}

// request records a request at time tm (seconds) of turn number turn and
// input+output tokens; it returns the window to count its blocks in (nil
// when the series is off).
func (t *tracker) request(tm float64, isFirst bool, turn int, tokens int64) (*Window, error) {
	if turn == 1 {
		t.firstTok = append(t.firstTok, float64(tokens))
	} else {
		t.laterTok = append(t.laterTok, float64(tokens))
	}
	if t.window == 0 {
		return nil, nil
	}
	if isFirst {
		t.first = tm
	}
	k := math.Floor((tm - t.first) / t.window)
	if k >= 1e6 {
		return nil, fmt.Errorf("time %g s: more than a million windows of %g s", tm, t.window)
	}
	for len(t.series) <= int(k) {
		t.series = append(t.series, Window{StartS: float64(len(t.series)) * t.window})
	}
	w := &t.series[int(k)]
	w.Requests++
	return w, nil
}

// block records the use of node id at position j of an n-block chain;
// seen says whether the node was used before.
func (t *tracker) block(w *Window, id int32, j, n int, seen bool) {
	if w != nil {
		w.RefBlocks++
		if seen {
			w.HitBlocks++
		}
	}
	if !t.spatial {
		return
	}
	for int(id) >= len(t.bits) {
		t.bits = append(t.bits, 0)
	}
	b := t.bits[id]
	for k, g := range t.grid {
		if b&(1<<k) != 0 {
			t.hits[k]++
		}
		if 10*j >= g[0]*n && 10*j < (g[0]+g[1])*n {
			t.bits[id] |= 1 << k
		}
	}
}

func (t *tracker) finish(rep *Report) {
	for i := range t.series {
		w := &t.series[i]
		w.RatePerS = float64(w.Requests) / t.window
		w.HitRatio = report.Ratio(w.HitBlocks, w.RefBlocks)
	}
	rep.Series, rep.WindowS = t.series, t.window
	if t.spatial {
		for k, g := range t.grid {
			c := SpatialCell{Offset: float64(g[0]) / 10, Stride: float64(g[1]) / 10}
			c.HitRatio = report.Ratio(t.hits[k], rep.RefBlocks)
			rep.Spatial = append(rep.Spatial, c)
		}
	}
	rep.FirstTurnTokens, rep.FollowUpTokens = t.firstTok, t.laterTok
}
