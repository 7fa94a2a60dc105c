package stackcurve

import (
	"math"
	"math/bits"

	"github.com/tailbound/tailbound/models/metrics"
)

// sums adds a turn of history h and load d tokens, whose conversation
// held nOld whole blocks and was cached e.xb[i] blocks at point i, to
// every figure of every point but the histogram; lo, hi are the runs of
// points caching nothing (0 … lo−1) and all nOld blocks (hi … K−1), a and
// ok middle's. While the turns' costs fit the budget (metrics.Terms.Cost)
// the figures are kept in integers, exactly, which lets a turn count once
// for the points it gives the same figures — its load and history once for
// all, its cached and uncached tokens once for each run (as the
// histogram's shared runs) — where the floating-point sums of an
// accumulator must be added at every point in trace order. The points
// between, which cache capB − A blocks each (ok), count in lin in O(log K).
// The turn that would exceed the budget, and every one after it, is added
// by each point's accumulator.
func (e *engine) sums(h, d, nOld int64, lo, hi int, a int64, ok bool) {
	if !e.exact {
		for i := range e.points {
			e.points[i].acc.AddLater(h, e.xb[i]*e.block, d)
		}
		return
	}
	e.common.AddLoad(h, d)
	if lo > 0 {
		e.terms.Add(&e.pre[lo-1], 0, d)
	}
	if hi < len(e.points) {
		x := nOld * e.block
		e.terms.Add(&e.suf[hi], x, d-x)
	}
	if lo == hi {
		return
	}
	if ok && e.lin != nil {
		e.lin.add(e, lo, hi, a, d)
		return
	}
	for i := lo; i < hi; i++ {
		x := e.xb[i] * e.block
		e.terms.Add(&e.own[i], x, d-x)
	}
}

// charge takes a turn of load d tokens from the budget of the exact sums
// before the turn is added (run calls it first, so that move knows whether
// sums will read c's cached blocks at every point), ending them if it
// does not fit.
func (e *engine) charge(d int64) {
	if e.exact {
		if cost := e.terms.Cost(d); cost <= e.budget {
			e.budget -= cost
		} else {
			e.giveSums()
		}
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
	run := make([]metrics.Exact, K) // run[k]: the pre runs covering k
	var acc metrics.Exact
	for k := K - 1; k >= 0; k-- {
		acc.Merge(e.pre[k])
		run[k] = acc
	}
	var lin []metrics.Exact
	if e.lin != nil {
		lin = e.lin.figures(e)
	}
	acc = metrics.Exact{}
	for k := range K {
		acc.Merge(e.suf[k])
		s := e.common
		s.Merge(run[k])
		s.Merge(acc)
		s.Merge(e.own[k])
		if lin != nil {
			s.Merge(lin[k])
		}
		e.points[k].acc.SetExact(e.terms, s)
	}
}

// linearLimit bounds the capacities (tokens) for which an engine keeps
// lin: a turn's key d + B·A (below) stays below 2^63 for loads within
// metrics.ExactLimit.
const linearLimit = 1 << 62

// linear holds the sums of the turns whose cached blocks at the points
// lo … hi−1 between the runs are capB_k − A (the package doc's claim, as
// middle checks): at point k such a turn caches x_k = B·capB_k − B·A
// tokens and leaves b_k = key − B·capB_k, key = d + B·A, which decreases
// with k; so its TEL term is positive, and its TTFT above the SLO, at
// points lo … j−1 for some j (found by binary search). Each figure is a
// sum over the turns covering k of a term linear in capB_k, kept in
// difference arrays over the points (O(1) a turn, added up after the
// pass): Σ x_k = B·capB_k·n_k − B·ΣA_k; the TEL Σ (Over(key) − B·capB_k)
// over the n'_k turns positive at k; the violations a count; the largest
// b_k, the largest key covering k minus B·capB_k, by range maxima over
// power-of-two spans. The products may wrap around int64: the sums they
// stand for are at most 2^53 (metrics.Terms.Cost), so the wrapped
// arithmetic, exact modulo 2^64, gives them exactly.
type linear struct {
	n, a   []int64   // difference arrays, K+1: turns covering k; their Σ A
	en, ex []int64   // turns whose TEL term is positive at k; their Σ Over(key)
	v      []int64   // turns that miss the SLO at k
	maxKey [][]int64 // maxKey[s][i]: the largest key of the turns covering i … i+2^s−1 (as one of two spans)
}

func newLinear(K int) *linear {
	l := &linear{n: make([]int64, K+1), a: make([]int64, K+1), en: make([]int64, K+1), ex: make([]int64, K+1), v: make([]int64, K+1),
		maxKey: make([][]int64, bits.Len(uint(K)))}
	for i := range l.maxKey {
		l.maxKey[i] = make([]int64, K)
		for k := range l.maxKey[i] {
			l.maxKey[i][k] = math.MinInt64
		}
	}
	return l
}

// add counts a turn of load d tokens caching capB_k − a blocks at the
// points lo … hi−1 (lo < hi).
func (l *linear) add(e *engine, lo, hi int, a, d int64) {
	B := e.block
	l.n[lo]++
	l.n[hi]--
	l.a[lo] += a
	l.a[hi] -= a
	key := d + B*a // b_k = key − B·capB_k
	// The first point from which the TEL term is 0 (b_k ≤ ξ), and the
	// first from which the TTFT is within the SLO: b_k decreases with k.
	if bLo := d - B*(e.points[lo].capB-a); e.terms.Over(bLo) > 0 {
		j := lo + 1
		for top := hi; j < top; {
			m := int(uint(j+top) >> 1)
			if e.terms.Over(d-B*(e.points[m].capB-a)) > 0 {
				j = m + 1
			} else {
				top = m
			}
		}
		l.en[lo]++
		l.en[j]--
		l.ex[lo] += e.terms.Over(key)
		l.ex[j] -= e.terms.Over(key)
	}
	if bLo := d - B*(e.points[lo].capB-a); e.terms.Violates(bLo) {
		j := lo + 1
		for top := hi; j < top; {
			m := int(uint(j+top) >> 1)
			if e.terms.Violates(d - B*(e.points[m].capB-a)) {
				j = m + 1
			} else {
				top = m
			}
		}
		l.v[lo]++
		l.v[j]--
	}
	// The largest key over lo … hi−1: two spans of 2^s points that
	// cover it.
	s := bits.Len(uint(hi-lo)) - 1
	l.maxKey[s][lo] = max(l.maxKey[s][lo], key)
	l.maxKey[s][hi-1<<s] = max(l.maxKey[s][hi-1<<s], key)
}

// figures returns each point's sums of the turns counted in l so far.
func (l *linear) figures(e *engine) []metrics.Exact {
	K := len(e.points)
	// Spans of 2^s points handed down to their two halves, level by level.
	mk := make([][]int64, len(l.maxKey))
	for s := range mk {
		mk[s] = append([]int64(nil), l.maxKey[s]...)
	}
	for s := len(mk) - 1; s >= 1; s-- {
		half := 1 << (s - 1)
		for i := 0; i+1<<s <= K; i++ {
			mk[s-1][i] = max(mk[s-1][i], mk[s][i])
			mk[s-1][i+half] = max(mk[s-1][i+half], mk[s][i])
		}
	}
	out := make([]metrics.Exact, K)
	var n, a, en, ex, v int64
	for k := range K {
		n += l.n[k]
		a += l.a[k]
		en += l.en[k]
		ex += l.ex[k]
		v += l.v[k]
		c := e.block * e.points[k].capB // tokens
		out[k] = metrics.Exact{X: c*n - e.block*a, Excess: ex - en*e.terms.Units(c), Violations: v}
		if mk[0][k] != math.MinInt64 {
			out[k].MaxB = mk[0][k] - c
		}
	}
	return out
}
