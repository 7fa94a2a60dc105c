package sim

import (
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/internal/option"
)

// errSeedsTrace is why --seeds is refused with a --trace file.
const errSeedsTrace = "for the embedded workload only (a --trace file has no seed)"

// seeds replays the embedded workload once per seed of --seeds (two at a
// time) and returns the summary of experiments/seeds.
func (c *Command) seeds(entries []policies.Entry, s Settings) (any, []report.Table, error) {
	list, err := seeds.Parse(c.Seeds, c.Seed)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case c.Trace != "":
		return nil, nil, option.Errorf("seeds", errSeedsTrace)
	case c.Plot != "":
		return nil, nil, option.Errorf("seeds", "not with --plot (one CDF per seed; run the seed you want to draw)")
	case c.Emit != "" || len(s.Schedules) > 0:
		return nil, nil, option.Errorf("seeds", "not with --emit-schedule or --schedule (schedules belong to one seed's trace)")
	}
	s.Progress = nil
	label := c.Workload.Label()
	if len(list) == 1 {
		label = c.TraceLabel()
	}
	per, err := seeds.Run(list, 2, func(seed uint64) (seeds.Output, error) {
		tr, err := c.workloadTrace(seed)
		if err != nil {
			return seeds.Output{}, err
		}
		results, err := Trace(tr, entries, s)
		if err != nil {
			return seeds.Output{}, err
		}
		doc, tables, err := Report(results, s, c.labels(label))
		return seeds.Output{Doc: doc, Tables: tables}, err
	})
	return c.summary(list, per, err)
}

// sweep replays the trace (or the embedded workload, per seed of --seeds)
// once per capacity of caps and returns SweepReport, or the summary over
// seeds; --plot draws each metric against capacity.
func (c *Command) sweep(entries []policies.Entry, s Settings, caps []int64) (any, []report.Table, error) {
	if c.Emit != "" || len(s.Schedules) > 0 {
		return nil, nil, option.Errorf("capacities", "not with --emit-schedule or --schedule (a schedule belongs to one capacity)")
	}
	list := []uint64{c.Seed}
	if c.Seeds != "" {
		var err error
		if list, err = seeds.Parse(c.Seeds, c.Seed); err != nil {
			return nil, nil, err
		}
		if c.Trace != "" {
			return nil, nil, option.Errorf("seeds", errSeedsTrace)
		}
		if c.Plot != "" && len(list) > 1 {
			return nil, nil, option.Errorf("seeds", "not with --plot (one figure per seed; run the seed you want to draw)")
		}
	}
	// Several seeds run two at a time already; one seed runs two
	// capacities at a time instead.
	workers, label := 2, c.TraceLabel()
	if len(list) > 1 {
		workers, label = 1, c.Workload.Label()
		s.Progress = nil // seeds run two at a time: their counts would mix
	}
	var sweeps []Sweep
	per, err := seeds.Run(list, 2, func(seed uint64) (seeds.Output, error) {
		var sw Sweep
		var err error
		if c.Trace != "" {
			if sw, err = SweepFile(c.Trace, entries, s, caps, workers); err != nil {
				return seeds.Output{}, err
			}
		} else {
			tr, err := c.workloadTrace(seed)
			if err != nil {
				return seeds.Output{}, err
			}
			if sw, err = CapacitySweep(tr, entries, s, caps, workers); err != nil {
				return seeds.Output{}, err
			}
		}
		if len(list) == 1 {
			sweeps = append(sweeps, sw)
		}
		doc, tables, err := SweepReport(sw, s, c.labels(label))
		return seeds.Output{Doc: doc, Tables: tables}, err
	})
	if err == nil && c.Plot != "" {
		err = SaveSweepPlots(c.Plot, sweeps[0], label)
	}
	return c.summary(list, per, err)
}

// summary returns seeds.Summarize of the outputs per seed of list (one
// seed: its output), or err.
func (c *Command) summary(list []uint64, per []seeds.Output, err error) (any, []report.Table, error) {
	if err != nil {
		return nil, nil, err
	}
	out, err := seeds.Summarize(list, per, c.Format)
	if err != nil {
		return nil, nil, err
	}
	return out.Doc, out.Tables, nil
}
