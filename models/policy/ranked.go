package policy

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/trace"
)

// Key orders conversations for eviction: the smallest key is evicted first.
type Key struct{ A, B int64 }

// Rules are what tells one ranked policy from another. Every policy of the
// tail-latency paper is ranked: it keeps some amount of the conversation
// just served, then evicts in two phases while the cache is over capacity —
// first blocks beyond a conversation's TEL-safe budget, then whole
// conversations' ends — each phase in key order.
type Rules interface {
	// Keep returns the tokens the served conversation keeps, a whole number
	// of blocks ≤ s.MaxServed(). It is called first, once per turn, so rules
	// that learn from the trace (a running mean, a count) observe t here.
	Keep(s *cache.State, t trace.Turn) int64
	// Key returns the served conversation's new key; old is its previous key
	// when it was cached before this turn (had is then true).
	Key(s *cache.State, t trace.Turn, old Key, had bool) Key
	// Value and Threshold mark the conversations with blocks beyond their
	// budget: c has such blocks iff Value(s, c) ≥ Threshold(). Value may
	// change only when c's own amount, history or turn changes, so that the
	// order can index it; return -Inf to have no budget phase.
	Value(s *cache.State, c int) float64
	Threshold() float64
	// Budget returns c's TEL-safe budget in tokens, a multiple of the block
	// size; it is consulted only when Value(s, c) ≥ Threshold().
	Budget(s *cache.State, c int) int64
}

// Ranked is a Policy driven by Rules.
type Ranked struct {
	rules Rules
	order *Order
}

// NewRanked returns the policy that applies rules.
func NewRanked(rules Rules) *Ranked { return &Ranked{rules: rules, order: NewOrder()} }

// Update implements Policy.
func (p *Ranked) Update(s *cache.State, t trace.Turn) error {
	c := t.Conv
	if err := s.Set(c, p.rules.Keep(s, t)); err != nil {
		return err
	}
	if s.Cached(c) == 0 {
		p.order.Remove(c)
	} else {
		var old Key
		had := p.order.Contains(c)
		if had {
			old.A, old.B = p.order.Key(c)
		}
		k := p.rules.Key(s, t, old, had)
		p.order.Put(c, k.A, k.B, p.rules.Value(s, c))
	}
	if s.Over() == 0 {
		return nil
	}
	if s.Forced() && p.order.Contains(c) { // the served conversation is not a candidate
		a, b := p.order.Key(c)
		p.order.Remove(c)
		defer p.order.Put(c, a, b, p.rules.Value(s, c))
	}
	for theta := p.rules.Threshold(); s.Over() > 0; {
		v := p.order.FirstAtLeast(theta)
		if v < 0 {
			break
		}
		cut := min(s.Cached(v)-p.rules.Budget(s, v), s.Over())
		if cut <= 0 {
			return fmt.Errorf("policy: conversation %d marked over budget but holds %d tokens within budget %d", v, s.Cached(v), p.rules.Budget(s, v))
		}
		if err := p.evict(s, v, cut); err != nil {
			return err
		}
	}
	for s.Over() > 0 {
		v := p.order.First()
		if v < 0 {
			return fmt.Errorf("policy: %d tokens over capacity and nothing left to evict", s.Over())
		}
		if err := p.evict(s, v, s.Over()); err != nil {
			return err
		}
	}
	return nil
}

func (p *Ranked) evict(s *cache.State, c int, tokens int64) error {
	if _, err := s.Evict(c, tokens); err != nil {
		return err
	}
	if s.Cached(c) == 0 {
		p.order.Remove(c)
	} else {
		p.order.SetValue(c, p.rules.Value(s, c))
	}
	return nil
}

// noBudget is embedded by rules without a TEL-safe phase.
type noBudget struct{}

func (noBudget) Value(*cache.State, int) float64 { return math.Inf(-1) }
func (noBudget) Threshold() float64              { return math.Inf(1) }
func (noBudget) Budget(*cache.State, int) int64  { return 0 }

// keepAll is embedded by rules that keep the served conversation whole.
type keepAll struct{}

func (keepAll) Keep(s *cache.State, _ trace.Turn) int64 { return s.MaxServed() }

// Recency is embedded by rules that key a conversation by its latest turn:
// least recently used first.
type Recency struct{}

// Key implements Rules: the index of turn t, so the least recent turn sorts
// first.
func (Recency) Key(_ *cache.State, t trace.Turn, _ Key, _ bool) Key { return Key{int64(t.Index), 0} }

// Budget returns the TEL-safe budget ⌈(h + q − ξ)⁺ / B⌉·B tokens of a
// conversation with history h whose next prompt is q tokens: caching more
// cannot lower its next turn's excess.
func Budget(h int64, q, xi float64, block int64) int64 {
	v := float64(h) + q - xi
	if v <= 0 {
		return 0
	}
	return int64(math.Ceil(v/float64(block))) * block
}
