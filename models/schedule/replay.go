package schedule

import (
	"fmt"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// bound is a schedule resolved against a trace: the line of every turn,
// with conversation names turned into ids.
type bound struct {
	s      *Schedule
	tr     *trace.Trace
	line   []int32  // line index of turn k
	shrink [][]op   // decision form: the shrinks of line i, by id
	next   []int    // arrival form: next turn of turn k's conversation (-1: none)
	prev   []int    // previous turn of turn k's conversation (-1: none)
	xs     []int64  // arrival form: cached amount found by turn k
	names  []string // conversation names
}

// op is one change of a conversation's amount: conversation c to tokens.
type op struct {
	c      int
	tokens int64
}

// bind resolves every line to its turn of tr.
func (s *Schedule) bind(tr *trace.Trace) (*bound, error) {
	K := len(tr.Turns)
	b := &bound{s: s, tr: tr, line: make([]int32, K), names: tr.Names}
	for k := range b.line {
		b.line[k] = -1
	}
	ids := make(map[string]int, len(tr.Names))
	for i, n := range tr.Names {
		ids[n] = i
	}
	var byConv [][]int // turns of each conversation, built when conv_turn is used
	for i, l := range s.Lines {
		at := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", s.Name, l.No, fmt.Sprintf(format, a...))
		}
		k := i
		switch {
		case l.Turn != nil:
			k = *l.Turn
		case l.ConvTurn != nil:
			c, ok := ids[*l.Conv]
			if !ok {
				return nil, at("conversation %s is not in the trace", quote(*l.Conv))
			}
			if byConv == nil {
				byConv = make([][]int, len(tr.Names))
				for _, t := range tr.Turns {
					byConv[t.Conv] = append(byConv[t.Conv], t.Index)
				}
			}
			if *l.ConvTurn >= len(byConv[c]) {
				return nil, at("conversation %s has %d turns in the trace, conv_turn %d given (0-based)", quote(*l.Conv), len(byConv[c]), *l.ConvTurn)
			}
			k = byConv[c][*l.ConvTurn]
		}
		if k >= K {
			if l.Turn == nil && l.ConvTurn == nil {
				return nil, at("line for turn %d, but the trace has %d turns (wrong turn count)", k, K)
			}
			return nil, at("turn %d, but the trace has %d turns (0-based)", k, K)
		}
		if b.line[k] >= 0 {
			return nil, at("turn %d already has line %d", k, s.Lines[b.line[k]].No)
		}
		if l.Conv != nil && l.ConvTurn == nil && *l.Conv != tr.Names[tr.Turns[k].Conv] {
			return nil, at("turn %d: conversation %s, but the trace's turn %d is of %s", k, quote(*l.Conv), k, quote(tr.Names[tr.Turns[k].Conv]))
		}
		b.line[k] = int32(i)
	}
	if len(s.Lines) != K {
		missing := 0
		for missing < K && b.line[missing] >= 0 {
			missing++
		}
		return nil, fmt.Errorf("%s: %d lines for a trace of %d turns; turn %d has none (wrong turn count)", s.Name, len(s.Lines), K, missing)
	}
	b.prev = make([]int, K)
	last := make([]int, len(tr.Names))
	for c := range last {
		last[c] = -1
	}
	for k, t := range tr.Turns {
		b.prev[k] = last[t.Conv]
		last[t.Conv] = k
	}
	if s.Decisions {
		b.shrink = make([][]op, len(s.Lines))
		for i, l := range s.Lines {
			for _, sh := range l.Shrink {
				c, ok := ids[sh.Conv]
				if !ok {
					return nil, fmt.Errorf("%s:%d: shrink: conversation %s is not in the trace", s.Name, l.No, quote(sh.Conv))
				}
				b.shrink[i] = append(b.shrink[i], op{c, sh.Keep})
			}
		}
		return b, nil
	}
	b.next = make([]int, K)
	b.xs = make([]int64, K)
	for k := range b.next {
		b.next[k] = -1
		b.xs[k] = *s.Lines[b.line[k]].Cached
		if p := b.prev[k]; p >= 0 {
			b.next[p] = k
		}
	}
	return b, nil
}

// Policy binds the schedule to tr, the trace it was written for, and
// returns the policy that replays it: run under the replay engine it gives
// the schedule's metrics, and its Update returns the first violation of the
// model's rules as FILE:LINE: turn K (conversation "c"): what (rule: …).
// Binding fails when a line names a turn or conversation the trace does
// not have, or the count of lines is not the count of turns.
func (s *Schedule) Policy(tr *trace.Trace) (policy.Policy, error) {
	b, err := s.bind(tr)
	if err != nil {
		return nil, err
	}
	return &player{b: b}, nil
}

// player replays a bound schedule.
type player struct{ b *bound }

// Violation is the first rule of the model a schedule breaks.
type Violation struct {
	File string // schedule file name
	Line int    // 1-based line of the turn at which it is found
	Turn int    // 0-based turn index in the trace
	Conv string // the turn's conversation
	Rule string // "whole blocks", "at most the history", "no growth between a conversation's turns", "capacity" or "forced"
	What string // what the schedule says and what the model allows, with the numbers
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%s:%d: turn %d (conversation %s): %s (rule: %s)", v.File, v.Line, v.Turn, quote(v.Conv), v.What, v.Rule)
}

// fail returns a violation at turn k's line.
func (b *bound) fail(k int, rule, format string, a ...any) error {
	return &Violation{File: b.s.Name, Line: b.s.Lines[b.line[k]].No, Turn: k, Conv: b.names[b.tr.Turns[k].Conv],
		Rule: rule, What: fmt.Sprintf(format, a...)}
}

const (
	ruleBlocks   = "whole blocks"
	ruleHistory  = "at most the history"
	ruleGrowth   = "no growth between a conversation's turns"
	ruleCapacity = "capacity"
	ruleForced   = "forced"
)

// Update implements policy.Policy.
func (p *player) Update(s *cache.State, t trace.Turn) error {
	b := p.b
	k := t.Index
	if k >= len(b.line) || b.tr.Turns[k].Conv != t.Conv {
		return fmt.Errorf("%s: replayed on another trace than it was bound to (turn %d)", b.s.Name, k)
	}
	var err error
	if b.s.Decisions {
		err = p.decide(s, k, t.Conv)
	} else {
		err = p.arrive(s, k, t.Conv)
	}
	if err != nil {
		return err
	}
	if s.Over() > 0 {
		return b.fail(k, ruleCapacity, "after its decisions %d tokens are cached, over the capacity %d", s.Total(), s.Capacity())
	}
	return nil
}

// blocks reports x tokens that are not a whole number of blocks.
func blocks(s *cache.State, x int64) bool { return x >= 0 && x%s.BlockSize() == 0 }

// maxKeepText explains MaxServed.
func maxKeepText(s *cache.State, c int) string {
	return fmt.Sprintf("%d (its history of %d tokens in whole %d-token blocks, at most the capacity %d)",
		s.MaxServed(), s.History(c), s.BlockSize(), s.Capacity())
}

func (p *player) decide(s *cache.State, k, c int) error {
	b := p.b
	l := &b.s.Lines[b.line[k]]
	if l.Cached != nil && *l.Cached != s.Cached(c) {
		if *l.Cached > s.Cached(c) {
			return b.fail(k, ruleGrowth, "cached %d tokens, but the earlier lines leave it %d", *l.Cached, s.Cached(c))
		}
		return b.fail(k, ruleGrowth, "cached %d tokens, but the earlier lines leave it %d (an amount changes only by keep and shrink)", *l.Cached, s.Cached(c))
	}
	keep := *l.Keep
	switch {
	case !blocks(s, keep):
		return b.fail(k, ruleBlocks, "keep %d tokens is not a whole number of %d-token blocks", keep, s.BlockSize())
	case keep > s.MaxServed():
		return b.fail(k, ruleHistory, "keep %d tokens, more than the most it may keep, %s", keep, maxKeepText(s, c))
	case s.Forced() && keep != s.MaxServed():
		return b.fail(k, ruleForced, "keep %d tokens, but forced caching keeps %s", keep, maxKeepText(s, c))
	}
	if err := s.Set(c, keep); err != nil {
		return b.fail(k, "cache", "%v", err)
	}
	for _, o := range b.shrink[b.line[k]] {
		name := quote(b.names[o.c])
		switch {
		case o.c >= s.Conversations():
			return b.fail(k, ruleGrowth, "shrink: conversation %s has not arrived yet", name)
		case !blocks(s, o.tokens):
			return b.fail(k, ruleBlocks, "shrink: conversation %s to %d tokens, not a whole number of %d-token blocks", name, o.tokens, s.BlockSize())
		case o.tokens > s.Cached(o.c):
			return b.fail(k, ruleGrowth, "shrink: conversation %s to %d tokens, but it holds %d", name, o.tokens, s.Cached(o.c))
		case s.Forced() && o.c == c && o.tokens != s.Cached(c):
			return b.fail(k, ruleForced, "shrink: the served conversation to %d tokens, but forced caching keeps %s", o.tokens, maxKeepText(s, c))
		}
		if err := s.Set(o.c, o.tokens); err != nil {
			return b.fail(k, "cache", "%v", err)
		}
	}
	return nil
}

// arrive applies the least occupancy of the arrival form at step k: the
// served conversation holds what its next turn finds (optional caching) or
// its whole history (forced caching, cut back at the next step).
func (p *player) arrive(s *cache.State, k, c int) error {
	b := p.b
	x := b.xs[k]
	switch {
	case !blocks(s, x):
		return b.fail(k, ruleBlocks, "cached %d tokens is not a whole number of %d-token blocks", x, s.BlockSize())
	case b.prev[k] < 0 && x != 0:
		return b.fail(k, ruleHistory, "cached %d tokens at the conversation's first turn, whose history is 0", x)
	case x != s.Cached(c): // only forced caching with the same conversation at k−1 gets here
		return b.fail(k, ruleForced, "cached %d tokens, but forced caching kept %d after turn %d", x, s.Cached(c), k-1)
	}
	if s.Forced() && k > 0 {
		if q := b.tr.Turns[k-1].Conv; q != c {
			if err := s.Set(q, p.held(k-1)); err != nil {
				return b.fail(k, "cache", "%v", err)
			}
		}
	}
	hold := p.held(k)
	if n := b.next[k]; n >= 0 {
		switch {
		case !blocks(s, hold):
			return b.fail(n, ruleBlocks, "cached %d tokens is not a whole number of %d-token blocks", hold, s.BlockSize())
		case hold > s.MaxServed():
			return b.fail(n, ruleHistory, "cached %d tokens, more than its conversation could keep after turn %d, %s", hold, k, maxKeepText(s, c))
		case s.Forced() && n == k+1 && hold != s.MaxServed():
			return b.fail(n, ruleForced, "cached %d tokens, but forced caching keeps %s after turn %d", hold, maxKeepText(s, c), k)
		}
	}
	if s.Forced() {
		hold = s.MaxServed()
	}
	if err := s.Set(c, hold); err != nil {
		return b.fail(k, "cache", "%v", err)
	}
	return nil
}

// held returns what turn k's conversation holds until its next turn: what
// that turn finds, or nothing.
func (p *player) held(k int) int64 {
	if n := p.b.next[k]; n >= 0 {
		return p.b.xs[n]
	}
	return 0
}
