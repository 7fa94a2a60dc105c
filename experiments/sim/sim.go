// Package sim runs named policies over a trace file or an in-memory trace:
// it builds each policy from the registry, reads the trace once (streaming
// unless a hindsight policy needs the future) and replays it.
package sim

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// Settings are the instance, policy and measurement settings of a run.
type Settings struct {
	replay.Options
	QHat          float64           // T-LRU's Q̂ in tokens; 0 = running mean
	Threshold     int64             // Threshold-LRU's T, tokens
	PolicyOptions map[string]string // policy-specific key=value settings
}

func (s Settings) config(f *trace.Hindsight) policy.Config {
	return policy.Config{Params: s.Params, QHat: s.QHat, Threshold: s.Threshold, Future: f, Options: s.PolicyOptions}
}

func build(entries []policies.Entry, s Settings, f *trace.Hindsight) ([]replay.Named, error) {
	runs := make([]replay.Named, len(entries))
	for i, e := range entries {
		p, err := e.New(s.config(f))
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", e.Name, err)
		}
		runs[i] = replay.Named{Name: e.Name, Policy: p}
	}
	return runs, nil
}

// NeedsFuture reports whether any of entries reads the future.
func NeedsFuture(entries []policies.Entry) bool {
	for _, e := range entries {
		if e.Hindsight {
			return true
		}
	}
	return false
}

// Trace replays an in-memory trace.
func Trace(tr *trace.Trace, entries []policies.Entry, s Settings) ([]replay.Result, error) {
	var f *trace.Hindsight
	if NeedsFuture(entries) {
		f = trace.NewHindsight(tr.Turns, tr.Conversations())
	}
	runs, err := build(entries, s, f)
	if err != nil {
		return nil, err
	}
	return replay.Replay(replay.SliceSource(tr.Turns), runs, s.Options)
}

// File replays the canonical trace at path ("-" for standard input),
// streaming it when no policy needs the future.
func File(path string, entries []policies.Entry, s Settings) ([]replay.Result, error) {
	f, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Reader(f, path, entries, s)
}

// Reader replays a canonical trace from r (named name in errors), streaming.
func Reader(r io.Reader, name string, entries []policies.Entry, s Settings) ([]replay.Result, error) {
	if NeedsFuture(entries) {
		tr, err := trace.ReadAll(r, name)
		if err != nil {
			return nil, err
		}
		return Trace(tr, entries, s)
	}
	runs, err := build(entries, s, nil)
	if err != nil {
		return nil, err
	}
	rd := trace.NewReader(r, name)
	return replay.Replay(func() (trace.Turn, error) { return rd.Next() }, runs, s.Options)
}
