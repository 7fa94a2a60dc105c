package sim

import (
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/stackcurve"
	"github.com/tailbound/tailbound/models/trace"
)

// Sweep is a capacity sweep at turn level: Results[i] are the policies'
// results at Capacities[i] tokens.
type Sweep struct {
	Capacities []int64
	Results    [][]replay.Result
}

// stackCurves are the policies whose capacity curve models/stackcurve
// computes in one pass over the trace (stack algorithms; the proof is in
// that package's doc), by name.
var stackCurves = map[string]bool{"lru": true}

// IsStackCurve reports whether a sweep replays e at all capacities in one
// pass (models/stackcurve) instead of once per capacity.
func IsStackCurve(e policies.Entry) bool { return stackCurves[e.Name] }

// CapacitySweep replays tr at every capacity of capacities (tokens; each
// checked by the instance's Validate), the other settings as in s; the
// results are in the order of capacities, and at each capacity in the order
// of entries. Stack policies (IsStackCurve: LRU) are replayed at all
// capacities in one pass (models/stackcurve, with the same figures as a
// replay per capacity); the others once per capacity, at most workers
// capacities at a time, over the same in-memory trace. Schedules and
// EmitSchedule belong to one capacity and are refused.
func CapacitySweep(tr *trace.Trace, entries []policies.Entry, s Settings, capacities []int64, workers int) (Sweep, error) {
	return sweep(replay.SliceSource(tr.Turns), func() (*trace.Trace, error) { return tr, nil }, entries, s, capacities, workers)
}

// SweepFile is CapacitySweep over the canonical trace at path. When the
// one policy is a stack policy the file is streamed through the one-pass curve
// and never held in memory; otherwise it is read once, whole.
func SweepFile(path string, entries []policies.Entry, s Settings, capacities []int64, workers int) (Sweep, error) {
	if len(entries) != 1 || !IsStackCurve(entries[0]) {
		tr, err := trace.ReadFile(path)
		if err != nil {
			return Sweep{}, err
		}
		return CapacitySweep(tr, entries, s, capacities, workers)
	}
	f, err := trace.Open(path)
	if err != nil {
		return Sweep{}, err
	}
	defer f.Close()
	rd := trace.NewParallelReader(f, path, trace.ParseWorkers)
	defer rd.Close()
	return sweep(func() (trace.Turn, error) { return rd.Next() }, nil, entries, s, capacities, workers)
}

// sweep runs a capacity sweep: the stack policies over src in one pass,
// the others per capacity over whole() (which is not called when every
// policy is a stack policy).
func sweep(src replay.Source, whole func() (*trace.Trace, error), entries []policies.Entry, s Settings, capacities []int64, workers int) (Sweep, error) {
	if len(s.Schedules) > 0 || s.EmitSchedule != "" {
		return Sweep{}, fmt.Errorf("capacity sweep: schedules belong to one capacity (run them without a sweep)")
	}
	if workers < 1 {
		workers = 1
	}
	for _, c := range capacities {
		sc := s
		sc.Capacity = c
		if err := sc.Params.Validate(); err != nil {
			return Sweep{}, fmt.Errorf("capacity %d tokens: %w", c, err)
		}
	}
	var stack, rest []policies.Entry
	for _, e := range entries {
		if IsStackCurve(e) {
			stack = append(stack, e)
		} else {
			rest = append(rest, e)
		}
	}
	curves := make([][]replay.Result, len(stack)) // curves[j][i]: stack[j] at capacities[i]
	for j, e := range stack {
		if j > 0 { // a second stack policy needs a second pass
			tr, err := whole()
			if err != nil {
				return Sweep{}, err
			}
			src = replay.SliceSource(tr.Turns)
		}
		src = replay.WithContext(s.ctx(), src) // a signal stops the pass
		src = counted(src, s.Progress, fmt.Sprintf("%s curve, %d capacities: turns", e.Name, len(capacities)))
		// One engine for every capacity, not workers engines: each
		// engine keeps the whole recency list and late store, so a second
		// one cost the long-conversation curve of docs/speed.md 1.09× the
		// CPU time and 1.3× the peak memory of one, for 1.06× the wall
		// time at a load of 7 on 2 cores (the trace reader's goroutines
		// use the second core).
		var err error
		if curves[j], err = stackcurve.LRU(src, e.Name, capacities, s.Options, 1); err != nil {
			return Sweep{}, err // a read error names its file and line
		}
	}
	others := make([][]replay.Result, len(capacities))
	if len(rest) > 0 {
		tr, err := whole()
		if err != nil {
			return Sweep{}, err
		}
		errs := make([]error, len(capacities))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		var mu sync.Mutex
		done := 0
		for i, c := range capacities {
			sc := s
			sc.Capacity, sc.Progress = c, nil
			wg.Add(1)
			sem <- struct{}{}
			go func(i int, sc Settings) {
				defer wg.Done()
				defer func() { <-sem }()
				others[i], errs[i] = Trace(tr, rest, sc)
				mu.Lock()
				done++
				s.Progress.Report("sweep: capacities replayed", int64(done), int64(len(capacities)))
				mu.Unlock()
			}(i, sc)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return Sweep{}, fmt.Errorf("capacity %d tokens: %w", capacities[i], err)
			}
		}
	}
	out := Sweep{Capacities: capacities, Results: make([][]replay.Result, len(capacities))}
	for i := range capacities {
		js, jr := 0, 0
		for _, e := range entries {
			if IsStackCurve(e) {
				out.Results[i] = append(out.Results[i], curves[js][i])
				js++
			} else {
				out.Results[i] = append(out.Results[i], others[i][jr])
				jr++
			}
		}
	}
	return out, nil
}

// progressEvery is how many turns go between two progress reports of a
// curve's pass.
const progressEvery = 1 << 16

// counted returns src reporting to f, when not nil, the turns it has
// given, every progressEvery turns, as what.
func counted(src replay.Source, f progress.Func, what string) replay.Source {
	if f == nil {
		return src
	}
	var n int64
	return func() (trace.Turn, error) {
		t, err := src()
		if err == nil {
			if n++; n%progressEvery == 0 {
				f(what, n, 0)
			}
		}
		return t, err
	}
}

// sweepJSON is the JSON document of a capacity sweep.
type sweepJSON struct {
	Units    string         `json:"units"`
	Settings map[string]any `json:"settings"`
	Baseline string         `json:"baseline,omitempty"`
	Sweep    []sweepPoint   `json:"sweep"`
}

type sweepPoint struct {
	CapacityTokens int64        `json:"capacity_tokens"`
	Policies       []PolicyJSON `json:"policies"`
}

// SweepReport returns the JSON document and tables of a capacity sweep:
// one row per capacity and policy with its hit ratio, TEL and TTFT
// percentiles, and, with a baseline among the policies, each one's relative
// improvement over the baseline at the same capacity.
func SweepReport(sw Sweep, s Settings, l Labels) (any, []report.Table, error) {
	doc := sweepJSON{
		Units:    "lengths in tokens, times in ms, ratios in [0,1]; improvement = (baseline − policy)/baseline at the same capacity",
		Settings: settingsDoc(s, l, "capacities_tokens", sw.Capacities),
		Baseline: l.Baseline,
	}
	main := report.Table{
		Title: fmt.Sprintf("%s: capacity sweep, B=%d tokens, ξ=%.1f tokens (%.1f ms), α=%g ms/token, β=%g ms, SLO %g ms",
			l.Trace, s.BlockSize, s.Xi, s.Model.XiMs(s.Xi), s.Model.AlphaMs, s.Model.BetaMs, s.SLOMs),
		Header: []string{"capacity (tokens)", "policy", "hit ratio", "TEL (tokens)", "TEL (ms)", "mean TTFT (ms)",
			"P50 (ms)", "P90 (ms)", "P95 (ms)", "P99 (ms)", "SLO viol."},
	}
	impr := report.Table{Title: "relative improvement over " + l.Baseline + " at each capacity: (baseline − policy)/baseline",
		Header: append([]string{"capacity (tokens)", "policy"}, ImprovementHeader...)}
	haveBase := false
	for i, c := range sw.Capacities {
		var base *replay.Result
		for j := range sw.Results[i] {
			if sw.Results[i][j].Name == l.Baseline {
				base = &sw.Results[i][j]
			}
		}
		if l.Baseline != "" && base == nil {
			return nil, nil, fmt.Errorf("flag --baseline: policy %q is not among --policies", l.Baseline)
		}
		pt := sweepPoint{CapacityTokens: c}
		for _, r := range sw.Results[i] {
			m := r.Summary
			pj := NewPolicyJSON(r.Name, m.Turns, m, r.Evictions, r.EvictedTokens)
			main.Add(report.CellI(c), report.CellText(r.Name), report.CellF(m.HitRatio, 4),
				report.CellF(m.TELTokens, 1), report.CellF(m.TELMs, 1), report.CellF(m.MeanTTFTMs, 2), report.CellF(m.P50, 2),
				report.CellF(m.P90, 2), report.CellF(m.P95, 2), report.CellF(m.P99, 2),
				report.CellCount(m.Violations, m.ViolationPct))
			if base != nil {
				haveBase = true
				pj.Improvement = metrics.Improvements(base.Summary, m)
				impr.Add(append([]report.Cell{report.CellI(c), report.CellText(r.Name)}, ImprovementRow(pj.Improvement)...)...)
			}
			pt.Policies = append(pt.Policies, pj)
		}
		doc.Sweep = append(doc.Sweep, pt)
	}
	if !haveBase {
		return doc, []report.Table{main}, nil
	}
	return doc, []report.Table{main, impr}, nil
}

// SweepFigures draws each metric of a sweep against capacity, one line
// per policy: hit ratio, TEL (ms), P90 and P99 TTFT (ms), with their file
// stems' suffixes ("", "-tel", "-p90", "-p99").
func SweepFigures(sw Sweep, title string) ([]plots.Figure, []string) {
	metric := []struct {
		suffix, label string
		get           func(metrics.Summary) float64
	}{
		{"", "hit ratio", func(m metrics.Summary) float64 { return m.HitRatio }},
		{"-tel", "TEL (ms)", func(m metrics.Summary) float64 { return m.TELMs }},
		{"-p90", "P90 TTFT (ms)", func(m metrics.Summary) float64 { return m.P90 }},
		{"-p99", "P99 TTFT (ms)", func(m metrics.Summary) float64 { return m.P99 }},
	}
	var figs []plots.Figure
	var suffixes []string
	for _, mt := range metric {
		f := plots.Figure{Title: title + ": " + mt.label + " vs capacity", XLabel: "capacity C (tokens)", YLabel: mt.label}
		if len(sw.Results) > 0 {
			for j, r := range sw.Results[0] {
				s := plots.Series{Name: r.Name}
				for i, c := range sw.Capacities {
					s.X = append(s.X, float64(c))
					s.Y = append(s.Y, mt.get(sw.Results[i][j].Summary))
				}
				f.Series = append(f.Series, s)
			}
		}
		figs = append(figs, f)
		suffixes = append(suffixes, mt.suffix)
	}
	return figs, suffixes
}

// SaveSweepPlots writes SweepFigures: the hit ratio to path, the others to
// path with "-tel", "-p90", "-p99" before its extension.
func SaveSweepPlots(path string, sw Sweep, title string) error {
	figs, suffixes := SweepFigures(sw, title)
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	for i, f := range figs {
		if err := f.Save(stem + suffixes[i] + ext); err != nil {
			return err
		}
	}
	return nil
}
