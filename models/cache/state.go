// Package cache holds the conversation-level KV cache state: how many tokens
// of each conversation's history are cached, at block granularity, under a
// total capacity. It enforces the model's invariants so that a policy cannot
// silently break them: amounts are whole blocks, a prefix of the history,
// never grow between a conversation's own turns, and sum to at most the
// capacity once the policy has decided.
package cache

import (
	"fmt"

	"github.com/tailbound/tailbound/models/instance"
)

// State is the cache of every conversation seen so far. Amounts are in
// tokens and always multiples of the block size.
type State struct {
	capacity int64
	block    int64
	forced   bool

	cached []int64 // tokens cached per conversation
	hist   []int64 // history per conversation (tokens), after its latest turn
	total  int64
	served int // conversation whose turn is being decided, -1 between turns

	evictedTokens int64
	evictions     int64

	observe func(c int, from, to int64) // nil unless Observe was called
}

// New returns an empty cache of p.Capacity tokens with blocks of
// p.BlockSize tokens. In forced mode (p.Forced) the conversation just served
// must keep its whole history (as many whole blocks of it as fit in the
// capacity). The threshold p.Xi plays no part in the cache.
func New(p instance.Params) (*State, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &State{capacity: p.Capacity, block: p.BlockSize, forced: p.Forced, served: -1}, nil
}

// Capacity returns the capacity C in tokens.
func (s *State) Capacity() int64 { return s.capacity }

// BlockSize returns the block size B in tokens.
func (s *State) BlockSize() int64 { return s.block }

// Forced reports whether the served conversation must be cached whole.
func (s *State) Forced() bool { return s.forced }

// Total returns the tokens cached over all conversations.
func (s *State) Total() int64 { return s.total }

// Over returns how many tokens must still be evicted to fit the capacity
// (0 when it fits).
func (s *State) Over() int64 {
	if s.total > s.capacity {
		return s.total - s.capacity
	}
	return 0
}

// Cached returns conversation c's cached tokens.
func (s *State) Cached(c int) int64 {
	if c < len(s.cached) {
		return s.cached[c]
	}
	return 0
}

// History returns conversation c's history in tokens: the sum of prompt and
// response lengths of its turns served so far.
func (s *State) History(c int) int64 {
	if c < len(s.hist) {
		return s.hist[c]
	}
	return 0
}

// Conversations returns one more than the largest conversation id seen.
func (s *State) Conversations() int { return len(s.hist) }

// Served returns the conversation whose turn is being decided, or -1.
func (s *State) Served() int { return s.served }

// Floor returns the largest multiple of the block size ≤ tokens.
func (s *State) Floor(tokens int64) int64 { return tokens / s.block * s.block }

// MaxServed returns the most the served conversation may keep: its whole new
// history rounded down to whole blocks, and at most the capacity.
func (s *State) MaxServed() int64 {
	return min(s.Floor(s.hist[s.served]), s.capacity)
}

// EvictedTokens returns the tokens evicted so far (decreases of a cached
// amount, the served conversation's trims included).
func (s *State) EvictedTokens() int64 { return s.evictedTokens }

// Evictions returns the number of decreases of a conversation's amount.
func (s *State) Evictions() int64 { return s.evictions }

// Set changes conversation c's cached amount to tokens. Only the served
// conversation may grow (up to MaxServed); any conversation may shrink. The
// amount must be a whole number of blocks.
func (s *State) Set(c int, tokens int64) error {
	if c < 0 || c >= len(s.cached) {
		return fmt.Errorf("cache: conversation %d unknown", c)
	}
	old := s.cached[c]
	switch {
	case tokens < 0 || tokens%s.block != 0:
		return fmt.Errorf("cache: conversation %d: amount %d tokens is not a whole number of %d-token blocks", c, tokens, s.block)
	case tokens > old && c != s.served:
		return fmt.Errorf("cache: conversation %d: amount grows from %d to %d tokens between its turns", c, old, tokens)
	case c == s.served && tokens > s.MaxServed():
		return fmt.Errorf("cache: conversation %d: amount %d tokens exceeds its history/capacity %d", c, tokens, s.MaxServed())
	case s.forced && c == s.served && tokens < s.MaxServed():
		return fmt.Errorf("cache: conversation %d: forced caching must keep %d tokens, got %d", c, s.MaxServed(), tokens)
	}
	if tokens < old {
		s.evictedTokens += old - tokens
		s.evictions++
	}
	if s.observe != nil && tokens != old {
		s.observe(c, old, tokens)
	}
	s.cached[c] = tokens
	s.total += tokens - old
	return nil
}

// Observe has f called on every change of a conversation's cached amount,
// in the order the policy makes them: conversation c goes from tokens to
// to tokens (both multiples of the block size). Passing nil stops it.
// Recorders of a policy's decisions (models/schedule) use it.
func (s *State) Observe(f func(c int, from, to int64)) { s.observe = f }

// Evict removes up to tokens (rounded up to whole blocks) from the end of
// conversation c's cache and returns how many tokens it removed.
func (s *State) Evict(c int, tokens int64) (int64, error) {
	if tokens <= 0 {
		return 0, nil
	}
	blocks := (tokens + s.block - 1) / s.block
	n := min(blocks*s.block, s.Cached(c))
	return n, s.Set(c, s.Cached(c)-n)
}

// Begin starts turn decisions for conversation c after a turn of prompt and
// response tokens was served: its history grows. It returns the turn's
// history before the turn (H_k) and cached amount (x_k).
func (s *State) Begin(c int, prompt, response int64) (h, x int64) {
	for len(s.hist) <= c { // conversation ids are dense: this runs once per new one
		s.hist = append(s.hist, 0)
		s.cached = append(s.cached, 0)
	}
	h, x = s.hist[c], s.cached[c]
	s.hist[c] = h + prompt + response
	s.served = c
	return h, x
}

// End closes the turn's decisions and checks the invariants the policy must
// leave: total within capacity, and in forced mode the served conversation
// cached whole.
func (s *State) End() error {
	c := s.served
	s.served = -1
	if s.total > s.capacity {
		return fmt.Errorf("cache: policy left %d tokens cached, capacity %d", s.total, s.capacity)
	}
	if s.forced && s.cached[c] != min(s.Floor(s.hist[c]), s.capacity) {
		return fmt.Errorf("cache: forced caching: conversation %d keeps %d tokens, must keep %d", c, s.cached[c], min(s.Floor(s.hist[c]), s.capacity))
	}
	return nil
}
