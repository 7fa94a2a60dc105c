// Package windows is 'tailbound solve --windows': the certified interval
// around the TEL optimum of lp/window, from a trace streamed a window at a
// time, whole or as shards whose result files 'tailbound merge' combines
// with the suites' checks, and as a Slurm array job.
package windows

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/outfile"
	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// Name is the "suite" field of a shard's result file, by which merge
// knows it.
const Name = "solve-windows"

// Command is solve --windows as given on the command line, each field a
// flag's value in its units.
type Command struct {
	// Trace is the canonical trace (--trace; "": the embedded birth–death
	// workload of seed Seed).
	Trace string
	Seed  uint64
	// Capacity C and Block B, tokens; CapacityGiven says --capacity was
	// given (required with a trace file).
	Capacity      int64
	CapacityGiven bool
	Block         int64
	// Xi is ξ, tokens; Forced forced caching; Model the latency model
	// (for the settings).
	Xi     float64
	Forced bool
	Model  latency.Model
	// Windows is the number of windows N (--windows), WindowTurns their
	// size in steps instead (--window-turns).
	Windows, WindowTurns int
	// Curve, when not empty, are several window counts (--windows
	// N1,N2,…): the interval at each, and its width drawn to Plot when
	// set (--plot).
	Curve []int
	Plot  string
	// SeamTurns is the half-width of the seams re-solved between windows
	// for the upper bound, steps (--seam-turns; 0: none).
	SeamTurns int
	// LowerOverlap is how far back each window's relaxation reaches into
	// the window before, its turns' TEL (with SLO and pQ: violations)
	// shared between the two by a ramp of weights, steps (--lower-overlap;
	// 0: not).
	LowerOverlap int
	// TargetWidth, when > 0, is the relative width (Upper − Lower)/Upper
	// wanted (--target-width, a fraction): the windows are doubled until
	// the interval is that narrow or one window remains.
	TargetWidth float64
	// PerWindow keeps each window's figures (--per-window).
	PerWindow bool
	// Shard is i/n (--shard): solve only windows w with w mod n = i − 1
	// and write the shard's result file to Out (- or "": stdout).
	Shard, Out string
	// Slurm, when > 0, prints the Slurm array job of that many shards and
	// its merge (--slurm); Given are the flags given, to pass on.
	Slurm int
	Given []string
	// Format is the output format of the merged result in the Slurm job.
	Format string
	// SLO, when set (--objective slo), bounds the fewest SLO violations
	// (turns with more than *SLO uncached tokens) instead of TEL, windows
	// by lp/slo, optional caching only, in one process.
	SLO *int64
	// Percentile, when set (--objective pQ), bounds the lowest Q-th
	// percentile of uncached tokens instead, by windowed SLO intervals at
	// thresholds searched (window.RunPercentile), optional caching only,
	// in one process.
	Percentile *objective.Objective
	// Upper is how hard each window's upper end is searched under
	// --objective slo and pQ (--slo-upper; window.SLOUpper), and
	// LNSWindows the search's budget per upper-end solve under
	// UpperFull, neighbourhoods solved (--slo-lns-windows; 0: lp/slo's
	// default, slo.DefaultLNSWindows). The lower end is the same in
	// every mode.
	Upper      window.SLOUpper
	LNSWindows int
	// MaxProbes bounds the thresholds a percentile's search tries
	// (--max-probes; 0: until the interval closes or no probe narrows
	// it); each probe is a pass over the trace.
	MaxProbes int
	// Taus, when not empty, are the thresholds a percentile probes,
	// tokens, ascending (--taus): a grid fixed in advance instead of the
	// search, each a pass over the trace, which runs as shards too
	// (window.RunPercentileGrid, window.SumGrid).
	Taus []int64
	// Rounds, when > 0, runs a percentile's τ search in rounds of that
	// many thresholds (--rounds; window.RunRounds): in one process, as
	// steps sharing the folder RoundDir (--round-dir: without --shard
	// advance the search, with --shard solve the current round's
	// thresholds on the shard's windows), or as a chain of Slurm jobs
	// (--slurm).
	Rounds   int
	RoundDir string
	// Progress (nil: none) is told the windows solved.
	Progress progress.Func

	traceTurns int // the trace's turns, for Progress's total (≤ 0: unknown)
}

// runPercentile is Run for --objective pQ: the τ search in one process,
// or with --taus a grid of thresholds, in one process or as shards.
func (c Command) runPercentile(ctx context.Context, stdout io.Writer, p instance.Params) (any, []report.Table, error) {
	switch {
	case c.Forced:
		return nil, nil, option.Errorf("forced", "windowed percentile bounds are for optional caching only")
	case c.Trace == "-":
		return nil, nil, option.Errorf("trace", "a percentile's probes read the trace several times: give a file, not standard input")
	case len(c.Taus) > 0 && (c.Rounds > 0 || c.RoundDir != ""):
		return nil, nil, option.Errorf("rounds", "not with --taus (the rounds choose the thresholds)")
	case len(c.Taus) > 0:
		return c.runGrid(ctx, stdout, p)
	case c.Rounds > 0 || c.RoundDir != "":
		return c.runRounds(ctx, stdout, p)
	case c.Shard != "" || c.Slurm > 0:
		return nil, nil, option.Errorf("taus", "--objective %s with --shard or --slurm needs the thresholds given (--taus T1,T2,…) or the search in rounds (--rounds K): the one-process search's probes depend on every window's sums, one at a time", c.Percentile)
	case len(c.Curve) > 0:
		return nil, nil, option.Errorf("objective", "--objective %s with --windows takes one window count (no list of window counts)", c.Percentile)
	case c.MaxProbes < 0:
		return nil, nil, option.Errorf("max-probes", "must be ≥ 0, got %d", c.MaxProbes)
	}
	in, err := c.input(c.Windows > 0)
	if err != nil {
		return nil, nil, err
	}
	mem, turns := in.mem, in.turns
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(mem.Turns), func() {}, nil }
	if mem == nil {
		open = func() (window.TurnReader, func(), error) { return openStream(c.Trace) }
	}
	var b *window.PercentileBounds
	_, tg, err := byWidth(c.windowTurns(turns), c.TargetWidth, func(size int) (int, float64, error) {
		var err error
		b, err = window.RunPercentile(ctx, open, window.PercentileOptions{SLO: c.sloOptions(p, size), Objective: *c.Percentile, MaxProbes: c.MaxProbes})
		if err != nil {
			return 0, 0, err
		}
		return b.Windows, b.RelativeWidth, nil
	})
	if err != nil {
		return nil, nil, err
	}
	t := report.Table{Title: fmt.Sprintf("windowed bounds on the lowest %s of uncached tokens (rank %d of %d turns): %d windows of %d steps, seams ±%d steps, %d probes%s%s", c.Percentile, b.Rank, b.Turns, b.Windows, b.WindowTurns, b.SeamTurns, len(b.Probes), pctOverlapTitle(b.LowerOverlap), upperTitle(b.UpperMode)),
		Header: []string{"quantity", "value"}}
	addPercentileRows(&t, b.PercentileInterval, b.StartLower, b.StartUpper)
	addTried(&t, tg.Tried)
	out := []report.Table{t}
	if c.PerWindow {
		pt := report.Table{Title: "probes (windowed SLO bounds at τ; a probe stops reading once decided)", Header: []string{"τ (tokens)", "sought", "lower (turns)", "upper (turns)", "decided"}}
		for _, pr := range b.Probes {
			pt.Add(report.CellI(pr.Tau), report.CellText(pr.Mode), report.CellI(int64(pr.Lower)), report.CellI(int64(pr.Upper)), report.CellText(pr.Decided))
		}
		out = append(out, pt)
	} else {
		b.Probes = nil
	}
	return &PercentileReport{PercentileBounds: b, Target: tg}, out, nil
}

// PercentileReport is the JSON document of solve --windows --objective pQ
// searched in one process: the interval (tokens) and, under
// --target-width, how it was reached.
type PercentileReport struct {
	*window.PercentileBounds
	Target
}

// runSLO is Run for --objective slo: in one process, as one shard
// (--shard), or as a Slurm array (--slurm). A shard solves its windows
// and the seam after each (which needs the next window's restriction, solved
// again by the shard), so the shards' figures add up to the one process's.
func (c Command) runSLO(ctx context.Context, stdout io.Writer, p instance.Params) (any, []report.Table, error) {
	switch {
	case c.Forced:
		return nil, nil, option.Errorf("forced", "windowed SLO bounds are for optional caching only")
	case len(c.Curve) > 0:
		return nil, nil, option.Errorf("objective", "--objective slo with --windows takes one window count (no list of window counts)")
	}
	if c.Slurm > 0 {
		return nil, nil, c.slurm(stdout)
	}
	in, err := c.input(c.Windows > 0 || c.Shard != "")
	if err != nil {
		return nil, nil, err
	}
	mem, turns, label := in.mem, in.turns, in.label
	size := c.windowTurns(turns)
	if c.Shard != "" {
		sh, err := suite.ParseShard(c.Shard)
		if err != nil {
			return nil, nil, err
		}
		settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(p.Capacity, 10),
			"block_size_tokens": strconv.FormatInt(p.BlockSize, 10), "objective": "slo", "slo_tokens": strconv.FormatInt(*c.SLO, 10),
			"window_turns": strconv.Itoa(size), "seam_turns": strconv.Itoa(c.SeamTurns), "turns": strconv.Itoa(turns)}
		c.upperSettings(settings)
		if c.LowerOverlap > 0 { // absent at 0, so the files without it are as before
			settings["lower_overlap_turns"] = strconv.Itoa(c.LowerOverlap)
		}
		f, err := c.sloShard(ctx, mem, p, size, turns, sh, settings)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, c.writeShard(ctx, stdout, f)
	}
	var b *window.SLOBounds
	_, tg, err := byWidth(size, c.TargetWidth, func(size int) (int, float64, error) {
		src, done, err := c.turns(mem, -1)
		if err != nil {
			return 0, 0, err
		}
		defer done()
		so := c.sloOptions(p, size)
		so.SLOTokens, so.PerWindow, so.Solver.Progress = *c.SLO, true, c.Progress.Total(windowCount(turns, size))
		if b, err = window.RunSLOWith(ctx, src, so); err != nil {
			return 0, 0, err
		}
		return b.Windows, b.RelativeWidth, nil
	})
	if err != nil {
		return nil, nil, err
	}
	_, tables := sloOutput(b, c.PerWindow)
	addTried(&tables[0], tg.Tried)
	return &SLOReport{SLOBounds: b, Target: tg}, tables, nil
}

// SLOReport is the JSON document of solve --windows --objective slo in one
// process: the interval (turns) and, under --target-width, how it was
// reached.
type SLOReport struct {
	*window.SLOBounds
	Target
}

// sloOptions are the windows' settings under --objective slo and pQ
// (params p, windows of size steps): the seams, the lower overlap and how
// hard each window's upper end is searched.
func (c Command) sloOptions(p instance.Params, size int) window.SLOOptions {
	return window.SLOOptions{Params: p, WindowTurns: size, SeamTurns: c.SeamTurns, LowerOverlap: c.LowerOverlap, Upper: c.Upper, Solver: slo.Options{LNSWindows: c.LNSWindows}}
}

// upperSettings adds to a shard file's settings how hard the upper ends
// were searched, when not by default (--slo-upper full, lp/slo's own
// budget), so that merge refuses shards of other modes or budgets and
// the default's files stay as they were: slo_upper (its name) and
// slo_lns_windows (neighbourhoods per solve).
func (c Command) upperSettings(settings map[string]string) {
	if c.Upper != window.UpperFull {
		settings["slo_upper"] = c.Upper.String()
	}
	if c.LNSWindows != 0 {
		settings["slo_lns_windows"] = strconv.Itoa(c.LNSWindows)
	}
}

// upperMode is the upper ends' mode a merged file's settings name
// (slo_upper; absent: full), as SLOBounds.UpperMode gives it: empty for
// full.
func upperMode(f *suite.File) (string, error) {
	v, ok := f.Options.Params["slo_upper"]
	if !ok {
		return "", nil
	}
	u, err := window.ParseSLOUpper(v)
	if err != nil {
		return "", fmt.Errorf("%s: setting slo_upper: %w", Name, err)
	}
	if u == window.UpperFull {
		return "", nil
	}
	return u.String(), nil
}

// upperTitle is what a title says of the upper ends' mode m (empty:
// full, said nothing of, as before the modes).
func upperTitle(m string) string {
	if m == "" {
		return ""
	}
	return ", upper ends " + m + " (--slo-upper)"
}

// turns opens the trace (or the embedded one, mem) as a TurnReader of its
// first limit turns (< 0: all); done closes it.
func (c Command) turns(mem *trace.Trace, limit int) (window.TurnReader, func(), error) {
	if mem != nil {
		return &firstTurns{src: window.NewTurns(mem.Turns), left: limit}, func() {}, nil
	}
	rd, done, err := openStream(c.Trace)
	if err != nil {
		return nil, nil, err
	}
	return &firstTurns{src: rd, left: limit}, done, nil
}

// writeShard writes a shard's result file f to --out (standard output
// when not given).
func (c Command) writeShard(ctx context.Context, stdout io.Writer, f *suite.File) error {
	dst := c.Out
	if dst == "" {
		dst = outfile.Stdout
	}
	return outfile.Write(ctx, "out", dst, stdout, f.Write)
}

// sloOutput is the document and tables of windowed SLO bounds b, with
// each window's figures when perWindow.
func sloOutput(b *window.SLOBounds, perWindow bool) (any, []report.Table) {
	if !perWindow {
		b.PerWindow = nil
	}
	t := report.Table{Title: fmt.Sprintf("windowed bounds on the fewest SLO violations (more than %d uncached tokens): %d turns in %d windows of %d steps, seams ±%d steps (at most half a window), %s%s", b.SLOTokens, b.Turns, b.Windows, b.WindowTurns, b.SeamTurns, overlapTitle(b.LowerOverlap), upperTitle(b.UpperMode)),
		Header: []string{"quantity", "value"}}
	t.Add(report.CellText("lower bound (turns)"), report.CellI(int64(b.Lower)))
	t.Add(report.CellText("upper bound (turns)"), report.CellI(int64(b.Upper)))
	t.Add(report.CellText("relative width (upper − lower)/upper"), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*b.RelativeWidth), b.RelativeWidth))
	t.Add(report.CellText("proven optimal"), report.CellText(fmt.Sprint(b.ProvenOptimal)))
	out := []report.Table{t}
	if len(b.PerWindow) > 0 {
		pw := report.Table{Title: "windows (their times, seconds, in the JSON)", Header: []string{"window", "first step", "turns", "lower (turns)", "restricted (turns)", "seam gain (turns)", "upper (turns)"}}
		for _, f := range b.PerWindow {
			lower := report.CellI(int64(f.Lower))
			if f.LowerWeighted != nil { // its weighted share, 4 decimals (exact in the JSON)
				lower = report.CellF(*f.LowerWeighted, 4)
			}
			pw.Add(report.CellI(int64(f.Index)), report.CellI(int64(f.Start)), report.CellI(int64(f.Turns)), lower,
				report.CellI(int64(f.Restricted)), report.CellI(int64(f.SeamGain)), report.CellI(int64(f.Upper)))
		}
		out = append(out, pw)
	}
	return b, out
}

// overlapTitle is what a windowed SLO or pQ title says of its lower
// overlap of back steps.
func overlapTitle(back int) string {
	if back == 0 {
		return "no lower overlap"
	}
	return fmt.Sprintf("lower overlap %d steps (weighted LP bounds, their sum rounded up)", back)
}

// overlapSetting is the lower overlap, steps, that a merged result file of
// windows of size steps names (its setting lower_overlap_turns, absent: 0),
// clamped to a window as the run clamps it.
func overlapSetting(f *suite.File, size int) (int, error) {
	v, ok := f.Options.Params["lower_overlap_turns"]
	if !ok {
		return 0, nil
	}
	back, err := strconv.Atoi(v)
	if err != nil || back < 1 {
		return 0, fmt.Errorf("%s: setting lower_overlap_turns %q: want a whole number of steps ≥ 1", Name, v)
	}
	return min(back, size), nil
}

// pctOverlapTitle is what a percentile's title says of its lower overlap
// of back steps (nothing at 0, as before the overlap).
func pctOverlapTitle(back int) string {
	if back == 0 {
		return ""
	}
	return ", " + overlapTitle(back)
}

// sloShard solves the SLO bounds of shard sh's windows (consecutive, as
// GridWindows assigns them), reading the trace up to its last window, and
// returns its result file.
func (c Command) sloShard(ctx context.Context, mem *trace.Trace, p instance.Params, size, turns int, sh suite.Shard, settings map[string]string) (*suite.File, error) {
	nw := (turns + size - 1) / size
	order := GridWindows(nw, sh.N)
	point := make([]int, nw)
	last := -1
	for pt, w := range order {
		point[w] = pt
		if sh.Has(pt) {
			last = max(last, w)
		}
	}
	// The seam after a window needs the next window's restriction, so the
	// shard reads one window past its last.
	src, done, err := c.turns(mem, min(turns, (last+2)*size))
	if err != nil {
		return nil, err
	}
	defer done()
	f := &suite.File{Suite: Name, Options: suite.Options{Seed: c.Seed, Params: settings}, Shard: sh, Points: []int{}, Records: []suite.Record{}}
	for _, w := range order {
		start := w * size
		f.Grid = append(f.Grid, suite.Point{"window": strconv.Itoa(w), "start_step": strconv.Itoa(start), "turns": strconv.Itoa(min(size, turns-start))})
	}
	mine := func(idx int) bool { return idx < nw && sh.Has(point[idx]) }
	so := c.sloOptions(p, size)
	so.SLOTokens, so.PerWindow, so.Mine = *c.SLO, true, mine
	b, err := window.RunSLOWith(ctx, src, so)
	if err != nil {
		return nil, err
	}
	for _, fg := range b.PerWindow {
		if f.Grid[point[fg.Index]]["turns"] != strconv.Itoa(fg.Turns) {
			return nil, fmt.Errorf("window %d: %d turns, but the trace counted %d turns before it was read (changed while read?)", fg.Index, fg.Turns, turns)
		}
		f.Points = append(f.Points, point[fg.Index])
		vals := map[string]suite.Num{
			"lower_bound_turns": suite.Num(fg.Lower), "restricted_turns": suite.Num(fg.Restricted), "seam_gain_turns": suite.Num(fg.SeamGain),
			"upper_bound_turns": suite.Num(fg.Upper), "seconds": suite.Num(fg.Seconds)}
		if fg.LowerWeighted != nil {
			vals["lower_bound_weighted_turns"] = suite.Num(*fg.LowerWeighted) // a multiple of 1/1024: written exactly
		}
		f.Records = append(f.Records, suite.Record{Point: point[fg.Index], Key: "window", Values: vals})
	}
	if f.Digest, err = f.ComputeDigest(); err != nil {
		return nil, err
	}
	return f, nil
}

// renderSLO prints a merged result file of windowed SLO shards as the
// one-process run prints it.
func renderSLO(w io.Writer, f *suite.File, format string) error {
	s, err := strconv.ParseInt(f.Options.Params["slo_tokens"], 10, 64)
	if err != nil {
		return fmt.Errorf("%s: setting slo_tokens %q: %w", Name, f.Options.Params["slo_tokens"], err)
	}
	size, _ := strconv.Atoi(f.Options.Params["window_turns"])
	seam, _ := strconv.Atoi(f.Options.Params["seam_turns"])
	back, err := overlapSetting(f, size)
	if err != nil {
		return err
	}
	figs := make([]window.SLOFigures, len(f.Grid))
	for _, r := range f.Records {
		g := f.Grid[r.Point]
		idx, _ := strconv.Atoi(g["window"])
		start, _ := strconv.Atoi(g["start_step"])
		n, _ := strconv.Atoi(g["turns"])
		for _, m := range []string{"lower_bound_turns", "restricted_turns", "seam_gain_turns", "upper_bound_turns"} {
			if _, ok := r.Values[m]; !ok {
				return fmt.Errorf("%s: record of window %d: value %q missing", Name, idx, m)
			}
		}
		if idx < 0 || idx >= len(figs) || figs[idx].Turns != 0 || n < 1 {
			return fmt.Errorf("%s: grid point %d: window %q is not one of the %d windows, or is there twice", Name, r.Point, g["window"], len(figs))
		}
		figs[idx] = window.SLOFigures{Index: idx, Start: start, Turns: n, Lower: int(r.V("lower_bound_turns")), Restricted: int(r.V("restricted_turns")),
			SeamGain: int(r.V("seam_gain_turns")), Upper: int(r.V("upper_bound_turns"))}
		if v, ok := r.Values["lower_bound_weighted_turns"]; ok {
			w := float64(v)
			figs[idx].LowerWeighted = &w
		}
	}
	b, err := window.SumSLO(figs, size, seam, back)
	if err != nil {
		return err
	}
	b.SLOTokens = s
	if b.UpperMode, err = upperMode(f); err != nil {
		return err
	}
	doc, tables := sloOutput(b, false)
	return report.Emit(w, format, doc, tables...)
}

// Report is the JSON document of solve --windows: the interval (tokens),
// how it was reached and the settings.
type Report struct {
	*window.Bounds
	// Unit is the unit of lower_bound and upper_bound: tokens of TEL.
	Unit string `json:"unit"`
	Target
	// Settings are the run's settings, as the shard files carry them.
	Settings map[string]string `json:"settings"`
}

// Run validates c and solves: it returns the document and tables to print,
// or nil, nil after writing a shard's file or the Slurm job to stdout.
func (c Command) Run(ctx context.Context, stdout io.Writer) (any, []report.Table, error) {
	switch {
	case c.Windows < 0:
		return nil, nil, option.Errorf("windows", "must be ≥ 1, got %d", c.Windows)
	case c.WindowTurns < 0:
		return nil, nil, option.Errorf("window-turns", "must be ≥ 1 steps, got %d", c.WindowTurns)
	case c.Windows > 0 && c.WindowTurns > 0:
		return nil, nil, option.Errorf("window-turns", "give --windows or --window-turns, not both")
	case len(c.Curve) > 0 && (c.Shard != "" || c.Slurm > 0 || c.TargetWidth > 0 || c.WindowTurns > 0):
		return nil, nil, option.Errorf("windows", "a list of window counts is solved in one process, not with --shard, --slurm, --target-width or --window-turns")
	case c.Plot != "" && len(c.Curve) == 0:
		return nil, nil, option.Errorf("plot", "with a list of window counts (--windows N1,N2,…)")
	case c.Windows == 0 && c.WindowTurns == 0 && len(c.Curve) == 0:
		return nil, nil, option.Errorf("windows", "give --windows N or --window-turns W")
	case c.LowerOverlap < 0:
		return nil, nil, option.Errorf("lower-overlap", "must be ≥ 0 steps, got %d", c.LowerOverlap)
	case c.SeamTurns < 0:
		return nil, nil, option.Errorf("seam-turns", "must be ≥ 0 steps, got %d", c.SeamTurns)
	case c.TargetWidth < 0 || c.TargetWidth >= 1:
		return nil, nil, option.Errorf("target-width", "must be a fraction in [0, 1), got %v", c.TargetWidth)
	case c.TargetWidth > 0 && c.Trace == "-":
		return nil, nil, option.Errorf("target-width", "solves the trace again at each window count, and standard input is read once: give a file")
	case c.Trace != "" && !c.CapacityGiven:
		return nil, nil, option.Errorf("capacity", "required with --trace (tokens)")
	case (c.Shard != "" || c.Slurm > 0) && c.TargetWidth > 0:
		return nil, nil, option.Errorf("target-width", "not with --shard or --slurm (each shard solves the windows it is given)")
	case c.Shard != "" && c.Slurm > 0:
		return nil, nil, option.Errorf("slurm", "not with --shard")
	case c.Out != "" && c.Shard == "" && c.Slurm == 0 && c.RoundDir == "":
		return nil, nil, option.Errorf("out", "only with --shard (the shard's result file), --slurm (the merged output) or --round-dir (the search's result)")
	case (c.Rounds != 0 || c.RoundDir != "") && c.Percentile == nil:
		return nil, nil, option.Errorf("rounds", "with --objective pQ only (the τ search of a percentile)")
	case c.Slurm < 0:
		return nil, nil, option.Errorf("slurm", "want a number of shards ≥ 1, got %d", c.Slurm)
	case c.SLO == nil && c.Percentile == nil && (c.Upper != window.UpperFull || c.LNSWindows != 0):
		return nil, nil, option.Errorf("slo-upper", "with --objective slo or pQ only (a TEL window is solved exactly by flow)")
	case c.LNSWindows < 0:
		return nil, nil, option.Errorf("slo-lns-windows", "must be ≥ 0 neighbourhoods per solve, got %d", c.LNSWindows)
	case c.LNSWindows > 0 && c.Upper != window.UpperFull:
		return nil, nil, option.Errorf("slo-lns-windows", "with --slo-upper full only (--slo-upper %s runs no search)", c.Upper)
	}
	capacity := c.Capacity
	if c.Trace == "" && !c.CapacityGiven {
		capacity = sim.DefaultWorkloadCapacity
	}
	if err := instance.CheckFlags("capacity", capacity, c.Block); err != nil {
		return nil, nil, err
	}
	p := instance.Params{Capacity: capacity, BlockSize: c.Block, Xi: c.Xi, Forced: c.Forced}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if c.SLO != nil {
		return c.runSLO(ctx, stdout, p)
	}
	if c.Percentile != nil {
		return c.runPercentile(ctx, stdout, p)
	}
	if c.Slurm > 0 {
		return nil, nil, c.slurm(stdout)
	}
	sh := suite.Shard{I: 1, N: 1}
	if c.Shard != "" {
		var err error
		if sh, err = suite.ParseShard(c.Shard); err != nil {
			return nil, nil, err
		}
	}
	in, err := c.input(c.Windows > 0 || c.Shard != "" || len(c.Curve) > 0)
	if err != nil {
		return nil, nil, err
	}
	mem, turns, label := in.mem, in.turns, in.label
	c.traceTurns = turns
	if len(c.Curve) > 0 {
		settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(capacity, 10),
			"block_size_tokens": strconv.FormatInt(c.Block, 10), "xi_tokens": strconv.FormatFloat(c.Xi, 'g', -1, 64),
			"forced": strconv.FormatBool(c.Forced), "seam_turns": strconv.Itoa(c.SeamTurns), "lower_overlap_turns": strconv.Itoa(c.LowerOverlap)}
		return c.curve(ctx, mem, p, turns, label, settings)
	}
	size := c.windowTurns(turns)
	settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(capacity, 10),
		"block_size_tokens": strconv.FormatInt(c.Block, 10), "xi_tokens": strconv.FormatFloat(c.Xi, 'g', -1, 64),
		"forced": strconv.FormatBool(c.Forced), "seam_turns": strconv.Itoa(c.SeamTurns), "lower_overlap_turns": strconv.Itoa(c.LowerOverlap)}
	if c.Shard != "" {
		settings["window_turns"], settings["turns"] = strconv.Itoa(size), strconv.Itoa(turns)
		f, err := c.shard(ctx, mem, p, size, turns, sh, settings)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, c.writeShard(ctx, stdout, f)
	}
	rep := &Report{Unit: "tokens", Settings: settings}
	size, rep.Target, err = byWidth(size, c.TargetWidth, func(size int) (int, float64, error) {
		b, err := c.solve(ctx, mem, p, size, nil)
		if err != nil {
			return 0, 0, err
		}
		rep.Bounds = b
		return b.Windows, b.RelativeWidth, nil
	})
	if err != nil {
		return nil, nil, err
	}
	settings["window_turns"] = strconv.Itoa(size)
	if !c.PerWindow {
		rep.PerWindow = nil
	}
	return rep, rep.Tables(), nil
}

// solve solves the windows of size steps that mine picks (nil: all),
// reading the trace once.
func (c Command) solve(ctx context.Context, mem *trace.Trace, p instance.Params, size int, mine func(int) bool) (*window.Bounds, error) {
	return c.solveUpTo(ctx, mem, p, size, -1, mine)
}

// solveUpTo is solve reading only the trace's first limit turns (< 0:
// all).
func (c Command) solveUpTo(ctx context.Context, mem *trace.Trace, p instance.Params, size, limit int, mine func(int) bool) (*window.Bounds, error) {
	opt := window.Options{Params: p, WindowTurns: size, SeamTurns: c.SeamTurns, LowerOverlap: c.LowerOverlap, PerWindow: true, Mine: mine}
	opt.Progress = c.Progress.Total(windowCount(c.traceTurns, size))
	if mem != nil {
		return window.Run(ctx, &firstTurns{src: window.NewTurns(mem.Turns), left: limit}, opt)
	}
	rd, done, err := openStream(c.Trace)
	if err != nil {
		return nil, err
	}
	defer done()
	return window.Run(ctx, &firstTurns{src: rd, left: limit}, opt)
}

// firstTurns reads the first left turns of src (all when left < 0).
type firstTurns struct {
	src  window.TurnReader
	left int
}

// Next returns src's next turn, io.EOF once left turns are read.
func (r *firstTurns) Next() (trace.Turn, error) {
	if r.left == 0 {
		return trace.Turn{}, io.EOF
	}
	r.left--
	return r.src.Next()
}

// GridWindows returns the window of each point of the grid of nw windows
// cut into n shards: shard i holds the grid points i−1 mod n (as every
// suite's shard does), and they are consecutive windows — the first nw
// mod n shards take ⌈nw/n⌉ windows, the others ⌊nw/n⌋, in order — so
// that a shard solves the window after its last (for the seam) once, not
// after each of its windows, and reads the trace only up to its windows.
func GridWindows(nw, n int) []int {
	n = max(1, n)
	order := make([]int, nw)
	first := 0 // the first window of shard s
	for s := 0; s < n; s++ {
		for k, p := 0, s; p < nw; k, p = k+1, p+n {
			order[p] = first + k
		}
		first += (nw - s + n - 1) / n
	}
	return order
}

// windowCount is the number of windows of size steps over turns turns (0
// when turns ≤ 0: unknown).
func windowCount(turns, size int) int64 {
	return int64(max(0, (turns+size-1)/size))
}

// metrics are the values of a window's record in a shard file, tokens and
// seconds.
var metrics = []string{"lower_bound_tokens", "restricted_tokens", "seam_gain_tokens", "upper_bound_tokens", "base_tel_tokens", "seconds"}

// shard solves shard sh's windows and returns its result file: the grid is
// every window (its index, first step and turns), the records the shard's.
func (c Command) shard(ctx context.Context, mem *trace.Trace, p instance.Params, size, turns int, sh suite.Shard, settings map[string]string) (*suite.File, error) {
	nw := (turns + size - 1) / size
	order := GridWindows(nw, sh.N)
	point := make([]int, nw) // grid point of each window
	mineW := make([]bool, nw)
	last := -1 // the shard's last window
	for p, w := range order {
		point[w] = p
		if sh.Has(p) {
			mineW[w], last = true, max(last, w)
		}
	}
	// The shard's windows are consecutive: it reads the trace up to the
	// window after its last (the seam's) and one turn more (which says
	// whether that one is the last: window.Splitter.More) and no further.
	limit := min(turns, (last+2)*size+1)
	b, err := c.solveUpTo(ctx, mem, p, size, limit, func(w int) bool { return w < nw && mineW[w] })
	if err != nil {
		return nil, err
	}
	f := &suite.File{Suite: Name, Options: suite.Options{Seed: c.Seed, Params: settings}, Shard: sh, Points: []int{}, Records: []suite.Record{}}
	for _, w := range order {
		start := w * size
		f.Grid = append(f.Grid, suite.Point{"window": strconv.Itoa(w), "start_step": strconv.Itoa(start), "turns": strconv.Itoa(min(size, turns-start))})
	}
	for _, w := range b.PerWindow {
		if w.Index >= nw || f.Grid[point[w.Index]]["turns"] != strconv.Itoa(w.Turns) {
			return nil, fmt.Errorf("window %d: %d turns, but the trace counted %d turns before it was read (changed while read?)", w.Index, w.Turns, turns)
		}
		f.Points = append(f.Points, point[w.Index])
		f.Records = append(f.Records, suite.Record{Point: point[w.Index], Key: "window", Values: map[string]suite.Num{
			"lower_bound_tokens": suite.Num(w.Lower), "restricted_tokens": suite.Num(w.Restricted), "seam_gain_tokens": suite.Num(w.SeamGain),
			"upper_bound_tokens": suite.Num(w.Upper), "base_tel_tokens": suite.Num(w.BaseTEL), "seconds": suite.Num(w.Seconds)}})
	}
	if f.Digest, err = f.ComputeDigest(); err != nil {
		return nil, err
	}
	return f, nil
}

// Render prints a merged result file of solve --windows shards as the
// one-process run prints it (merge calls it after its checks).
func Render(w io.Writer, f *suite.File, format string) error {
	if f.Suite != Name {
		return fmt.Errorf("result file is %s, not %s", f.Suite, Name)
	}
	if len(f.Points) != len(f.Grid) {
		return fmt.Errorf("%s: result file holds shard %d/%d only; merge the shards first (tailbound merge)", Name, f.Shard.I, f.Shard.N)
	}
	if format == "latex" {
		return fmt.Errorf("flag --format: latex is for the suites; %s prints table|markdown|csv|json", Name)
	}
	if o := f.Options.Params["objective"]; o == "slo" {
		return renderSLO(w, f, format)
	} else if o != "" {
		return renderGrid(w, f, format)
	}
	figs := make([]window.Figures, len(f.Grid))
	for _, r := range f.Records {
		g := f.Grid[r.Point]
		idx, _ := strconv.Atoi(g["window"])
		start, _ := strconv.Atoi(g["start_step"])
		n, _ := strconv.Atoi(g["turns"])
		for _, m := range metrics {
			if _, ok := r.Values[m]; !ok {
				return fmt.Errorf("%s: record of window %d: value %q missing", Name, idx, m)
			}
		}
		if idx < 0 || idx >= len(figs) || figs[idx].Turns != 0 || n < 1 {
			return fmt.Errorf("%s: grid point %d: window %q is not one of the %d windows, or is there twice", Name, r.Point, g["window"], len(figs))
		}
		figs[idx] = window.Figures{Index: idx, Start: start, Turns: n, Lower: r.V("lower_bound_tokens"), Restricted: r.V("restricted_tokens"),
			SeamGain: r.V("seam_gain_tokens"), Upper: r.V("upper_bound_tokens"), BaseTEL: r.V("base_tel_tokens"), Seconds: r.V("seconds")}
	}
	size, _ := strconv.Atoi(f.Options.Params["window_turns"])
	b := window.Sum(figs, size)
	b.SeamTurns, _ = strconv.Atoi(f.Options.Params["seam_turns"])
	lo, _ := strconv.Atoi(f.Options.Params["lower_overlap_turns"])
	b.LowerOverlap = max(0, min(lo, size))
	settings := map[string]string{}
	for k, v := range f.Options.Params {
		if k != "turns" {
			settings[k] = v
		}
	}
	b.PerWindow = nil // as the one-process run without --per-window; the merged file (--out) has them
	rep := &Report{Bounds: b, Unit: "tokens", Settings: settings}
	return report.Emit(w, format, rep, rep.Tables()...)
}

// slurm prints the Slurm array job of c.Slurm shards of this command and
// its dependent merge.
func (c Command) slurm(stdout io.Writer) error {
	if c.Trace == "-" {
		return option.Errorf("trace", "a Slurm job reads a file, not standard input")
	}
	return writeSlurm(stdout, Name, c.Given, c.Slurm, c.Format, c.Out)
}

// writeSlurm prints the Slurm array job of n shards of the solve command
// given (its flags as typed, less those of the job itself: --slurm,
// --shard, --out, --format) and its dependent merge, which writes out in
// format (json when empty).
func writeSlurm(stdout io.Writer, suiteName string, given []string, n int, format, out string) error {
	cmd := []string{"solve"}
	for _, a := range given {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if name != "slurm" && name != "shard" && name != "out" && name != "format" {
			cmd = append(cmd, a)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		bin = "tailbound"
	}
	if format == "" {
		format = "json"
	}
	return suite.WriteSlurmCommand(stdout, bin, suiteName, n, format, out, cmd)
}

// countTurns counts the non-blank lines of the trace file path (a turn
// each, as trace.Reader reads them) without parsing them: what --windows
// N needs to cut the trace before the one parse.
func countTurns(path string) (int, error) {
	if path == "-" {
		return 0, fmt.Errorf("standard input cannot be counted before it is read: give --window-turns instead (and no --shard)")
	}
	return blocktail.CountLines(path)
}

// Tables returns the interval as a table (and the windows' figures when
// kept).
func (r *Report) Tables() []report.Table {
	t := report.Table{Title: fmt.Sprintf("windowed TEL bounds: %d turns in %d windows of %d steps, seams ±%d steps (at most half a window), lower overlap %d steps", r.Turns, r.Windows, r.WindowTurns, r.SeamTurns, r.LowerOverlap),
		Header: []string{"quantity", "value"}}
	add := func(name string, v report.Cell) { t.Add(report.CellText(name), v) }
	add("lower bound (tokens)", report.CellF(r.Lower, 3))
	add("upper bound (tokens)", report.CellF(r.Upper, 3))
	add("relative width (upper − lower)/upper", report.CellFracAs(fmt.Sprintf("%.4f%%", 100*r.RelativeWidth), r.RelativeWidth))
	add("proven optimal", report.CellText(fmt.Sprint(r.ProvenOptimal)))
	add("TEL with nothing cached (tokens)", report.CellF(r.BaseTEL, 3))
	addTried(&t, r.Tried)
	out := []report.Table{t}
	if len(r.PerWindow) > 0 {
		p := report.Table{Title: "windows (their times, seconds, in the JSON)", Header: []string{"window", "first step", "turns", "lower (tokens)", "restricted (tokens)", "seam gain (tokens)", "upper (tokens)"}}
		for _, f := range r.PerWindow {
			p.Add(report.CellI(int64(f.Index)), report.CellI(int64(f.Start)), report.CellI(int64(f.Turns)), report.CellF(f.Lower, 3),
				report.CellF(f.Restricted, 3), report.CellF(f.SeamGain, 3), report.CellF(f.Upper, 3))
		}
		out = append(out, p)
	}
	return out
}

// input is the trace a windowed command reads: the embedded workload, held
// in memory, or the file --trace, with its number of turns (-1: not
// counted) and the label its settings name it by.
type input struct {
	mem   *trace.Trace
	turns int
	label string
}

// input loads the embedded workload when no --trace is given, and counts
// the file's turns (a byte scan, no parse) when count is set.
func (c Command) input(count bool) (input, error) {
	if c.Trace == "" {
		mem, err := birthdeath.Trace(birthdeath.Default(), c.Seed)
		if err != nil {
			return input{}, err
		}
		return input{mem: mem, turns: len(mem.Turns), label: fmt.Sprintf("embedded birth–death workload (seed %d)", c.Seed)}, nil
	}
	in := input{turns: -1, label: c.Trace}
	if count {
		n, err := countTurns(c.Trace)
		if err != nil {
			return input{}, option.Wrap("trace", err)
		}
		in.turns = n
	}
	return in, nil
}

// windowTurns is the windows' size, turns: --window-turns, or the trace's
// turns shared among --windows.
func (c Command) windowTurns(turns int) int {
	if c.WindowTurns != 0 {
		return c.WindowTurns
	}
	return window.Size(turns, c.Windows)
}

// addPercentileRows adds a windowed percentile interval's rows to t: its
// ends and width, tokens, whether it is proven, and the bounds the search
// started from, tokens.
func addPercentileRows(t *report.Table, iv window.PercentileInterval, startLower, startUpper int64) {
	t.Add(report.CellText("lower bound (tokens)"), report.CellI(iv.Lower))
	t.Add(report.CellText("upper bound (tokens)"), report.CellI(iv.Upper))
	t.Add(report.CellText("relative width (upper − lower)/upper"), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*iv.RelativeWidth), iv.RelativeWidth))
	t.Add(report.CellText("proven optimal"), report.CellText(fmt.Sprint(iv.ProvenOptimal)))
	t.Add(report.CellText("bounds before any probe (tokens)"), report.CellText(fmt.Sprintf("[%d, %d]", startLower, startUpper)))
}
