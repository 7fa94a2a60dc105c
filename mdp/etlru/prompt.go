package etlru

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

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

// Atoms is a discrete prompt distribution: Values (tokens, increasing,
// ≥ 0) with probabilities Probs. Build it with NewAtoms.
type Atoms struct {
	Values []int64
	Probs  []float64
	sufP   []float64 // sufP[i] = Σ_{j≥i} Probs[j]
	sufPV  []float64 // sufPV[i] = Σ_{j≥i} Probs[j]·Values[j]
}

// NewAtoms returns the distribution with the given atoms; values are
// sorted and merged, probabilities must be ≥ 0 and sum to 1 within 1e-9.
func NewAtoms(values []int64, probs []float64) (*Atoms, error) {
	if len(values) == 0 || len(values) != len(probs) {
		return nil, fmt.Errorf("prompt distribution: need as many probabilities as values (≥ 1)")
	}
	idx := make([]int, len(values))
	var total float64
	for i := range idx {
		idx[i] = i
		if values[i] < 0 || !(probs[i] >= 0) || math.IsInf(probs[i], 0) {
			return nil, fmt.Errorf("prompt distribution: atom %d tokens with probability %v: need tokens ≥ 0 and probability ≥ 0", values[i], probs[i])
		}
		total += probs[i]
	}
	if math.Abs(total-1) > 1e-9 {
		return nil, fmt.Errorf("prompt distribution: probabilities sum to %v, not 1", total)
	}
	sort.SliceStable(idx, func(a, b int) bool { return values[idx[a]] < values[idx[b]] })
	a := &Atoms{}
	for _, i := range idx {
		if n := len(a.Values); n > 0 && a.Values[n-1] == values[i] {
			a.Probs[n-1] += probs[i] / total
			continue
		}
		a.Values = append(a.Values, values[i])
		a.Probs = append(a.Probs, probs[i]/total)
	}
	n := len(a.Values)
	a.sufP, a.sufPV = make([]float64, n+1), make([]float64, n+1)
	for i := n - 1; i >= 0; i-- {
		a.sufP[i] = a.sufP[i+1] + a.Probs[i]
		a.sufPV[i] = a.sufPV[i+1] + a.Probs[i]*float64(a.Values[i])
	}
	return a, nil
}

// ExcessMean returns E[(Q − c)⁺] = Σ_{v > c} p_v (v − c), tokens, in
// O(log n) for n atoms.
func (a *Atoms) ExcessMean(c float64) float64 {
	i := sort.Search(len(a.Values), func(i int) bool { return float64(a.Values[i]) > c })
	return max(a.sufPV[i]-c*a.sufP[i], 0)
}

// Gain implements Prompt: b·P(Q ≥ c) + Σ_{c−b < v < c} p_v (v − c + b).
func (a *Atoms) Gain(c float64, b int64) float64 {
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
func (a *Atoms) Mean() float64 { return a.sufPV[0] }

// Deterministic reports whether the distribution has a single atom.
func (a *Atoms) Deterministic() bool { return len(a.Values) == 1 }

// Online is the empirical distribution of the prompt lengths seen so far,
// updated one prompt at a time: Fenwick trees over the length in tokens
// give counts and sums above any threshold in O(log L) for lengths up to
// L tokens (memory grows with the largest length seen).
type Online struct {
	count, sum []float64 // Fenwick trees, 1-based over length+1
	n, total   float64
}

// Add records a prompt of q ≥ 0 tokens.
func (o *Online) Add(q int64) {
	if q < 0 {
		return
	}
	if int(q)+1 >= len(o.count) {
		o.grow(int(q) + 2)
	}
	for i := int(q) + 1; i < len(o.count); i += i & -i {
		o.count[i]++
		o.sum[i] += float64(q)
	}
	o.n++
	o.total += float64(q)
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
	f := math.Floor(c)
	if f >= float64(len(o.count)) {
		return 0, 0
	}
	v := int(f)
	return o.n - o.prefix(o.count, v), o.total - o.prefix(o.sum, v)
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
// distribution online), "pmf:V:P,V:P,…" (tokens:probability), or any
// length distribution of birthdeath.ParseDist (fixed:N, geometric:MEAN,
// lognormal:MU,SIGMA, empirical:FILE), turned into atoms.
func ParsePrompt(spec string) (*Atoms, error) {
	if spec == "online" {
		return nil, nil
	}
	if rest, ok := strings.CutPrefix(spec, "pmf:"); ok {
		var vals []int64
		var probs []float64
		for _, f := range strings.Split(rest, ",") {
			vs, ps, ok := strings.Cut(strings.TrimSpace(f), ":")
			v, err1 := strconv.ParseInt(vs, 10, 64)
			p, err2 := strconv.ParseFloat(ps, 64)
			if !ok || err1 != nil || err2 != nil {
				return nil, fmt.Errorf("prompt %q: want pmf:TOKENS:PROB,…", spec)
			}
			vals, probs = append(vals, v), append(probs, p)
		}
		return NewAtoms(vals, probs)
	}
	d, err := birthdeath.ParseDist(spec, "prompt", 1)
	if err != nil {
		return nil, err
	}
	v, p, err := birthdeath.PMF(d, pmfTail)
	if err != nil {
		return nil, err
	}
	return NewAtoms(v, p)
}
