// Package sim runs named policies over a trace file or an in-memory trace:
// it builds each policy from the registry, reads the trace once (streaming
// unless a hindsight policy needs the future) and replays it.
package sim

import (
	"context"
	"errors"
	"fmt"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
	"io"
)

// Settings are the instance, policy and measurement settings of a run.
type Settings struct {
	replay.Options
	QHat          float64           // T-LRU's Q̂ in tokens; 0 = running mean
	Threshold     int64             // Threshold-LRU's T, tokens
	PolicyOptions map[string]string // policy-specific key=value settings
	// Schedules are external schedules (models/schedule) scored after
	// the policies, each named "schedule:" and its file name.
	Schedules []*schedule.Schedule
	// EmitSchedule, when not "", is the file each policy's decisions are
	// written to as a decision-form schedule; with several policies, one
	// file each at schedule.Path(EmitSchedule, name).
	EmitSchedule string
	// Inputs are the files the run reads (trace, schedules): an
	// --emit-schedule file that is one of them is refused.
	Inputs []string
	// Context is the run's context (nil: context.Background()): its end
	// stops the replay with its error and leaves the --emit-schedule files
	// as they were.
	Context context.Context
}

// ctx is s.Context, or context.Background() when it is nil.
func (s Settings) ctx() context.Context {
	if s.Context == nil {
		return context.Background()
	}
	return s.Context
}

// wholeTrace reports whether the run needs the trace in memory.
func (s Settings) wholeTrace(entries []policies.Entry) bool {
	return NeedsFuture(entries) || len(s.Schedules) > 0 || s.EmitSchedule != ""
}

func (s Settings) config(f *trace.Hindsight) policy.Config {
	return policy.Config{Params: s.Params, QHat: s.QHat, Threshold: s.Threshold, Future: f, Options: s.PolicyOptions}
}

func build(entries []policies.Entry, s Settings, f *trace.Hindsight) ([]replay.Named, error) {
	runs := make([]replay.Named, len(entries))
	for i, e := range entries {
		p, err := e.New(s.config(f))
		if err != nil {
			return runs[:i], fmt.Errorf("policy %s: %w", e.Name, err) // runs[:i] are closed by the caller
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
func Trace(tr *trace.Trace, entries []policies.Entry, s Settings) (_ []replay.Result, err error) {
	var f *trace.Hindsight
	if NeedsFuture(entries) {
		f = trace.NewHindsight(tr.Turns, tr.Conversations())
	}
	runs, err := build(entries, s, f)
	defer func() { err = closeAll(runs, err) }()
	if err != nil {
		return nil, err
	}
	var recs []*schedule.Recorder
	var files []*atomicfile.File // whole or nothing: committed after the replay
	if s.EmitSchedule != "" {
		names := func(c int) string { return tr.Names[c] }
		policyNames := make([]string, len(runs))
		for i := range runs {
			policyNames[i] = runs[i].Name
		}
		paths, err := schedule.Paths(s.EmitSchedule, policyNames)
		if err != nil {
			return nil, fmt.Errorf("--emit-schedule: %w", err)
		}
		for _, p := range paths {
			if err := atomicfile.RefuseInput(p, s.Inputs...); err != nil {
				return nil, fmt.Errorf("--emit-schedule: %w", err)
			}
		}
		for i := range runs {
			file, err := atomicfile.Create(s.ctx(), paths[i])
			if err != nil {
				return nil, fmt.Errorf("--emit-schedule: %w", err)
			}
			defer file.Abort()
			files = append(files, file)
			r := schedule.NewRecorder(runs[i].Policy, names, file)
			recs = append(recs, r)
			runs[i].Policy = r
		}
	}
	for _, sch := range s.Schedules {
		p, err := sch.Policy(tr)
		if err != nil {
			return nil, err
		}
		runs = append(runs, replay.Named{Name: "schedule:" + sch.Name, Policy: p})
	}
	res, err := replay.Replay(replay.WithContext(s.ctx(), replay.SliceSource(tr.Turns)), runs, s.Options)
	if v := (*schedule.Violation)(nil); errors.As(err, &v) {
		return nil, v // it names its file, line and turn
	}
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		if err := r.Flush(); err != nil {
			return nil, fmt.Errorf("--emit-schedule: %w", err)
		}
		if err := files[i].Commit(); err != nil {
			return nil, fmt.Errorf("--emit-schedule: %w", err)
		}
	}
	return res, nil
}

// closeAll closes the policies that hold resources (external processes)
// and returns the run's error: runErr when the run failed (the policies
// are then aborted, so that its one line stays the only one), else their
// Close errors, each naming its policy.
func closeAll(runs []replay.Named, runErr error) error {
	var errs []error
	for _, r := range runs {
		p := r.Policy
		if rec, ok := p.(*schedule.Recorder); ok {
			p = rec.Inner()
		}
		if a, ok := p.(interface{ Abort() }); ok && runErr != nil {
			a.Abort()
			continue
		}
		if c, ok := p.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	if runErr != nil {
		return runErr
	}
	return errors.Join(errs...)
}

// FileOrWorkload replays the canonical trace at path, or, when path is
// empty, the embedded birth–death workload (birthdeath.Default) of seed.
func FileOrWorkload(path string, seed uint64, entries []policies.Entry, s Settings) ([]replay.Result, error) {
	if path != "" {
		return File(path, entries, s)
	}
	tr, err := birthdeath.Trace(birthdeath.Default(), seed)
	if err != nil {
		return nil, err
	}
	return Trace(tr, entries, s)
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
func Reader(r io.Reader, name string, entries []policies.Entry, s Settings) (_ []replay.Result, err error) {
	if s.wholeTrace(entries) {
		tr, err := trace.ReadAll(r, name)
		if err != nil {
			return nil, err
		}
		return Trace(tr, entries, s)
	}
	runs, err := build(entries, s, nil)
	defer func() { err = closeAll(runs, err) }()
	if err != nil {
		return nil, err
	}
	rd := trace.NewParallelReader(r, name, trace.ParseWorkers)
	defer rd.Close()
	return replay.Replay(replay.WithContext(s.ctx(), func() (trace.Turn, error) { return rd.Next() }), runs, s.Options)
}
