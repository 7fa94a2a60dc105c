// Package metrics accumulates the per-turn outcomes of a replay into the
// metrics of SPEC §2: TEL in tokens and ms, TTFT order statistics, SLO
// violations, token hit ratios, the largest uncached load and evictions.
package metrics

import (
	"math"
	"slices"

	"github.com/tailbound/tailbound/models/latency"
)

// Accumulator records turns one at a time in O(1) each. Percentiles are
// exact: it keeps a histogram of uncached-token counts (TTFT is an
// increasing function of them), so memory grows with the number of distinct
// counts, not of turns.
type Accumulator struct {
	xi    float64
	model latency.Model
	slo   float64

	turns      int64
	telTokens  float64
	sumB       float64
	sumX       float64
	sumH       float64
	sumD       float64
	maxB       int64
	violations int64
	small      []int64 // small[b] = turns with b uncached tokens, b < len
	large      map[int64]int64
	later      Later     // the uncached counts of the turns added by AddLater
	shifted    []Shifted // further such counts, sorted sets
}

// Later yields the uncached counts, tokens, of the turns an accumulator
// received through AddLater, one per turn, in any order and in batches
// (a batch is valid only during its yield); it may be iterated more than
// once and must give the same counts each time. It lets several
// accumulators (one per capacity of a curve) share one store of those
// turns instead of each keeping a histogram entry per turn; the
// accumulator's percentiles read it twice without keeping it
// (orderStats), its distribution (CDF, Exceeding, UncachedAtRank)
// collects and sorts it.
type Later func(yield func(batch []int64) bool)

// smallLimit bounds the dense part of the histogram (tokens).
const smallLimit = 1 << 20

// New returns an accumulator for threshold xi tokens, latency model m and
// SLO sloMs milliseconds.
func New(xi float64, m latency.Model, sloMs float64) *Accumulator {
	return &Accumulator{xi: xi, model: m, slo: sloMs, large: map[int64]int64{}}
}

// Add records one turn with history h tokens, cached x tokens and prefill
// load d = h + prompt tokens.
func (a *Accumulator) Add(h, x, d int64) { a.count(a.sums(h, x, d), 1) }

// count adds n turns of b uncached tokens to the histogram.
func (a *Accumulator) count(b, n int64) {
	if b < smallLimit {
		for int64(len(a.small)) <= b {
			a.small = append(a.small, make([]int64, max(64, len(a.small)))...)
		}
		a.small[b] += n
	} else {
		a.large[b] += n
	}
}

// AddLaterCount records the uncached count b (tokens) of n turns that
// were added by AddLater and that the Later store does not report: after
// it, every figure is as if those turns had been added by Add. A curve
// counts the turns a run of its capacities share (the same uncached count
// at each) once, and hands each capacity its counts at the end.
func (a *Accumulator) AddLaterCount(b, n int64) {
	if n != 0 {
		a.count(b, n)
	}
}

// SetLater gives the accumulator the store of the uncached counts of the
// turns it will receive through AddLater.
func (a *Accumulator) SetLater(l Later) { a.later = l }

// Shifted is a set of uncached counts, tokens, given by sorted keys and
// one offset: the counts Keys[i] − Offset, Keys in increasing order, each
// count ≥ 0. A curve's store gives in this form the turns whose count at
// every one of its capacities C is a constant, or a key minus B·C: their
// keys are sorted once for every capacity, and a percentile reads them by
// binary search instead of one by one.
type Shifted struct {
	Keys   []int64
	Offset int64 // tokens
}

// SetShifted gives the accumulator further uncached counts of the turns
// it received through AddLater, besides its Later store's: those of
// every set of sets (replacing any given before). The accumulator keeps
// the sets, not copies: they must not change.
func (a *Accumulator) SetShifted(sets ...Shifted) { a.shifted = sets }

// AddLater is Add for a turn whose uncached count, d − x, the accumulator's
// Later store (SetLater) will report: every figure is as if the turn had
// been added by Add, in the same order.
func (a *Accumulator) AddLater(h, x, d int64) { a.sums(h, x, d) }

// sums adds the turn to every figure but the histogram and returns its
// uncached count b = d − x.
func (a *Accumulator) sums(h, x, d int64) int64 {
	b := d - x
	a.turns++
	a.telTokens += latency.Excess(b, a.xi)
	a.sumB += float64(b)
	a.sumX += float64(x)
	a.sumH += float64(h)
	a.sumD += float64(d)
	a.maxB = max(a.maxB, b)
	if a.model.TTFTMs(float64(b)) > a.slo {
		a.violations++
	}
	return b
}

// Summary is the result of a replay, for one policy.
type Summary struct {
	Turns        int64   // turns replayed
	TELTokens    float64 // Σ max(b − ξ, 0), tokens
	TELMs        float64 // α · TELTokens, ms
	MeanTTFTMs   float64 // ms
	P50, P90     float64 // TTFT percentiles, ms (nearest rank)
	P95, P99     float64
	Violations   int64   // turns with TTFT > SLO
	ViolationPct float64 // Violations / Turns
	HitRatio     float64 // Σ x / Σ D: cached share of the prefill load
	HistoryHit   float64 // Σ x / Σ H: cached share of the history (NaN if Σ H = 0)
	MaxUncached  int64   // max b, tokens
	UncachedSum  float64 // Σ b, tokens
}

// Summary computes the summary of the turns added so far. Percentile p is the
// nearest-rank order statistic: the ⌈p·n⌉-th smallest TTFT of n turns.
func (a *Accumulator) Summary() Summary {
	s := Summary{Turns: a.turns, TELTokens: a.telTokens, TELMs: a.model.AlphaMs * a.telTokens,
		Violations: a.violations, MaxUncached: a.maxB, UncachedSum: a.sumB}
	if a.turns == 0 {
		return s
	}
	n := float64(a.turns)
	s.MeanTTFTMs = a.model.TTFTMs(a.sumB / n)
	s.ViolationPct = float64(a.violations) / n
	s.HitRatio = a.sumX / a.sumD
	s.HistoryHit = math.NaN()
	if a.sumH > 0 {
		s.HistoryHit = a.sumX / a.sumH
	}
	qs := a.quantiles(0.50, 0.90, 0.95, 0.99)
	s.P50, s.P90, s.P95, s.P99 = a.model.TTFTMs(qs[0]), a.model.TTFTMs(qs[1]), a.model.TTFTMs(qs[2]), a.model.TTFTMs(qs[3])
	return s
}

// quantiles returns nearest-rank order statistics of the uncached counts for
// increasing ps.
func (a *Accumulator) quantiles(ps ...float64) []float64 {
	out := make([]float64, len(ps))
	ranks := make([]int64, len(ps))
	for i, p := range ps {
		ranks[i] = max(1, int64(math.Ceil(p*float64(a.turns))))
	}
	if a.later != nil || a.shifted != nil {
		if bs, ok := a.orderStats(ranks); ok {
			for i, b := range bs {
				out[i] = float64(b)
			}
			return out
		}
	}
	i := 0
	var seen int64
	visit := func(b, count int64) {
		seen += count
		for i < len(ranks) && seen >= ranks[i] {
			out[i] = float64(b)
			i++
		}
	}
	a.each(visit)
	return out
}

// each calls f for every distinct uncached count b, in increasing order, with
// the number of turns that had it: the histogram's dense part, its sparse
// part and the Later store's counts, merged.
func (a *Accumulator) each(f func(b, count int64)) {
	keys := make([]int64, 0, len(a.large))
	for b := range a.large {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	var late []int64
	if a.later != nil {
		for batch := range a.later {
			late = append(late, batch...)
		}
	}
	for _, set := range a.shifted {
		for _, k := range set.Keys {
			late = append(late, k-set.Offset)
		}
	}
	late = sortInts(late)
	// Merge the three increasing sources: dense (index order), keys and
	// late (with repeats), visiting each distinct count once. Dense
	// counts are below smallLimit and keys at or above it.
	l := 0
	lateUpTo := func(b int64) int64 { // late counts equal to b, taken
		var c int64
		for l < len(late) && late[l] == b {
			c++
			l++
		}
		return c
	}
	for i, c := range a.small {
		b := int64(i)
		for l < len(late) && late[l] < b {
			v := late[l]
			f(v, lateUpTo(v))
		}
		if c > 0 {
			f(b, c+lateUpTo(b))
		}
	}
	for _, b := range keys {
		for l < len(late) && late[l] < b {
			v := late[l]
			f(v, lateUpTo(v))
		}
		f(b, a.large[b]+lateUpTo(b))
	}
	for l < len(late) {
		v := late[l]
		f(v, lateUpTo(v))
	}
}

// CDF returns the empirical distribution of TTFT as (ms, fraction of turns
// with TTFT ≤ ms) pairs at every distinct value, for plotting.
func (a *Accumulator) CDF() (ms, frac []float64) {
	var seen int64
	add := func(b, c int64) {
		seen += c
		ms = append(ms, a.model.TTFTMs(float64(b)))
		frac = append(frac, float64(seen)/float64(a.turns))
	}
	a.each(add)
	return ms, frac
}

// ImprovementKeys are the metrics Improvements compares, in table order:
// TEL, mean TTFT, the TTFT percentiles and the SLO violations.
var ImprovementKeys = []string{"tel", "mean", "p50", "p90", "p95", "p99", "slo_violations"}

// Improvement is the relative improvement of v over base, (base − v)/base
// (positive when v is smaller); false when base is 0.
func Improvement(base, v float64) (float64, bool) {
	if base == 0 {
		return 0, false
	}
	return (base - v) / base, true
}

// Improvements returns the Improvement of p over base for each of
// ImprovementKeys, omitting those where the baseline is 0.
func Improvements(base, p Summary) map[string]float64 {
	pairs := [][2]float64{{base.TELTokens, p.TELTokens}, {base.MeanTTFTMs, p.MeanTTFTMs}, {base.P50, p.P50}, {base.P90, p.P90},
		{base.P95, p.P95}, {base.P99, p.P99}, {float64(base.Violations), float64(p.Violations)}}
	out := map[string]float64{}
	for i, k := range ImprovementKeys {
		if v, ok := Improvement(pairs[i][0], pairs[i][1]); ok {
			out[k] = v
		}
	}
	return out
}

// Exceeding returns the number of turns added so far whose uncached tokens
// exceed s tokens (b > s): the SLO violations of an SLO of s tokens.
func (a *Accumulator) Exceeding(s int64) int64 {
	var n int64
	a.each(func(b, count int64) {
		if b > s {
			n += count
		}
	})
	return n
}

// UncachedAtRank returns the rank-th smallest uncached count of the turns
// added so far, tokens (rank in [1, turns]; 0 when there are no turns):
// with rank objective.Rank(turns, Q), the Q-th nearest-rank percentile.
func (a *Accumulator) UncachedAtRank(rank int64) int64 {
	var seen, out int64
	done := false
	a.each(func(b, count int64) {
		seen += count
		if !done && seen >= rank {
			out, done = b, true
		}
	})
	return out
}
