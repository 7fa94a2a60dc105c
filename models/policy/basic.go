package policy

import (
	"fmt"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/trace"
)

// NewLRU returns LRU: keep the whole history of the conversation just served,
// then evict from the least recently used conversations until the total fits.
func NewLRU(Config) (Policy, error) { return NewRanked(lru{}), nil }

type lru struct {
	keepAll
	Recency
	noBudget
}

// NewFIFO returns FIFO: like LRU, but conversations leave the cache in the
// order they entered it (a conversation evicted whole re-enters at the back).
func NewFIFO(Config) (Policy, error) { return NewRanked(fifo{}), nil }

type fifo struct {
	keepAll
	noBudget
}

func (fifo) Key(_ *cache.State, t trace.Turn, old Key, had bool) Key {
	if had {
		return old
	}
	return Key{int64(t.Index), 0}
}

// NewLFU returns LFU: evict from the conversation with the fewest turns so
// far, the least recently used among equals.
func NewLFU(Config) (Policy, error) { return NewRanked(&lfu{}), nil }

type lfu struct {
	keepAll
	noBudget
	turns []int64
}

func (l *lfu) Key(_ *cache.State, t trace.Turn, _ Key, _ bool) Key {
	for len(l.turns) <= t.Conv {
		l.turns = append(l.turns, 0)
	}
	l.turns[t.Conv]++
	return Key{l.turns[t.Conv], int64(t.Index)}
}

// NewThresholdLRU returns Threshold-LRU(T): LRU that caches a conversation
// only while its history is at least cfg.Threshold tokens (in forced mode it
// must cache every conversation, and is LRU).
func NewThresholdLRU(cfg Config) (Policy, error) {
	if cfg.Threshold < 0 {
		return nil, fmt.Errorf("threshold T %d tokens must be ≥ 0", cfg.Threshold)
	}
	return NewRanked(thresholdLRU{t: cfg.Threshold}), nil
}

type thresholdLRU struct {
	Recency
	noBudget
	t int64
}

func (r thresholdLRU) Keep(s *cache.State, t trace.Turn) int64 {
	if s.Forced() || s.History(t.Conv) >= r.t {
		return s.MaxServed()
	}
	return 0
}
