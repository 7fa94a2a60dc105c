package blocksim

import (
	"context"
	"errors"
	"fmt"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/schedule"
)

// External are the block level's doors for policies written outside
// tailbound (package blockext).
type External struct {
	// Schedules are block schedules scored at every capacity after the
	// policies, each named "schedule:" and its file name.
	Schedules []*blockext.Schedule
	// EmitSchedule, when not "", is the file each policy's victims are
	// written to as a block schedule (one capacity only); with several
	// policies, one file each at schedule.Path(EmitSchedule, name).
	EmitSchedule string
	// Finishers holds the exec: policies that blockext.Parse built; they
	// are closed after the replay.
	Finishers *blockext.Finishers
}

// ReplayExternal is Replay of every policy in entries at every capacity
// (tokens), with the schedules of ext scored and, if asked, the policies'
// victims written as schedules.
func ReplayExternal(src blocktrace.Source, entries []prefixcache.Entry, capacities []int64, opt Options, ext External) (_ []Result, _ Ideal, err error) {
	fin := ext.Finishers
	if fin == nil {
		fin = &blockext.Finishers{}
	}
	defer func() { err = errors.Join(err, fin.Finish()) }()
	runs := SweepRuns(entries, capacities)
	var recs []*blockext.Recorder
	var files []*atomicfile.File // whole or nothing: committed after the replay
	if ext.EmitSchedule != "" {
		if len(capacities) != 1 {
			return nil, Ideal{}, fmt.Errorf("--emit-schedule: give one capacity (a schedule is for one cache size)")
		}
		for i := range runs {
			f, err := atomicfile.Create(context.Background(), schedule.Path(ext.EmitSchedule, runs[i].Name, len(runs) > 1))
			if err != nil {
				return nil, Ideal{}, fmt.Errorf("--emit-schedule: %w", err)
			}
			defer f.Abort()
			files = append(files, f)
			inner := runs[i].New
			runs[i].New = func(cfg prefixcache.Config) (prefixcache.Policy, error) {
				p, err := inner(cfg)
				if err != nil {
					return nil, err
				}
				r := blockext.NewRecorder(p, f)
				recs = append(recs, r)
				return r, nil
			}
		}
	}
	for _, c := range capacities {
		for _, s := range ext.Schedules {
			runs = append(runs, Run{Name: "schedule:" + s.Name, New: s.Factory(func(p *blockext.Player) { fin.Add(p) }), Capacity: c})
		}
	}
	res, ideal, err := Replay(src, runs, opt)
	if v := (*blockext.Violation)(nil); errors.As(err, &v) {
		return nil, Ideal{}, v // it names its file, line and request
	}
	if err != nil {
		return nil, Ideal{}, err
	}
	for _, r := range recs {
		if err := r.Flush(); err != nil {
			return nil, Ideal{}, fmt.Errorf("--emit-schedule: %w", err)
		}
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return nil, Ideal{}, fmt.Errorf("--emit-schedule: %w", err)
		}
	}
	return res, ideal, nil
}
