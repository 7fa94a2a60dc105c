package window

import (
	"errors"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/trace"
)

// TurnReader yields a trace's turns in arrival order and io.EOF at its end:
// trace.Reader does, and so does Turns.
type TurnReader interface {
	Next() (trace.Turn, error)
}

// Window is one window of a trace: the turns of steps Start .. Start +
// len(Turns) − 1, with what they need from the turns before the window.
type Window struct {
	// Index is the window's position (0-based); Start the global index of
	// its first step.
	Index, Start int
	// Turns are the window's turns, Conv the trace's conversation id.
	Turns []trace.Turn
	// History is H_n, tokens, of each turn: the sum of p + r over the
	// earlier turns of its conversation in the whole trace.
	History []int64
	// Prev is the global index of each turn's previous turn in its
	// conversation, −1 if none.
	Prev []int
	// Before is the turn of step Start − 1 (its history in BeforeHistory),
	// when Start > 0 (HasBefore): the one turn outside the window whose
	// schedule rules (forced caching's fixed pair) reach into it.
	Before        trace.Turn
	BeforeHistory int64
	HasBefore     bool
	// lead are the turns before the window the Splitter kept (its
	// Lookback and one more), oldest first.
	lead []rec
}

// rec is a turn with its history and global previous turn.
type rec struct {
	t    trace.Turn
	h    int64
	prev int
}

// Extended returns the window widened back by back steps (at most what
// the Splitter kept, and never before step 0): the same turns preceded by
// the back turns before them, its Start moved back; Index is kept.
func (w *Window) Extended(back int) *Window {
	s := w.extendedSpan(back)
	if s.n == w.Len() {
		return w
	}
	e := &Window{Index: w.Index, Start: s.start, Turns: make([]trace.Turn, 0, s.n),
		History: make([]int64, 0, s.n), Prev: make([]int, 0, s.n)}
	for j := range s.n {
		r := s.at(j)
		e.Turns, e.History, e.Prev = append(e.Turns, r.t), append(e.History, r.h), append(e.Prev, r.prev)
	}
	e.Before, e.BeforeHistory, e.HasBefore = s.before.t, s.before.h, s.hasBefore
	return e
}

// span is a run of consecutive steps of a trace read in place, turn by
// turn, with the turn before it: what newLocalSpan builds an instance of.
type span struct {
	index, start, n int
	before          rec
	hasBefore       bool
	at              func(j int) rec // step start + j, j < n
}

// span returns w as a span.
func (w *Window) span() span {
	return span{index: w.Index, start: w.Start, n: w.Len(), before: rec{t: w.Before, h: w.BeforeHistory}, hasBefore: w.HasBefore,
		at: func(j int) rec { return rec{w.Turns[j], w.History[j], w.Prev[j]} }}
}

// extendedSpan is Extended(back) read in place: the window's turns
// preceded by up to back of the turns the Splitter kept before it, and
// the turn before those.
func (w *Window) extendedSpan(back int) span {
	back = min(back, w.Start, len(w.lead)) // lead: up to back turns and the one before
	if back < w.Start && back == len(w.lead) {
		back-- // the turn before the widened window is needed too
	}
	if back <= 0 {
		return w.span()
	}
	lead := w.lead[len(w.lead)-back:]
	s := span{index: w.Index, start: w.Start - back, n: back + w.Len(),
		at: func(j int) rec {
			if j < back {
				return lead[j]
			}
			j -= back
			return rec{w.Turns[j], w.History[j], w.Prev[j]}
		}}
	if s.start > 0 {
		s.before, s.hasBefore = w.lead[len(w.lead)-back-1], true
	}
	return s
}

// joinSpan is the span of consecutive windows left and right (left's
// index and turn before), read in place.
func joinSpan(left, right *Window) span {
	nl := left.Len()
	s := left.span()
	s.n += right.Len()
	s.at = func(j int) rec {
		if j < nl {
			return rec{left.Turns[j], left.History[j], left.Prev[j]}
		}
		j -= nl
		return rec{right.Turns[j], right.History[j], right.Prev[j]}
	}
	return s
}

// Len returns the number of steps of the window.
func (w *Window) Len() int { return len(w.Turns) }

// Splitter cuts a stream of turns into windows of Size steps (the last may
// be shorter), reading each turn once.
type Splitter struct {
	// Lookback is how many turns before each window it hands out with it
	// (for Window.Extended).
	Lookback int
	src      TurnReader
	size     int
	tail     []rec // the last turns read (at least Lookback+1 when there are)
	// per conversation id: history so far (tokens) and last turn's
	// global index + 1 (0: none yet)
	hist []int64
	last []int
	next int // global index of the next turn
	idx  int // index of the next window
	done bool
	prev trace.Turn
	prvH int64
	// ahead is the turn More read ahead (err its error, io.EOF at the
	// end), which take returns next.
	ahead struct {
		ok  bool
		t   trace.Turn
		err error
	}
}

// More reports whether a turn is left to read after the windows handed
// out, reading at most one turn ahead (kept for the next window); a trace
// error is returned as Next would return it.
func (s *Splitter) More() (bool, error) {
	if s.done {
		return false, nil
	}
	if !s.ahead.ok {
		s.ahead.t, s.ahead.err = s.src.Next()
		s.ahead.ok = true
	}
	if errors.Is(s.ahead.err, io.EOF) {
		return false, nil
	}
	return s.ahead.err == nil, s.ahead.err
}

// NewSplitter returns a Splitter of src into windows of size steps (≥ 1).
func NewSplitter(src TurnReader, size int) (*Splitter, error) {
	if size < 1 {
		return nil, fmt.Errorf("window: window size %d steps must be ≥ 1", size)
	}
	return &Splitter{src: src, size: size}, nil
}

// Next returns the next window, or io.EOF after the last. A trace error is
// returned as it is (trace.Reader's name file and line).
func (s *Splitter) Next() (*Window, error) {
	if s.done {
		return nil, io.EOF
	}
	w := &Window{Index: s.idx, Start: s.next, Turns: make([]trace.Turn, 0, s.size),
		History: make([]int64, 0, s.size), Prev: make([]int, 0, s.size)}
	if s.next > 0 {
		w.Before, w.BeforeHistory, w.HasBefore = s.prev, s.prvH, true
	}
	w.lead = append([]rec(nil), s.tail[max(0, len(s.tail)-s.Lookback-1):]...)
	for len(w.Turns) < s.size {
		r, err := s.take()
		if errors.Is(err, io.EOF) {
			s.done = true
			break
		}
		if err != nil {
			return nil, err
		}
		w.Turns = append(w.Turns, r.t)
		w.History = append(w.History, r.h)
		w.Prev = append(w.Prev, r.prev)
	}
	if len(w.Turns) == 0 {
		return nil, io.EOF
	}
	s.idx++
	return w, nil
}

// Skip reads past the next window: its turns are read and checked as Next
// reads them, and what later windows need from them is kept (each
// conversation's history and last turn, the turn before the next window
// and the Lookback turns before it), but the window itself is not built.
// It returns io.EOF, reading nothing, when the trace has no turn left (as
// Next would), and a trace error as Next does. A shard skips the windows
// before its own: Next then returns what it would have after handing them
// out.
func (s *Splitter) Skip() error {
	if s.done {
		return io.EOF
	}
	n := 0
	for ; n < s.size; n++ {
		_, err := s.take()
		if errors.Is(err, io.EOF) {
			s.done = true
			break
		}
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return io.EOF
	}
	s.idx++
	return nil
}

// SkipUntil skips (Skip) the windows that mine does not pick, up to the
// next one it does, which Next then returns; it returns io.EOF when the
// trace ends first. A nil mine picks every window.
func (s *Splitter) SkipUntil(mine func(index int) bool) error {
	for mine != nil && !mine(s.idx) {
		if err := s.Skip(); err != nil {
			return err
		}
	}
	return nil
}

// take reads the next turn and checks it, returns it with its history and
// global previous turn, and advances the state: the conversation's
// history and last turn, the turn before the next one, the Lookback tail.
func (s *Splitter) take() (rec, error) {
	t, err := s.ahead.t, s.ahead.err
	if s.ahead.ok {
		s.ahead.ok = false
	} else {
		t, err = s.src.Next()
	}
	if err != nil {
		return rec{}, err
	}
	c := t.Conv
	if c < 0 {
		return rec{}, fmt.Errorf("window: turn %d: conversation id %d is negative", s.next, c)
	}
	for c >= len(s.hist) {
		s.hist = append(s.hist, 0)
		s.last = append(s.last, 0)
	}
	if t.Prompt < 1 || t.Response < 0 {
		return rec{}, fmt.Errorf("window: turn %d: prompt %d tokens must be ≥ 1 and response %d ≥ 0", s.next, t.Prompt, t.Response)
	}
	if s.hist[c] > 1<<50 {
		return rec{}, fmt.Errorf("window: turn %d: history over 2^50 tokens", s.next)
	}
	r := rec{t, s.hist[c], s.last[c] - 1}
	s.prev, s.prvH = t, s.hist[c]
	if s.Lookback > 0 {
		if keep := s.Lookback + 1; len(s.tail) >= 2*keep { // amortized O(1)
			s.tail = append(s.tail[:0], s.tail[len(s.tail)-keep:]...)
		}
		s.tail = append(s.tail, r)
	}
	s.hist[c] += t.Prompt + t.Response
	s.last[c] = s.next + 1
	s.next++
	return r, nil
}

// Turns reads the turns of an in-memory trace as a TurnReader.
type Turns struct {
	turns []trace.Turn
	i     int
}

// NewTurns returns a TurnReader over turns.
func NewTurns(turns []trace.Turn) *Turns { return &Turns{turns: turns} }

// Next returns the next turn, io.EOF after the last.
func (r *Turns) Next() (trace.Turn, error) {
	if r.i == len(r.turns) {
		return trace.Turn{}, io.EOF
	}
	r.i++
	return r.turns[r.i-1], nil
}

// Size returns the steps per window that cut turns steps into n windows
// (the last possibly shorter): ⌈turns/n⌉, at least 1.
func Size(turns, n int) int {
	if n < 1 {
		n = 1
	}
	return max(1, (turns+n-1)/n)
}
