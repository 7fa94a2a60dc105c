package etlru

import (
	"fmt"
	"math"
	"sort"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// Prompt is a distribution of the next prompt length Q, tokens, as ET-LRU
// needs it: through E[(Q − c)⁺].
type Prompt interface {
	// ExcessMean returns E[(Q − c)⁺] in tokens for a threshold c in tokens.
	ExcessMean(c float64) float64
	// Gain returns E[(Q − c + b)⁺] − E[(Q − c)⁺] = E[min((Q − c + b)⁺, b)]
	// in tokens: what keeping one more block of b tokens saves when c
	// tokens of threshold are already met. It is computed so that equal
	// gains come out bit-equal (the b·P(Q ≥ c) part exactly), which lets
	// ties between conversations fall to recency.
	Gain(c float64, b int64) float64
}

// Known is a given prompt distribution (birthdeath.Atoms, normalized:
// increasing distinct values, probabilities summing to 1) indexed by suffix
// sums so that ExcessMean and Gain take O(log n) for n atoms. Build it with
// NewKnown.
type Known struct {
	birthdeath.Atoms
	sufP  []float64 // sufP[i] = Σ_{j≥i} Probs[j]
	sufPV []float64 // sufPV[i] = Σ_{j≥i} Probs[j]·Values[j]
}

// NewKnown returns the prompt distribution with atoms d; values are sorted
// and merged and probabilities normalized (birthdeath.Atoms.Normalized).
func NewKnown(d birthdeath.Atoms) (*Known, error) {
	n, err := d.Normalized()
	if err != nil {
		return nil, fmt.Errorf("prompt distribution: %w", err)
	}
	a := &Known{Atoms: n}
	a.sufP, a.sufPV = make([]float64, len(n.Values)+1), make([]float64, len(n.Values)+1)
	for i := len(n.Values) - 1; i >= 0; i-- {
		a.sufP[i] = a.sufP[i+1] + a.Probs[i]
		a.sufPV[i] = a.sufPV[i+1] + a.Probs[i]*float64(a.Values[i])
	}
	return a, nil
}

// ExcessMean returns E[(Q − c)⁺] = Σ_{v > c} p_v (v − c), tokens, in
// O(log n) for n atoms.
func (a *Known) ExcessMean(c float64) float64 {
	i := sort.Search(len(a.Values), func(i int) bool { return float64(a.Values[i]) > c })
	return max(a.sufPV[i]-c*a.sufP[i], 0)
}

// Gain implements Prompt: b·P(Q ≥ c) + Σ_{c−b < v < c} p_v (v − c + b).
func (a *Known) Gain(c float64, b int64) float64 {
	lo := c - float64(b)
	i0 := sort.Search(len(a.Values), func(i int) bool { return float64(a.Values[i]) > lo })
	i1 := sort.Search(len(a.Values), func(i int) bool { return float64(a.Values[i]) >= c })
	g := float64(b) * a.sufP[i1]
	if i0 < i1 {
		g += (a.sufPV[i0] - a.sufPV[i1]) - lo*(a.sufP[i0]-a.sufP[i1])
	}
	return max(g, 0)
}

// Mean returns E[Q], tokens.
func (a *Known) Mean() float64 { return a.sufPV[0] }

// Deterministic reports whether the distribution has a single atom.
func (a *Known) Deterministic() bool { return len(a.Values) == 1 }

// Online is the empirical distribution of the prompt lengths seen so far,
// updated one prompt at a time: Fenwick trees over the length in tokens
// give counts and sums above any threshold in O(log L) for lengths up to
// L tokens, L below OnlineTreeTokens (memory grows with the largest length
// seen, up to 16 bytes per token of it); longer prompts are kept in a
// sorted list, so a 10^10-token prompt costs one entry, not 160 GB.
type Online struct {
	count, sum []float64 // Fenwick trees, 1-based over length+1
	n, total   float64
	// long holds the lengths ≥ OnlineTreeTokens, ascending.
	long []int64
	// min and max are the least and largest length recorded (when n > 0).
	min, max int64
}

// OnlineTreeTokens bounds the lengths the Fenwick trees of Online cover:
// 2^20 tokens, 32 MB of trees at most.
const OnlineTreeTokens = 1 << 20

// Add records a prompt of q ≥ 0 tokens.
func (o *Online) Add(q int64) {
	if q < 0 {
		return
	}
	if o.n == 0 || q < o.min {
		o.min = q
	}
	o.max = max(o.max, q)
	o.n++
	o.total += float64(q)
	if q >= OnlineTreeTokens {
		i := sort.Search(len(o.long), func(i int) bool { return o.long[i] >= q })
		o.long = append(o.long, 0)
		copy(o.long[i+1:], o.long[i:])
		o.long[i] = q
		return
	}
	if int(q)+1 >= len(o.count) {
		o.grow(int(q) + 2)
	}
	for i := int(q) + 1; i < len(o.count); i += i & -i {
		o.count[i]++
		o.sum[i] += float64(q)
	}
}

// grow rebuilds the trees with room for lengths below size−1 tokens.
func (o *Online) grow(size int) {
	size = max(size, 2*len(o.count), 1024)
	cnt, sum := make([]float64, size), make([]float64, size)
	for v := 0; v+1 < len(o.count); v++ { // recover point values from prefix sums
		c := o.prefix(o.count, v) - o.prefix(o.count, v-1)
		s := o.prefix(o.sum, v) - o.prefix(o.sum, v-1)
		for i := v + 1; i < size && c != 0; i += i & -i {
			cnt[i] += c
			sum[i] += s
		}
	}
	o.count, o.sum = cnt, sum
}

// prefix returns the Fenwick sum over lengths 0..v.
func (o *Online) prefix(tree []float64, v int) float64 {
	var s float64
	for i := min(v+1, len(tree)-1); i > 0; i -= i & -i {
		s += tree[i]
	}
	return s
}

// N returns the number of prompts recorded.
func (o *Online) N() int { return int(o.n) }

// ExcessMean returns E[(Q − c)⁺] tokens under the empirical distribution
// (0 before any prompt).
func (o *Online) ExcessMean(c float64) float64 {
	if o.n == 0 {
		return 0
	}
	cnt, sum := o.above(c)
	return max((sum-c*cnt)/o.n, 0)
}

// above returns the count and the length sum of the prompts longer than c
// tokens.
func (o *Online) above(c float64) (cnt, sum float64) {
	if c < 0 {
		return o.n, o.total
	}
	i := sort.Search(len(o.long), func(i int) bool { return float64(o.long[i]) > c })
	for _, v := range o.long[i:] {
		cnt++
		sum += float64(v)
	}
	f := math.Floor(c)
	if f >= float64(len(o.count)) {
		return cnt, sum
	}
	v := int(f)
	// The trees hold every prompt but the long ones.
	treeN, treeTotal := o.n-float64(len(o.long)), o.total
	for _, l := range o.long {
		treeTotal -= float64(l)
	}
	return cnt + treeN - o.prefix(o.count, v), sum + treeTotal - o.prefix(o.sum, v)
}

// Gain implements Prompt with exact integer counts for b·P(Q ≥ c).
func (o *Online) Gain(c float64, b int64) float64 {
	if o.n == 0 {
		return 0
	}
	lo := c - float64(b)
	// Lengths ≥ c: above(ceil(c) − 1); lengths in (lo, c): the rest above lo.
	geCnt, geSum := o.above(math.Ceil(c) - 1)
	loCnt, loSum := o.above(lo)
	g := float64(b) * geCnt
	if w := loCnt - geCnt; w > 0 {
		g += (loSum - geSum) - lo*w
	}
	return max(g/o.n, 0)
}

// pmfTail is the tail mass at which unbounded distributions are cut when
// they are turned into atoms (tokens beyond it carry less than 1e-12 of
// the probability).
const pmfTail = 1e-12

// ParsePrompt reads ET-LRU's prompt option: "online" (nil: fit the
// distribution online), or any length distribution of
// birthdeath.ParseAtoms: pmf:TOKENS:PROB,…, fixed:N, geometric:MEAN,
// lognormal:MU,SIGMA, empirical:FILE (the unbounded ones cut at a tail mass
// of 1e-12).
func ParsePrompt(spec string) (*Known, error) {
	if spec == "online" {
		return nil, nil
	}
	d, err := birthdeath.ParseAtoms(spec, "prompt", 1, pmfTail)
	if err != nil {
		return nil, err
	}
	return NewKnown(d)
}
