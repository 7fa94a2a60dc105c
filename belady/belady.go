// Package belady holds every hindsight (clairvoyant) policy: Tail-Optimized
// Belady, which the tail-latency paper's Theorem 1 says attains the
// hindsight TEL optimum; classic Belady, which maximizes cached tokens; and
// the End-Aware and Length-Aware variants of T-LRU. They read the future
// from the trace's hindsight index (policy.Config.Future, built once, O(K))
// and keep their eviction order in a treap, O(log n) per change, so a trace
// of K turns costs O(K log K) overall. The online policies are in package
// policy.
package belady

import (
	"errors"
	"math"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// errNeedsFuture is the error of a hindsight policy built without the trace's
// future.
var errNeedsFuture = errors.New("needs the whole trace in advance (hindsight); it cannot run on a stream")

// never is the key of a conversation that does not come back: it sorts
// before every real next arrival, so it is evicted first.
const never = math.MinInt64 / 2

// NewTailOptimized returns Tail-Optimized Belady: keep the whole history of
// the conversation just served; when over capacity, first evict blocks
// beyond each conversation's TEL-safe budget ⌈(H + Q − ξ)⁺/B⌉·B computed from
// the true next prompt Q (a conversation that never returns has budget 0),
// then evict from the conversation whose next turn is furthest in the future.
func NewTailOptimized(cfg policy.Config) (policy.Policy, error) {
	if cfg.Future == nil {
		return nil, errNeedsFuture
	}
	return policy.NewRanked(&furthest{lengthAware{xi: cfg.Xi, blockSize: cfg.BlockSize, future: cfg.Future}}), nil
}

// NewClassic returns classic Belady: Tail-Optimized Belady with ξ = 0, that
// is, plain furthest-in-future eviction that maximizes cached tokens (only
// conversations that never return have blocks beyond their budget).
func NewClassic(cfg policy.Config) (policy.Policy, error) {
	cfg.Xi = 0
	return NewTailOptimized(cfg)
}

// furthest keys conversations by the negated index of their next turn, so
// the furthest next arrival is evicted first.
type furthest struct{ lengthAware }

func (f *furthest) Key(_ *cache.State, t trace.Turn, _ policy.Key, _ bool) policy.Key {
	n := f.future.Next[t.Index]
	if n < 0 {
		return policy.Key{A: never, B: int64(t.Conv)}
	}
	return policy.Key{A: -int64(n), B: 0}
}
