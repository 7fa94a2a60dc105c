package belady

import (
	"math"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// NewEndAwareTLRU returns End-Aware T-LRU: T-LRU (policy.NewTLRU) that also
// knows whether each conversation has another turn (budget 0 if not). It
// needs cfg.Future.
func NewEndAwareTLRU(cfg policy.Config) (policy.Policy, error) {
	if cfg.Future == nil {
		return nil, errNeedsFuture
	}
	return policy.NewRanked(&endAware{TLRURules: policy.TLRURules{Xi: cfg.Xi, QHat: cfg.QHat, BlockSize: cfg.BlockSize}, future: cfg.Future}), nil
}

type endAware struct {
	policy.TLRURules
	future *trace.Hindsight
	last   []int // latest turn index per conversation
}

func (r *endAware) Keep(s *cache.State, t trace.Turn) int64 {
	r.last = setLast(r.last, t)
	return r.TLRURules.Keep(s, t)
}

func (r *endAware) Value(s *cache.State, c int) float64 {
	if r.future.Next[r.last[c]] < 0 {
		return math.Inf(1)
	}
	return r.TLRURules.Value(s, c)
}

func (r *endAware) Budget(s *cache.State, c int) int64 {
	if r.future.Next[r.last[c]] < 0 {
		return 0
	}
	return r.TLRURules.Budget(s, c)
}

// setLast records t as its conversation's latest turn.
func setLast(last []int, t trace.Turn) []int {
	for len(last) <= t.Conv {
		last = append(last, -1)
	}
	last[t.Conv] = t.Index
	return last
}

// NewLengthAwareTLRU returns Length-Aware T-LRU: End-Aware T-LRU that also
// knows each conversation's exact next prompt length. It needs cfg.Future.
func NewLengthAwareTLRU(cfg policy.Config) (policy.Policy, error) {
	if cfg.Future == nil {
		return nil, errNeedsFuture
	}
	return policy.NewRanked(&lengthAware{xi: cfg.Xi, blockSize: cfg.BlockSize, future: cfg.Future}), nil
}

// lengthAware are the rules of Length-Aware T-LRU, with recency keys and
// the budget from the true next prompt. Tail-Optimized Belady reuses them
// with other keys.
type lengthAware struct {
	policy.Recency
	xi        float64 // threshold ξ, tokens
	blockSize int64   // block size B, tokens
	future    *trace.Hindsight
	last      []int // latest turn index per conversation
}

// Keep records the turn and keeps the whole history.
func (r *lengthAware) Keep(s *cache.State, t trace.Turn) int64 {
	r.last = setLast(r.last, t)
	return s.MaxServed()
}

// Value is x − H − Q where Q is the true next prompt (+Inf if none).
func (r *lengthAware) Value(s *cache.State, c int) float64 {
	q, ok := r.future.NextPrompt(r.last[c])
	if !ok {
		return math.Inf(1)
	}
	return float64(s.Cached(c)-s.History(c)) - float64(q)
}

// Threshold is B − ξ: see policy.TLRURules.Value.
func (r *lengthAware) Threshold() float64 { return float64(r.blockSize) - r.xi }

// Budget is the TEL-safe budget from the true next prompt (0 if none).
func (r *lengthAware) Budget(s *cache.State, c int) int64 {
	q, ok := r.future.NextPrompt(r.last[c])
	if !ok {
		return 0
	}
	return policy.Budget(s.History(c), float64(q), r.xi, r.blockSize)
}
