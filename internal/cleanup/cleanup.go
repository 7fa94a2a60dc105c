// Package cleanup holds the last-resort clean-up of one process run: the
// actions (remove a temporary file, kill an external process group) that
// must happen even when the run is ended before it can undo them itself,
// as when a signal's grace period runs out. A Set travels in the run's
// context (With, Add), so that no package keeps global state; code that
// finds no Set in its context simply registers nothing.
package cleanup

import (
	"context"
	"slices"
	"sync"
)

// Set is the clean-up actions registered and not yet removed. Its methods
// are safe for concurrent use.
type Set struct {
	mu   sync.Mutex
	next int
	fns  map[int]func()
	done bool
}

// New returns an empty Set.
func New() *Set { return &Set{fns: map[int]func(){}} }

type key struct{}

// With returns ctx carrying s.
func With(ctx context.Context, s *Set) context.Context { return context.WithValue(ctx, key{}, s) }

// From returns the Set ctx carries, or nil.
func From(ctx context.Context) *Set {
	s, _ := ctx.Value(key{}).(*Set)
	return s
}

// Add registers fn with the Set in ctx and returns the function that
// removes it again (call it once the action is done or no longer needed).
// Without a Set in ctx, fn is not registered and remove does nothing.
func Add(ctx context.Context, fn func()) (remove func()) {
	s := From(ctx)
	if s == nil {
		return func() {}
	}
	return s.Add(fn)
}

// Add registers fn and returns the function that removes it. After Run,
// fn is run at once instead (the process is ending).
func (s *Set) Add(fn func()) (remove func()) {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		fn()
		return func() {}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

// Len is the number of actions registered now.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fns)
}

// Run runs every registered action once, newest first, and removes them;
// actions added afterwards run at once.
func (s *Set) Run() {
	s.mu.Lock()
	s.done = true
	ids := make([]int, 0, len(s.fns))
	for id := range s.fns {
		ids = append(ids, id)
	}
	fns := s.fns
	s.fns = map[int]func(){}
	s.mu.Unlock()
	slices.Sort(ids)
	for i := len(ids) - 1; i >= 0; i-- {
		fns[ids[i]]()
	}
}
