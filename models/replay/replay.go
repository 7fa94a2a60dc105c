// Package replay is the conversation-level replay engine: it feeds a trace's
// turns to several policies, each with its own cache state, and measures
// them. The trace is read once; each policy runs in its own goroutine on the
// same batches of turns, so independent policies use both cores.
package replay

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// Options are the instance and measurement settings shared by all policies.
type Options struct {
	// Params are the instance's capacity C, block size B, TEL threshold ξ
	// and caching mode.
	instance.Params
	// Model converts uncached tokens to latency.
	Model latency.Model
	// SLOMs is the SLO for violation counts, ms.
	SLOMs float64
	// Progress, when not nil, receives a progress line now and then
	// (callers pass stderr only when it is a terminal).
	Progress io.Writer
}

// Named is a policy to replay under a display name.
type Named struct {
	Name   string
	Policy policy.Policy
}

// Result is one policy's outcome.
type Result struct {
	Name          string
	Summary       metrics.Summary
	Evictions     int64 // decreases of a conversation's cached amount
	EvictedTokens int64 // tokens evicted
	Metrics       *metrics.Accumulator
}

// Source yields the turns of a trace in order and io.EOF at the end.
type Source func() (trace.Turn, error)

// SliceSource returns a Source over an in-memory trace.
func SliceSource(turns []trace.Turn) Source {
	i := 0
	return func() (trace.Turn, error) {
		if i == len(turns) {
			return trace.Turn{}, io.EOF
		}
		i++
		return turns[i-1], nil
	}
}

const batchSize = 4096

type batch struct {
	turns []trace.Turn
	refs  atomic.Int32
}

// Replay runs every policy over the turns of src and returns their results
// in the order given. A policy that breaks the cache rules, or a malformed
// trace, is an error: no partial result is returned.
func Replay(src Source, runs []Named, opt Options) ([]Result, error) {
	if err := opt.Model.Validate(); err != nil {
		return nil, err
	}
	states := make([]*cache.State, len(runs))
	for i := range runs {
		s, err := cache.New(opt.Params)
		if err != nil {
			return nil, err
		}
		states[i] = s
	}
	chans := make([]chan *batch, len(runs))
	results := make([]Result, len(runs))
	errs := make([]error, len(runs))
	pool := sync.Pool{New: func() any { return &batch{turns: make([]trace.Turn, 0, batchSize)} }}
	var wg sync.WaitGroup
	for i := range runs {
		chans[i] = make(chan *batch, 4)
		results[i] = Result{Name: runs[i].Name, Metrics: metrics.New(opt.Xi, opt.Model, opt.SLOMs)}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for b := range chans[i] {
				if errs[i] == nil {
					errs[i] = step(states[i], runs[i].Policy, results[i].Metrics, b.turns)
				}
				if b.refs.Add(-1) == 0 {
					b.turns = b.turns[:0]
					pool.Put(b)
				}
			}
		}(i)
	}
	readErr := feed(src, chans, &pool, opt.Progress)
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", runs[i].Name, err)
		}
	}
	for i := range results {
		results[i].Summary = results[i].Metrics.Summary()
		results[i].Evictions = states[i].Evictions()
		results[i].EvictedTokens = states[i].EvictedTokens()
	}
	return results, nil
}

// feed reads src in batches and hands each batch to every runner.
func feed(src Source, chans []chan *batch, pool *sync.Pool, progress io.Writer) error {
	defer func() {
		for _, c := range chans {
			close(c)
		}
	}()
	var n int
	for done := false; !done; {
		b := pool.Get().(*batch)
		for len(b.turns) < batchSize {
			t, err := src()
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				return err
			}
			b.turns = append(b.turns, t)
		}
		if len(b.turns) == 0 {
			break
		}
		b.refs.Store(int32(len(chans)))
		for _, c := range chans {
			c <- b
		}
		n += len(b.turns)
		if progress != nil && n%(64*batchSize) < batchSize {
			fmt.Fprintf(progress, "\rreplayed %d turns", n)
		}
	}
	if progress != nil {
		fmt.Fprintf(progress, "\rreplayed %d turns\n", n)
	}
	return nil
}

// step replays turns under one policy.
func step(s *cache.State, p policy.Policy, acc *metrics.Accumulator, turns []trace.Turn) error {
	for _, t := range turns {
		h, x := s.Begin(t.Conv, t.Prompt, t.Response)
		acc.Add(h, x, h+t.Prompt)
		if err := p.Update(s, t); err != nil {
			return fmt.Errorf("turn %d: %w", t.Index, err)
		}
		if err := s.End(); err != nil {
			return fmt.Errorf("turn %d: %w", t.Index, err)
		}
	}
	return nil
}
