// Package replay is the conversation-level replay engine: it feeds a trace's
// turns to several policies, each with its own cache state, and measures
// them. The trace is read once; each policy runs in its own goroutine on the
// same batches of turns, so independent policies use both cores.
package replay

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"io"

	"github.com/tailbound/tailbound/internal/fanout"
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
	// Progress, when not nil, is told the turns replayed, batch by batch.
	Progress progress.Func
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

// WithContext returns src stopped by ctx: once ctx is done (a signal),
// it returns ctx's error instead of the next turn, so that Replay stops
// within a batch and returns no result.
func WithContext(ctx context.Context, src Source) Source {
	n := 0
	return func() (trace.Turn, error) {
		if n++; n%256 == 0 || n == 1 {
			if err := ctx.Err(); err != nil {
				return trace.Turn{}, err
			}
		}
		t, err := src()
		if err == io.EOF && ctx.Err() != nil {
			return t, ctx.Err()
		}
		return t, err
	}
}

// batchSize is the number of turns read before they are handed to the
// policies.
const batchSize = 4096

// Replay runs every policy over the turns of src and returns their results
// in the order given. A policy that breaks the cache rules, or a malformed
// trace, is an error: no partial result is returned.
func Replay(src Source, runs []Named, opt Options) ([]Result, error) {
	if err := opt.Model.Validate(); err != nil {
		return nil, err
	}
	if err := latency.CheckSLOMs(opt.SLOMs); err != nil {
		return nil, fmt.Errorf("SLO (--slo-ms): %w", err)
	}
	states := make([]*cache.State, len(runs))
	for i := range runs {
		s, err := cache.New(opt.Params)
		if err != nil {
			return nil, err
		}
		states[i] = s
	}
	results := make([]Result, len(runs))
	for i := range runs {
		results[i] = Result{Name: runs[i].Name, Metrics: metrics.New(opt.Xi, opt.Model, opt.SLOMs)}
	}
	n := 0
	// A batch starts small and grows to batchSize by append (once: batches
	// are recycled), so replaying many tiny traces (check) allocates
	// little.
	readErr, errs := fanout.Broadcast(len(runs), func() *[]trace.Turn { b := make([]trace.Turn, 0, 64); return &b },
		func(b *[]trace.Turn) (int, bool, error) {
			*b = (*b)[:0]
			for len(*b) < batchSize {
				t, err := src()
				if err == io.EOF {
					break
				}
				if err != nil {
					return 0, false, err
				}
				*b = append(*b, t)
			}
			n += len(*b)
			opt.Progress.Report("replay: turns", int64(n), 0)
			return len(*b), len(*b) < batchSize, nil
		},
		func(i int, b *[]trace.Turn) error { return step(states[i], runs[i].Policy, results[i].Metrics, *b) })
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
