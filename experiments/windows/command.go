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
	// the window before, its turns' TEL shared between the two by a ramp
	// of weights, steps (--lower-overlap; 0: not).
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
	// Progress (nil: none) is told the windows solved.
	Progress progress.Func

	turns int // the trace's turns, for Progress's total (≤ 0: unknown)
}

// runSLO is Run for --objective slo.
func (c Command) runSLO(ctx context.Context, p instance.Params) (any, []report.Table, error) {
	switch {
	case c.Forced:
		return nil, nil, option.Errorf("forced", "windowed SLO bounds are for optional caching only")
	case c.Shard != "" || c.Slurm > 0 || len(c.Curve) > 0 || c.TargetWidth > 0:
		return nil, nil, option.Errorf("objective", "--objective slo with --windows runs in one process (no --shard, --slurm, --target-width or list of window counts)")
	}
	var mem *trace.Trace
	var err error
	turns := -1
	var src window.TurnReader
	if c.Trace == "" {
		if mem, err = birthdeath.Trace(birthdeath.Default(), c.Seed); err != nil {
			return nil, nil, err
		}
		turns, src = len(mem.Turns), window.NewTurns(mem.Turns)
	} else {
		if c.Windows > 0 {
			if turns, err = countTurns(c.Trace); err != nil {
				return nil, nil, option.Wrap("trace", err)
			}
		}
		f, err := trace.Open(c.Trace)
		if err != nil {
			return nil, nil, option.Wrap("trace", err)
		}
		defer f.Close()
		rd := trace.NewParallelReader(f, c.Trace, 1)
		defer rd.Close()
		src = rd
	}
	size := c.WindowTurns
	if size == 0 {
		size = window.Size(turns, c.Windows)
	}
	b, err := window.RunSLO(ctx, src, p, size, *c.SLO, slo.Options{Progress: c.Progress.Total(windowCount(turns, size))}, nil)
	if err != nil {
		return nil, nil, err
	}
	if !c.PerWindow {
		b.PerWindow = nil
	}
	t := report.Table{Title: fmt.Sprintf("windowed bounds on the fewest SLO violations (more than %d uncached tokens): %d turns in %d windows of %d steps", b.SLOTokens, b.Turns, b.Windows, b.WindowTurns),
		Header: []string{"quantity", "value"}}
	t.Add(report.CellText("lower bound (turns)"), report.CellI(int64(b.Lower)))
	t.Add(report.CellText("upper bound (turns)"), report.CellI(int64(b.Upper)))
	t.Add(report.CellText("relative width (upper − lower)/upper"), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*b.RelativeWidth), b.RelativeWidth))
	t.Add(report.CellText("proven optimal"), report.CellText(fmt.Sprint(b.ProvenOptimal)))
	out := []report.Table{t}
	if len(b.PerWindow) > 0 {
		pw := report.Table{Title: "windows", Header: []string{"window", "first step", "turns", "lower (turns)", "upper (turns)"}}
		for _, f := range b.PerWindow {
			pw.Add(report.CellI(int64(f.Index)), report.CellI(int64(f.Start)), report.CellI(int64(f.Turns)), report.CellI(int64(f.Lower)), report.CellI(int64(f.Upper)))
		}
		out = append(out, pw)
	}
	return b, out, nil
}

// Report is the JSON document of solve --windows: the interval (tokens),
// how it was reached and the settings.
type Report struct {
	*window.Bounds
	// Unit is the unit of lower_bound and upper_bound: tokens of TEL.
	Unit string `json:"unit"`
	// Tried lists the window counts tried under --target-width, with the
	// width each gave (fraction).
	Tried []WidthTry `json:"tried,omitempty"`
	// TargetWidth is --target-width (fraction; 0: none) and TargetMet
	// whether the interval reached it.
	TargetWidth float64 `json:"target_width,omitempty"`
	TargetMet   *bool   `json:"target_met,omitempty"`
	// Settings are the run's settings, as the shard files carry them.
	Settings map[string]string `json:"settings"`
}

// WidthTry is one window count tried under --target-width.
type WidthTry struct {
	Windows       int     `json:"windows"`
	WindowTurns   int     `json:"window_turns"`
	RelativeWidth float64 `json:"relative_width"`
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
	case c.Trace != "" && !c.CapacityGiven:
		return nil, nil, option.Errorf("capacity", "required with --trace (tokens)")
	case (c.Shard != "" || c.Slurm > 0) && c.TargetWidth > 0:
		return nil, nil, option.Errorf("target-width", "not with --shard or --slurm (each shard solves the windows it is given)")
	case c.Shard != "" && c.Slurm > 0:
		return nil, nil, option.Errorf("slurm", "not with --shard")
	case c.Out != "" && c.Shard == "" && c.Slurm == 0:
		return nil, nil, option.Errorf("out", "only with --shard (the shard's result file) or --slurm (the merged output)")
	case c.Slurm < 0:
		return nil, nil, option.Errorf("slurm", "want a number of shards ≥ 1, got %d", c.Slurm)
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
		return c.runSLO(ctx, p)
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
	var mem *trace.Trace
	var err error
	label := c.Trace
	if c.Trace == "" {
		if mem, err = birthdeath.Trace(birthdeath.Default(), c.Seed); err != nil {
			return nil, nil, err
		}
		label = fmt.Sprintf("embedded birth–death workload (seed %d)", c.Seed)
	}
	turns := -1 // unknown
	if mem != nil {
		turns = len(mem.Turns)
	} else if c.Windows > 0 || c.Shard != "" || len(c.Curve) > 0 {
		if turns, err = countTurns(c.Trace); err != nil {
			return nil, nil, option.Wrap("trace", err)
		}
	}
	c.turns = turns
	if len(c.Curve) > 0 {
		settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(capacity, 10),
			"block_size_tokens": strconv.FormatInt(c.Block, 10), "xi_tokens": strconv.FormatFloat(c.Xi, 'g', -1, 64),
			"forced": strconv.FormatBool(c.Forced), "seam_turns": strconv.Itoa(c.SeamTurns), "lower_overlap_turns": strconv.Itoa(c.LowerOverlap)}
		return c.curve(ctx, mem, p, turns, label, settings)
	}
	size := c.WindowTurns
	if size == 0 {
		size = window.Size(turns, c.Windows)
	}
	settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(capacity, 10),
		"block_size_tokens": strconv.FormatInt(c.Block, 10), "xi_tokens": strconv.FormatFloat(c.Xi, 'g', -1, 64),
		"forced": strconv.FormatBool(c.Forced), "seam_turns": strconv.Itoa(c.SeamTurns), "lower_overlap_turns": strconv.Itoa(c.LowerOverlap)}
	if c.Shard != "" {
		settings["window_turns"], settings["turns"] = strconv.Itoa(size), strconv.Itoa(turns)
		f, err := c.shard(ctx, mem, p, size, turns, sh, settings)
		if err != nil {
			return nil, nil, err
		}
		dst := c.Out
		if dst == "" {
			dst = outfile.Stdout
		}
		return nil, nil, outfile.Write(ctx, "out", dst, stdout, f.Write)
	}
	rep := &Report{Unit: "tokens", TargetWidth: c.TargetWidth, Settings: settings}
	for {
		b, err := c.solve(ctx, mem, p, size, nil)
		if err != nil {
			return nil, nil, err
		}
		rep.Bounds = b
		if c.TargetWidth == 0 {
			break
		}
		rep.Tried = append(rep.Tried, WidthTry{Windows: b.Windows, WindowTurns: size, RelativeWidth: b.RelativeWidth})
		met := b.RelativeWidth <= c.TargetWidth
		rep.TargetMet = &met
		if met || b.Windows <= 1 {
			break
		}
		size *= 2
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
	opt := window.Options{Params: p, WindowTurns: size, SeamTurns: c.SeamTurns, LowerOverlap: c.LowerOverlap, PerWindow: true, Mine: mine}
	opt.Progress = c.Progress.Total(windowCount(c.turns, size))
	if mem != nil {
		return window.Run(ctx, window.NewTurns(mem.Turns), opt)
	}
	f, err := trace.Open(c.Trace)
	if err != nil {
		return nil, option.Wrap("trace", err)
	}
	defer f.Close()
	rd := trace.NewParallelReader(f, c.Trace, 1)
	defer rd.Close()
	return window.Run(ctx, rd, opt)
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
	b, err := c.solve(ctx, mem, p, size, sh.Has)
	if err != nil {
		return nil, err
	}
	f := &suite.File{Suite: Name, Options: suite.Options{Seed: c.Seed, Params: settings}, Shard: sh, Points: []int{}, Records: []suite.Record{}}
	for i, start := 0, 0; start < turns; i, start = i+1, start+size {
		f.Grid = append(f.Grid, suite.Point{"window": strconv.Itoa(i), "start_step": strconv.Itoa(start), "turns": strconv.Itoa(min(size, turns-start))})
	}
	for _, w := range b.PerWindow {
		if w.Index >= len(f.Grid) || f.Grid[w.Index]["turns"] != strconv.Itoa(w.Turns) {
			return nil, fmt.Errorf("window %d: %d turns, but the trace counted %d turns before it was read (changed while read?)", w.Index, w.Turns, turns)
		}
		f.Points = append(f.Points, w.Index)
		f.Records = append(f.Records, suite.Record{Point: w.Index, Key: "window", Values: map[string]suite.Num{
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
		figs[r.Point] = window.Figures{Index: idx, Start: start, Turns: n, Lower: r.V("lower_bound_tokens"), Restricted: r.V("restricted_tokens"),
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
	cmd := []string{"solve"}
	for _, a := range c.Given {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if name != "slurm" && name != "shard" && name != "out" && name != "format" {
			cmd = append(cmd, a)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		bin = "tailbound"
	}
	format := c.Format
	if format == "" {
		format = "json"
	}
	return suite.WriteSlurmCommand(stdout, bin, Name, c.Slurm, format, c.Out, cmd)
}

// countTurns counts the non-blank lines of the trace file path (a turn
// each, as trace.Reader reads them) without parsing them: what --windows
// N needs to cut the trace before the one parse.
func countTurns(path string) (int, error) {
	if path == "-" {
		return 0, fmt.Errorf("standard input cannot be counted before it is read: give --window-turns instead (and no --shard)")
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, blank := 0, true
	for {
		m, err := f.Read(buf)
		for _, ch := range buf[:m] {
			switch ch {
			case '\n':
				if !blank {
					n++
				}
				blank = true
			case ' ', '\t', '\r':
			default:
				blank = false
			}
		}
		if err == io.EOF {
			if !blank {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
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
	for _, tr := range r.Tried {
		add(fmt.Sprintf("tried %d windows of %d steps: width", tr.Windows, tr.WindowTurns), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*tr.RelativeWidth), tr.RelativeWidth))
	}
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
