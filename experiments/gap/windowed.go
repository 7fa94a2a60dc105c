package gap

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// WindowSpec is what a windowed solve (solve --windows) is asked.
type WindowSpec struct {
	// Windows is the number of windows N (--windows), WindowTurns their
	// size in steps instead (--window-turns); one of them > 0.
	Windows, WindowTurns int
	// TargetWidth, when > 0, is the relative width (Upper − Lower)/Upper
	// wanted (--target-width): the window count is halved (the windows
	// doubled) until the interval is that narrow or one window remains.
	TargetWidth float64
	// SeamTurns is the half-width of the seams re-solved between windows
	// for the upper bound, steps (--seam-turns; 0: none).
	SeamTurns int
	// PerWindow keeps each window's figures (--per-window).
	PerWindow bool
	// Shard is i/n (--shard): solve only windows w with w mod n = i − 1.
	Shard string
}

// WindowReport is the JSON document of solve --windows: the interval
// (tokens), how it was reached and the settings.
type WindowReport struct {
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
	// Shard is the shard solved ("" for all windows).
	Shard    string         `json:"shard,omitempty"`
	Settings map[string]any `json:"settings"`
}

// WidthTry is one window count tried under --target-width.
type WidthTry struct {
	Windows       int     `json:"windows"`
	WindowTurns   int     `json:"window_turns"`
	RelativeWidth float64 `json:"relative_width"`
}

// windowed is solve --windows: the trace is streamed a window at a time.
func (c SolveCommand) windowed(ctx context.Context) (any, []report.Table, error) {
	w := c.Window
	switch {
	case w.Windows < 0:
		return nil, nil, option.Errorf("windows", "must be ≥ 1, got %d", w.Windows)
	case w.WindowTurns < 0:
		return nil, nil, option.Errorf("window-turns", "must be ≥ 1 steps, got %d", w.WindowTurns)
	case w.Windows > 0 && w.WindowTurns > 0:
		return nil, nil, option.Errorf("window-turns", "give --windows or --window-turns, not both")
	case w.SeamTurns < 0:
		return nil, nil, option.Errorf("seam-turns", "must be ≥ 0 steps, got %d", w.SeamTurns)
	case w.TargetWidth < 0 || w.TargetWidth >= 1:
		return nil, nil, option.Errorf("target-width", "must be a fraction in [0, 1), got %v", w.TargetWidth)
	case c.Relax:
		return nil, nil, option.Errorf("relax", "not with --windows (each window is solved exactly by flow)")
	case c.Schedule != "":
		return nil, nil, option.Errorf("schedule", "not with --windows (the stitched schedule is checked window by window, not written)")
	case c.Solver != "" && c.Solver != "auto" && c.Solver != "flow":
		return nil, nil, option.Errorf("solver", "--windows solves each window by flow, got %s", c.Solver)
	case c.Formulation != "" && c.Formulation != "compact":
		return nil, nil, option.Errorf("formulation", "--windows solves the compact program, got %s", c.Formulation)
	case c.Trace != "" && !c.CapacityGiven:
		return nil, nil, option.Errorf("capacity", "required with --trace (tokens)")
	}
	if err := instance.CheckFlags("capacity", c.capacity(), c.Block); err != nil {
		return nil, nil, err
	}
	p := instance.Params{Capacity: c.capacity(), BlockSize: c.Block, Xi: c.Xi, Forced: c.Forced}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	mine, err := parseShard(w.Shard)
	if err != nil {
		return nil, nil, err
	}
	var mem *trace.Trace
	label := c.Trace
	if c.Trace == "" {
		if mem, err = birthdeath.Trace(birthdeath.Default(), c.Seed); err != nil {
			return nil, nil, err
		}
		label = fmt.Sprintf("embedded birth–death workload (seed %d)", c.Seed)
	}
	size := w.WindowTurns
	turns := 0
	if size == 0 {
		if w.Windows == 0 {
			return nil, nil, option.Errorf("windows", "give --windows N or --window-turns W")
		}
		if mem != nil {
			turns = len(mem.Turns)
		} else if turns, err = countTurns(c.Trace); err != nil {
			return nil, nil, option.Wrap("windows", err)
		}
		size = window.Size(turns, w.Windows)
	}
	rep := &WindowReport{Unit: "tokens", TargetWidth: w.TargetWidth, Shard: w.Shard}
	for {
		b, err := c.runWindows(ctx, mem, p, size, mine)
		if err != nil {
			return nil, nil, err
		}
		rep.Bounds = b
		if w.TargetWidth == 0 {
			break
		}
		rep.Tried = append(rep.Tried, WidthTry{Windows: b.Windows, WindowTurns: size, RelativeWidth: b.RelativeWidth})
		met := b.RelativeWidth <= w.TargetWidth
		rep.TargetMet = &met
		if met || b.Windows <= 1 || mine != nil {
			break
		}
		size *= 2
	}
	rep.Settings = map[string]any{"trace": label, "capacity_tokens": c.capacity(), "block_size_tokens": c.Block,
		"xi_tokens": c.Xi, "forced": c.Forced, "window_turns": size, "seam_turns": w.SeamTurns, "alpha_ms_per_token": c.Model.AlphaMs}
	return rep, rep.Tables(), nil
}

// runWindows solves the windows of size steps (those mine picks).
func (c SolveCommand) runWindows(ctx context.Context, mem *trace.Trace, p instance.Params, size int, mine func(int) bool) (*window.Bounds, error) {
	opt := window.Options{Params: p, WindowTurns: size, SeamTurns: c.Window.SeamTurns, PerWindow: c.Window.PerWindow || mine != nil, Mine: mine}
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

// parseShard reads --shard i/n (1 ≤ i ≤ n): window w is shard i's when w
// mod n = i − 1. "" picks every window (nil).
func parseShard(s string) (func(int) bool, error) {
	if s == "" {
		return nil, nil
	}
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n || fmt.Sprintf("%d/%d", i, n) != s {
		return nil, option.Errorf("shard", "want i/n with 1 ≤ i ≤ n, got %q", s)
	}
	return func(w int) bool { return w%n == i-1 }, nil
}

// countTurns counts the non-blank lines of the trace file path (a turn
// each, as trace.Reader reads them) without parsing them: what --windows
// N needs to cut the trace before the one parse.
func countTurns(path string) (int, error) {
	if path == "-" {
		return 0, fmt.Errorf("standard input cannot be counted before it is read: give --window-turns instead")
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
func (r *WindowReport) Tables() []report.Table {
	t := report.Table{Title: fmt.Sprintf("windowed TEL bounds: %d turns in %d windows of %d steps", r.Turns, r.Windows, r.WindowTurns),
		Header: []string{"quantity", "value"}}
	add := func(name string, v report.Cell) { t.Add(report.CellText(name), v) }
	add("lower bound (tokens)", report.CellF(r.Lower, 3))
	add("upper bound (tokens)", report.CellF(r.Upper, 3))
	add("relative width", report.CellFracAs(fmt.Sprintf("%.4f%%", 100*r.RelativeWidth), r.RelativeWidth))
	add("proven optimal", report.CellText(fmt.Sprint(r.ProvenOptimal)))
	add("TEL with nothing cached (tokens)", report.CellF(r.BaseTEL, 3))
	for _, tr := range r.Tried {
		add(fmt.Sprintf("tried %d windows of %d steps: width", tr.Windows, tr.WindowTurns), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*tr.RelativeWidth), tr.RelativeWidth))
	}
	out := []report.Table{t}
	if len(r.PerWindow) > 0 {
		p := report.Table{Title: "windows", Header: []string{"window", "first step", "turns", "lower (tokens)", "restricted (tokens)", "seam gain (tokens)", "upper (tokens)", "seconds"}}
		for _, f := range r.PerWindow {
			p.Add(report.CellI(int64(f.Index)), report.CellI(int64(f.Start)), report.CellI(int64(f.Turns)), report.CellF(f.Lower, 3),
				report.CellF(f.Restricted, 3), report.CellF(f.SeamGain, 3), report.CellF(f.Upper, 3), report.CellF(f.Seconds, 3))
		}
		out = append(out, p)
	}
	return out
}
