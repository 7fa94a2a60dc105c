package policy

import (
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
	return NewRanked(&TLRURules{Xi: cfg.Xi, QHat: cfg.QHat, BlockSize: cfg.BlockSize}), nil
}

// TLRURules are the rules of T-LRU(ξ, Q̂), recency keys and the TEL-safe
// budget from the estimate Q̂. The hindsight variants (End-Aware T-LRU in
// package belady) embed them.
type TLRURules struct {
	Recency
	// Xi is the TEL threshold ξ, tokens.
	Xi float64
	// QHat is the estimate Q̂ of a next prompt, tokens; 0 means the running
	// mean of the prompt lengths seen so far.
	QHat float64
	// BlockSize is B, tokens.
	BlockSize int64

	sum float64 // prompt tokens seen, for the running mean
	n   float64
}

// q returns the current estimate Q̂ of a next prompt, tokens.
func (r *TLRURules) q() float64 {
	if r.QHat > 0 || r.n == 0 {
		return r.QHat
	}
	return r.sum / r.n
}

// Keep records t's prompt length for the running mean and keeps the whole
// history.
func (r *TLRURules) Keep(s *cache.State, t trace.Turn) int64 {
	r.sum += float64(t.Prompt)
	r.n++
	return s.MaxServed()
}

// Value is x − H, tokens. With Threshold: x − B ≥ H + Q̂ − ξ ⇔ x − H ≥
// B − ξ + Q̂, and x − H changes only with the conversation's own state, so
// Q̂ may move freely.
func (r *TLRURules) Value(s *cache.State, c int) float64 {
	return float64(s.Cached(c) - s.History(c))
}

// Threshold is B − ξ + Q̂, tokens: see Value.
func (r *TLRURules) Threshold() float64 { return float64(r.BlockSize) - r.Xi + r.q() }

// Budget is the TEL-safe budget from the current Q̂, tokens.
func (r *TLRURules) Budget(s *cache.State, c int) int64 {
	return Budget(s.History(c), r.q(), r.Xi, r.BlockSize)
}
