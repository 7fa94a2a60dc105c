package etlru

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/instance"
)

// Item is one conversation of the one-step problem.
type Item struct {
	// LogWeight is log λ_i, the log of its expected turn rate (per second);
	// −Inf for a conversation that will not return.
	LogWeight float64
	// History is H_i, tokens.
	History int64
	// Upper is the most it may keep, tokens, a multiple of the block size:
	// its new history (rounded down to blocks) if it was just served, its
	// current amount X_i otherwise.
	Upper int64
	// Recency breaks ties between blocks of equal value: the item with the
	// smaller Recency loses its block first (use the latest turn index).
	Recency int64
	// Fixed items keep Upper (the served conversation under forced caching).
	Fixed bool
}

// Problem is one ET-LRU decision.
type Problem struct {
	// Items are the conversations.
	Items []Item
	// Params are the capacity C and block size B (tokens) and the
	// threshold ξ (tokens). Params.Forced is not read: forced caching is
	// the served item's Fixed.
	instance.Params
	// Prompt is the distribution of the next prompt length Q.
	Prompt Prompt
}

// Validate reports a malformed problem.
func (p *Problem) Validate() error {
	if err := p.Params.Validate(); err != nil {
		return fmt.Errorf("etlru: %w", err)
	}
	var fixed int64
	for i, it := range p.Items {
		if it.Upper < 0 || it.Upper%p.BlockSize != 0 {
			return fmt.Errorf("etlru: item %d: bound %d tokens is not a whole number of %d-token blocks", i, it.Upper, p.BlockSize)
		}
		if it.Fixed {
			fixed += it.Upper
		}
	}
	if fixed > p.Capacity {
		return fmt.Errorf("etlru: fixed items hold %d tokens, capacity %d", fixed, p.Capacity)
	}
	return nil
}

// Cost returns item i's term λ_i·E[(H_i + Q − y − ξ)⁺] for y tokens kept
// (0 when λ_i = 0).
func (p *Problem) Cost(i int, y int64) float64 {
	it := p.Items[i]
	if math.IsInf(it.LogWeight, -1) {
		return 0
	}
	return math.Exp(it.LogWeight) * p.Prompt.ExcessMean(float64(y)+p.Xi-float64(it.History))
}

// Objective returns Σ_i Cost(i, y[i]).
func (p *Problem) Objective(y []int64) float64 {
	var s float64
	for i := range p.Items {
		s += p.Cost(i, y[i])
	}
	return s
}

// logValue returns the log of the marginal value of item i's block ending
// at y tokens (the block (y−B, y]).
func (p *Problem) logValue(i int, y int64) float64 {
	it := p.Items[i]
	g := p.Prompt.Gain(float64(y)+p.Xi-float64(it.History), p.BlockSize)
	if g <= 0 {
		return math.Inf(-1)
	}
	return it.LogWeight + math.Log(g)
}

type candidate struct {
	item    int
	value   float64 // log marginal value of its last kept block
	recency int64
}

type candidates []candidate

func (h candidates) Len() int { return len(h) }
func (h candidates) Less(a, b int) bool {
	if h[a].value != h[b].value {
		return h[a].value < h[b].value
	}
	if h[a].recency != h[b].recency {
		return h[a].recency < h[b].recency
	}
	return h[a].item < h[b].item
}
func (h candidates) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *candidates) Push(x any)   { *h = append(*h, x.(candidate)) }
func (h *candidates) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Greedy solves the problem by Lemma 1's greedy: start from the upper
// bounds and, while the total exceeds the capacity, evict the last block of
// the item whose last block has the least marginal value (ties: least
// recent item first). It returns the amounts kept, tokens. Blocks of zero
// value are evicted only when the capacity requires, so the cache is never
// emptier than needed.
func Greedy(p *Problem) ([]int64, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	y := make([]int64, len(p.Items))
	var total int64
	h := make(candidates, 0, len(p.Items))
	for i, it := range p.Items {
		y[i] = it.Upper
		total += it.Upper
		if !it.Fixed && it.Upper > 0 {
			h = append(h, candidate{i, p.logValue(i, it.Upper), it.Recency})
		}
	}
	if total <= p.Capacity {
		return y, nil
	}
	heap.Init(&h)
	for total > p.Capacity {
		c := h[0]
		y[c.item] -= p.BlockSize
		total -= p.BlockSize
		if y[c.item] > 0 {
			h[0].value = p.logValue(c.item, y[c.item])
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return y, nil
}

// Exact solves the problem by dynamic programming over items and capacity
// blocks: F_i(b) = min over y ≤ Upper_i of F_{i−1}(b − y) + Cost_i(y), in
// O(n·(C/B)·(max Upper/B)) time. It is independent of Greedy and is used to
// check it. It returns the amounts and the objective.
func Exact(p *Problem) ([]int64, float64, error) {
	if err := p.Validate(); err != nil {
		return nil, 0, err
	}
	cb := int(p.Capacity / p.BlockSize)
	n := len(p.Items)
	inf := math.Inf(1)
	f := make([][]float64, n+1)
	choice := make([][]int, n+1)
	for i := range f {
		f[i] = make([]float64, cb+1)
		choice[i] = make([]int, cb+1)
		for b := range f[i] {
			f[i][b] = inf
		}
	}
	f[0][0] = 0
	for i, it := range p.Items {
		ub := int(it.Upper / p.BlockSize)
		lo := 0
		if it.Fixed {
			lo = ub
		}
		cost := make([]float64, ub+1)
		for k := lo; k <= ub; k++ {
			cost[k] = p.Cost(i, int64(k)*p.BlockSize)
		}
		for b := 0; b <= cb; b++ {
			if f[i][b] == inf {
				continue
			}
			for k := lo; k <= ub && b+k <= cb; k++ {
				if v := f[i][b] + cost[k]; v < f[i+1][b+k] {
					f[i+1][b+k], choice[i+1][b+k] = v, k
				}
			}
		}
	}
	best, bb := inf, -1
	for b, v := range f[n] {
		if v < best {
			best, bb = v, b
		}
	}
	if bb < 0 {
		return nil, 0, fmt.Errorf("etlru: no feasible allocation")
	}
	y := make([]int64, n)
	for i := n; i > 0; i-- {
		k := choice[i][bb]
		y[i-1] = int64(k) * p.BlockSize
		bb -= k
	}
	return y, best, nil
}
