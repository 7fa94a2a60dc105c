package policy

import (
	"errors"
	"math"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/trace"
)

// NewTLRU returns T-LRU(ξ, Q̂): keep the whole history of the conversation
// just served; when over capacity, first evict blocks beyond each
// conversation's TEL-safe budget ⌈(H + Q̂ − ξ)⁺/B⌉·B, least recently used
// conversation first, then evict by LRU. Q̂ is cfg.QHat tokens, or when 0 the
// running mean of the prompt lengths seen so far, the current turn's
// included (strictly online).
func NewTLRU(cfg Config) (Policy, error) {
	return NewRanked(&tlru{xi: cfg.Xi, qhat: cfg.QHat, block: cfg.BlockSize}), nil
}

type tlru struct {
	keepAll
	recency
	xi, qhat float64
	block    int64
	sum      float64 // prompt tokens seen, for the running mean
	n        float64
}

// q returns the current estimate Q̂ of a next prompt, tokens.
func (r *tlru) q() float64 {
	if r.qhat > 0 || r.n == 0 {
		return r.qhat
	}
	return r.sum / r.n
}

func (r *tlru) Keep(s *cache.State, t trace.Turn) int64 {
	r.sum += float64(t.Prompt)
	r.n++
	return s.MaxServed()
}

// Value and Threshold: x − B ≥ H + Q̂ − ξ ⇔ x − H ≥ B − ξ + Q̂, and x − H
// changes only with the conversation's own state, so Q̂ may move freely.
func (r *tlru) Value(s *cache.State, c int) float64 {
	return float64(s.Cached(c) - s.History(c))
}
func (r *tlru) Threshold() float64 { return float64(r.block) - r.xi + r.q() }
func (r *tlru) Budget(s *cache.State, c int) int64 {
	return Budget(s.History(c), r.q(), r.xi, r.block)
}

var errNeedsFuture = errors.New("needs the whole trace in advance (hindsight); it cannot run on a stream")

// NewEndAwareTLRU returns End-Aware T-LRU: T-LRU that also knows whether each
// conversation has another turn (budget 0 if not). It needs cfg.Future.
func NewEndAwareTLRU(cfg Config) (Policy, error) {
	if cfg.Future == nil {
		return nil, errNeedsFuture
	}
	return NewRanked(&endAware{tlru: tlru{xi: cfg.Xi, qhat: cfg.QHat, block: cfg.BlockSize}, f: cfg.Future}), nil
}

type endAware struct {
	tlru
	f    *trace.Hindsight
	last []int // latest turn index per conversation
}

func (r *endAware) Keep(s *cache.State, t trace.Turn) int64 {
	r.last = setLast(r.last, t)
	return r.tlru.Keep(s, t)
}

func (r *endAware) Value(s *cache.State, c int) float64 {
	if r.f.Next[r.last[c]] < 0 {
		return math.Inf(1)
	}
	return r.tlru.Value(s, c)
}

func (r *endAware) Budget(s *cache.State, c int) int64 {
	if r.f.Next[r.last[c]] < 0 {
		return 0
	}
	return r.tlru.Budget(s, c)
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
func NewLengthAwareTLRU(cfg Config) (Policy, error) {
	if cfg.Future == nil {
		return nil, errNeedsFuture
	}
	return NewRanked(&LengthAware{Xi: cfg.Xi, Block: cfg.BlockSize, Future: cfg.Future}), nil
}

// LengthAware are the rules of Length-Aware T-LRU, with recency keys and the
// budget from the true next prompt. The hindsight policies reuse them with
// other keys.
type LengthAware struct {
	keepAll
	recency
	Xi     float64 // threshold ξ, tokens
	Block  int64   // block size B, tokens
	Future *trace.Hindsight
	last   []int
}

// Keep records the turn and keeps the whole history.
func (r *LengthAware) Keep(s *cache.State, t trace.Turn) int64 {
	r.last = setLast(r.last, t)
	return s.MaxServed()
}

// Last returns conversation c's latest turn index.
func (r *LengthAware) Last(c int) int { return r.last[c] }

// Value is x − H − Q where Q is the true next prompt (+Inf if none).
func (r *LengthAware) Value(s *cache.State, c int) float64 {
	q, ok := r.Future.NextPrompt(r.last[c])
	if !ok {
		return math.Inf(1)
	}
	return float64(s.Cached(c)-s.History(c)) - float64(q)
}

// Threshold is B − ξ: see tlru.Value.
func (r *LengthAware) Threshold() float64 { return float64(r.Block) - r.Xi }

// Budget is the TEL-safe budget from the true next prompt (0 if none).
func (r *LengthAware) Budget(s *cache.State, c int) int64 {
	q, ok := r.Future.NextPrompt(r.last[c])
	if !ok {
		return 0
	}
	return Budget(s.History(c), float64(q), r.Xi, r.Block)
}
