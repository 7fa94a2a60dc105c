// Package policy defines the conversation-level eviction policy interface of
// the replay engine and the online policies of the tail-latency paper: LRU,
// FIFO, LFU, Threshold-LRU and T-LRU. The hindsight policies, which read the
// future of the trace, are in package belady.
//
// A policy is called after every turn, once the turn has been served and its
// conversation's history has grown, and decides the cached amount of every
// conversation through a *cache.State, which enforces the model's rules.
// Adding a policy means implementing Policy (often by giving Rules to
// Ranked) and adding one line to the registry in experiments/policies.
package policy

import (
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Policy decides the cache after each turn.
type Policy interface {
	// Update is called right after turn t was served: s.Begin has grown
	// the conversation's history to include t's prompt and response. It may
	// set the served conversation's amount (up to s.MaxServed()) and shrink
	// others, and must leave s.Total() ≤ s.Capacity().
	Update(s *cache.State, t trace.Turn) error
}

// Config is what the engine tells a policy when it builds one. Lengths are
// in tokens.
type Config struct {
	// Params are the instance's capacity C, block size B, threshold ξ and
	// caching mode.
	instance.Params
	// QHat is T-LRU's estimate of the next prompt length in tokens; 0
	// means auto: the running mean of the prompt lengths seen so far.
	QHat float64
	// Threshold is Threshold-LRU's T: conversations with a shorter history
	// (tokens) are not cached.
	Threshold int64
	// Future is the hindsight index of the trace; nil when the trace is
	// streamed. Hindsight policies need it.
	Future *trace.Hindsight
	// Options holds policy-specific settings given as key=value on the
	// command line (e.g. "belief=bayes").
	Options map[string]string
}

// DefaultThreshold is Threshold-LRU's default T, tokens (the paper's 1024).
const DefaultThreshold = 1024

// Factory builds a policy from a configuration.
type Factory func(cfg Config) (Policy, error)
