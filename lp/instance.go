package lp

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Instance is one hindsight problem: a trace and the cache parameters, in
// tokens. Turn k (0-based, arrival order) is step k: the cache is updated
// right after turn k is served, and "the state at step k" is the cache
// after that update, which is what turn k+1 finds.
type Instance struct {
	// Params are the capacity C (a whole number of blocks), the block
	// size B, the TEL threshold ξ (may be fractional or negative) and
	// forced caching (after its turn, a conversation keeps its whole new
	// history floored to blocks, at most C), all lengths in tokens.
	instance.Params
	// Turns are the trace's turns in arrival order (Conv dense from 0).
	Turns []trace.Turn
	// Conversations is the number of conversations N.
	Conversations int

	// History is H_k, tokens: the sum of p + r over the earlier turns of
	// turn k's conversation.
	History []int64
	// Next is the index of the next turn of turn k's conversation, -1 if
	// none; Prev the previous one, -1 if none.
	Next, Prev []int
	// First is the index of each conversation's first turn.
	First []int
}

// NewInstance builds the instance of tr with parameters p. It checks the
// parameters (p.Validate, and |ξ| below 2^50 tokens) and the trace (dense
// conversation ids, positive prompts, non-negative responses).
func NewInstance(tr *trace.Trace, p instance.Params) (*Instance, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	if math.Abs(p.Xi) > 1<<50 {
		return nil, fmt.Errorf("lp: threshold ξ = %v tokens must be below 2^50 in magnitude", p.Xi)
	}
	n := tr.Conversations()
	in := &Instance{Params: p, Turns: tr.Turns, Conversations: n,
		History: make([]int64, len(tr.Turns)), Next: make([]int, len(tr.Turns)), Prev: make([]int, len(tr.Turns)),
		First: make([]int, n)}
	hist := make([]int64, n)
	last := make([]int, n)
	for i := range last {
		last[i], in.First[i] = -1, -1
	}
	for k, t := range tr.Turns {
		c := t.Conv
		switch {
		case c < 0 || c >= n:
			return nil, fmt.Errorf("lp: turn %d: conversation id %d out of [0, %d)", k, c, n)
		case t.Prompt < 1:
			return nil, fmt.Errorf("lp: turn %d: prompt %d tokens must be ≥ 1", k, t.Prompt)
		case t.Response < 0:
			return nil, fmt.Errorf("lp: turn %d: response %d tokens must be ≥ 0", k, t.Response)
		case hist[c] > 1<<50:
			return nil, fmt.Errorf("lp: turn %d: history over 2^50 tokens", k)
		}
		in.History[k] = hist[c]
		hist[c] += t.Prompt + t.Response
		in.Prev[k] = last[c]
		in.Next[k] = -1
		if last[c] >= 0 {
			in.Next[last[c]] = k
		} else {
			in.First[c] = k
		}
		last[c] = k
	}
	return in, nil
}

// K returns the number of turns.
func (in *Instance) K() int { return len(in.Turns) }

// Load returns D_k = H_k + p_k, tokens.
func (in *Instance) Load(k int) int64 { return in.History[k] + in.Turns[k].Prompt }

// After returns the history of turn k's conversation right after turn k,
// H_k + p_k + r_k tokens: what it may keep cached.
func (in *Instance) After(k int) int64 { return in.Load(k) + in.Turns[k].Response }

// MaxKeep returns the most blocks turn k's conversation may keep after turn
// k: its new history floored to whole blocks, and at most C/B. Under forced
// caching it keeps exactly that.
func (in *Instance) MaxKeep(k int) int64 { return min(in.After(k)/in.BlockSize, in.Blocks()) }

// Excess returns turn k's excess max(D_k − x − ξ, 0) in tokens when x tokens
// of its history are cached.
func (in *Instance) Excess(k int, x int64) float64 {
	return math.Max(float64(in.Load(k)-x)-in.Xi, 0)
}

// BaseTEL returns the TEL with nothing cached, tokens: Σ_k max(D_k − ξ, 0).
func (in *Instance) BaseTEL() float64 {
	s := 0.0
	for k := range in.Turns {
		s += in.Excess(k, 0)
	}
	return s
}
