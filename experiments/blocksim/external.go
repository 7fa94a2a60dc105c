package blocksim

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
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
	// Inputs are the files the run reads (traces, schedules): an
	// EmitSchedule file that is one of them is refused.
	Inputs []string
	// Context is the run's context (nil: context.Background()): its end
	// stops the replay with its error and leaves the EmitSchedule files
	// as they were.
	Context context.Context
}

// ReplayExternal is Replay of every policy in entries at every capacity
// (tokens), with the schedules of ext scored and, if asked, the policies'
// victims written as schedules.
func ReplayExternal(src blocktrace.Source, entries []prefixcache.Entry, capacities []int64, opt Options, ext External) (_ []Result, _ Ideal, err error) {
	fin := ext.Finishers
	if fin == nil {
		fin = &blockext.Finishers{}
	}
	defer func() {
		if err != nil {
			fin.Abort() // the run's error is the one line to show
			return
		}
		err = fin.Finish()
	}()
	runs := SweepRuns(entries, capacities)
	var recs []*blockext.Recorder
	var files []*atomicfile.File // whole or nothing: committed after the replay
	ctx := ext.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if ext.EmitSchedule != "" {
		if len(capacities) != 1 {
			return nil, Ideal{}, fmt.Errorf("--emit-schedule: give one capacity (a schedule is for one cache size)")
		}
		names := make([]string, len(runs))
		for i := range runs {
			names[i] = runs[i].Name
		}
		paths, err := schedule.Paths(ext.EmitSchedule, names)
		if err != nil {
			return nil, Ideal{}, fmt.Errorf("--emit-schedule: %w", err)
		}
		for _, p := range paths {
			if err := atomicfile.RefuseInput(p, ext.Inputs...); err != nil {
				return nil, Ideal{}, fmt.Errorf("--emit-schedule: %w", err)
			}
		}
		for i := range runs {
			f, err := atomicfile.Create(ctx, paths[i])
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
				if _, ok := p.(prefixcache.Engine); ok {
					return nil, option.Errorf("emit-schedule", "%s is an engine's own cache, not evictions of prefix-tree leaves: no schedule to write", names[i])
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
	if opt.Bulk != nil {
		opt.Bulk = bulkWithContext(ctx, opt.Bulk)
	}
	if opt.Objects != nil {
		opt.Objects = bulkWithContext(ctx, opt.Objects)
	}
	res, ideal, err := Replay(withContext(ctx, src), runs, opt)
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

// bulkWithContext is withContext for a Bulk or ObjectBulk reader: ctx is
// looked at before every batch.
func bulkWithContext[T any](ctx context.Context, bulk func([]T, int) ([]T, error)) func([]T, int) ([]T, error) {
	return func(dst []T, n int) ([]T, error) {
		if err := ctx.Err(); err != nil {
			return dst, err
		}
		dst, err := bulk(dst, n)
		if err == io.EOF && ctx.Err() != nil {
			return dst, ctx.Err()
		}
		return dst, err
	}
}

// withContext returns src stopped by ctx: once ctx is done (a signal) it
// returns ctx's error instead of the next request.
func withContext(ctx context.Context, src blocktrace.Source) blocktrace.Source {
	n := 0
	return func() (blocktrace.Request, error) {
		if n++; n%256 == 0 || n == 1 {
			if err := ctx.Err(); err != nil {
				return blocktrace.Request{}, err
			}
		}
		r, err := src()
		if err == io.EOF && ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, err
	}
}
