package windows

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
)

// runGrid is runPercentile with a grid of thresholds fixed in advance
// (--taus): in one process, as one shard (--shard) or as a Slurm array
// (--slurm). Each threshold is a pass over the trace (window.
// RunPercentileGrid); a shard solves its windows at every threshold (and
// the seam after each, which needs the next window's restriction, solved
// again by the shard), so the shards' figures add up (window.SumGrid) to
// the one process's.
func (c Command) runGrid(ctx context.Context, stdout io.Writer, p instance.Params) (any, []report.Table, error) {
	if err := window.CheckTaus(c.Taus); err != nil {
		return nil, nil, option.Wrap("taus", err)
	}
	switch {
	case c.MaxProbes != 0:
		return nil, nil, option.Errorf("max-probes", "not with --taus (the thresholds probed are given)")
	case len(c.Curve) > 0 || c.TargetWidth > 0:
		return nil, nil, option.Errorf("taus", "one window count (no --target-width or list of window counts)")
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
	open := func(limit int) func() (window.TurnReader, func(), error) {
		return func() (window.TurnReader, func(), error) { return c.turns(mem, limit) }
	}
	if c.Shard != "" {
		sh, err := suite.ParseShard(c.Shard)
		if err != nil {
			return nil, nil, err
		}
		settings := map[string]string{"trace": label, "capacity_tokens": strconv.FormatInt(p.Capacity, 10),
			"block_size_tokens": strconv.FormatInt(p.BlockSize, 10), "objective": c.Percentile.String(), "taus_tokens": joinTaus(c.Taus),
			"window_turns": strconv.Itoa(size), "seam_turns": strconv.Itoa(c.SeamTurns), "turns": strconv.Itoa(turns)}
		c.upperSettings(settings)
		if c.LowerOverlap > 0 { // absent at 0, so the files without it are as before
			settings["lower_overlap_turns"] = strconv.Itoa(c.LowerOverlap)
		}
		f, err := c.gridShard(ctx, open, p, size, turns, sh, settings)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, c.writeShard(ctx, stdout, f)
	}
	so := c.sloOptions(p, size)
	so.Solver.Progress = c.Progress.Total(windowCount(turns, size))
	figs, err := window.RunPercentileGrid(ctx, open(-1), window.GridOptions{SLO: so, Taus: c.Taus})
	if err != nil {
		return nil, nil, err
	}
	if turns < 0 { // --window-turns on a file: the windows counted them
		turns = 0
		for _, f := range figs {
			turns += f.Turns
		}
	}
	b, err := window.SumGrid(figs, c.Taus, turns, *c.Percentile, size, c.SeamTurns)
	if err != nil {
		return nil, nil, err
	}
	if c.Upper != window.UpperFull {
		b.UpperMode = c.Upper.String()
	}
	b.LowerOverlap = max(0, min(c.LowerOverlap, size))
	doc, tables := gridOutput(b, *c.Percentile, c.PerWindow)
	return doc, tables, nil
}

// joinTaus is the thresholds as the shard files' setting taus_tokens.
func joinTaus(taus []int64) string {
	s := make([]string, len(taus))
	for i, t := range taus {
		s[i] = strconv.FormatInt(t, 10)
	}
	return strings.Join(s, ",")
}

// gridKeys are the record values of a window at threshold tau: its lower
// and upper bound on violations, turns.
func gridKeys(tau int64) (string, string) {
	t := strconv.FormatInt(tau, 10)
	return "lower_turns_tau_" + t, "upper_turns_tau_" + t
}

// gridWeightedKey is the record value of a window's weighted lower bound
// at threshold tau, turns (with a lower overlap only).
func gridWeightedKey(tau int64) string {
	return "lower_weighted_turns_tau_" + strconv.FormatInt(tau, 10)
}

// gridShard solves the percentile grid's figures of shard sh's windows
// (consecutive, as GridWindows assigns them), each pass reading the trace
// only up to one window past its last (for the seam), and returns its
// result file.
func (c Command) gridShard(ctx context.Context, open func(int) func() (window.TurnReader, func(), error), p instance.Params, size, turns int, sh suite.Shard, settings map[string]string) (*suite.File, error) {
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
	f := &suite.File{Suite: Name, Options: suite.Options{Seed: c.Seed, Params: settings}, Shard: sh, Points: []int{}, Records: []suite.Record{}}
	for _, w := range order {
		start := w * size
		f.Grid = append(f.Grid, suite.Point{"window": strconv.Itoa(w), "start_step": strconv.Itoa(start), "turns": strconv.Itoa(min(size, turns-start))})
	}
	mine := func(idx int) bool { return idx < nw && sh.Has(point[idx]) }
	so := c.sloOptions(p, size)
	so.Mine = mine
	figs, err := window.RunPercentileGrid(ctx, open(min(turns, (last+2)*size)), window.GridOptions{SLO: so, Taus: c.Taus})
	if err != nil {
		return nil, err
	}
	for _, fg := range figs {
		if f.Grid[point[fg.Index]]["turns"] != strconv.Itoa(fg.Turns) {
			return nil, fmt.Errorf("window %d: %d turns, but the trace counted %d turns before it was read (changed while read?)", fg.Index, fg.Turns, turns)
		}
		v := map[string]suite.Num{"max_load_tokens": suite.Num(fg.MaxLoad), "seconds": suite.Num(fg.Seconds)}
		for i, tau := range c.Taus {
			lk, uk := gridKeys(tau)
			v[lk], v[uk] = suite.Num(fg.Lower[i]), suite.Num(fg.Upper[i])
			if fg.LowerWeighted != nil {
				v[gridWeightedKey(tau)] = suite.Num(fg.LowerWeighted[i]) // a multiple of 1/1024: written exactly
			}
		}
		f.Points = append(f.Points, point[fg.Index])
		f.Records = append(f.Records, suite.Record{Point: point[fg.Index], Key: "window", Values: v})
	}
	if f.Digest, err = f.ComputeDigest(); err != nil {
		return nil, err
	}
	return f, nil
}

// renderGrid prints a merged result file of windowed percentile shards as
// the one-process run prints it.
func renderGrid(w io.Writer, f *suite.File, format string) error {
	q, err := objective.Parse(f.Options.Params["objective"])
	if err != nil || q.Kind != objective.Percentile {
		return fmt.Errorf("%s: setting objective %q: not a percentile", Name, f.Options.Params["objective"])
	}
	size, _ := strconv.Atoi(f.Options.Params["window_turns"])
	seam, _ := strconv.Atoi(f.Options.Params["seam_turns"])
	back, err := overlapSetting(f, size)
	if err != nil {
		return err
	}
	figs, taus, err := gridFigures(f, back > 0)
	if err != nil {
		return err
	}
	turns, err := strconv.Atoi(f.Options.Params["turns"])
	if err != nil {
		return fmt.Errorf("%s: setting turns %q: %w", Name, f.Options.Params["turns"], err)
	}
	b, err := window.SumGrid(figs, taus, turns, q, size, seam)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	if b.UpperMode, err = upperMode(f); err != nil {
		return err
	}
	b.LowerOverlap = back
	doc, tables := gridOutput(b, q, false)
	return report.Emit(w, format, doc, tables...)
}

// gridFigures reads every window's figures at the thresholds of a merged
// result file of percentile shards (its setting taus_tokens), in window
// order, with their weighted lower bounds when weighted (a lower overlap).
func gridFigures(f *suite.File, weighted bool) ([]window.GridFigures, []int64, error) {
	taus, err := option.Ints("taus", f.Options.Params["taus_tokens"])
	if err == nil {
		err = window.CheckTaus(taus)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: setting taus_tokens %q: %w", Name, f.Options.Params["taus_tokens"], err)
	}
	figs := make([]window.GridFigures, len(f.Grid))
	for _, r := range f.Records {
		g := f.Grid[r.Point]
		idx, _ := strconv.Atoi(g["window"])
		start, _ := strconv.Atoi(g["start_step"])
		n, _ := strconv.Atoi(g["turns"])
		if idx < 0 || idx >= len(figs) || figs[idx].Turns != 0 || n < 1 {
			return nil, nil, fmt.Errorf("%s: grid point %d: window %q is not one of the %d windows, or is there twice", Name, r.Point, g["window"], len(figs))
		}
		fg := window.GridFigures{Index: idx, Start: start, Turns: n}
		keys := []string{"max_load_tokens"}
		for _, tau := range taus {
			lk, uk := gridKeys(tau)
			keys = append(keys, lk, uk)
			if weighted {
				keys = append(keys, gridWeightedKey(tau))
			}
		}
		for _, m := range keys {
			if _, ok := r.Values[m]; !ok {
				return nil, nil, fmt.Errorf("%s: record of window %d: value %q missing", Name, idx, m)
			}
		}
		fg.MaxLoad = int64(r.V("max_load_tokens"))
		for _, tau := range taus {
			lk, uk := gridKeys(tau)
			fg.Lower, fg.Upper = append(fg.Lower, int(r.V(lk))), append(fg.Upper, int(r.V(uk)))
			if weighted {
				fg.LowerWeighted = append(fg.LowerWeighted, float64(r.V(gridWeightedKey(tau))))
			}
		}
		figs[idx] = fg
	}
	return figs, taus, nil
}

// gridOutput is the document and tables of a percentile's grid bounds b,
// with each window's figures when perWindow.
func gridOutput(b *window.GridBounds, q objective.Objective, perWindow bool) (any, []report.Table) {
	t := report.Table{Title: fmt.Sprintf("windowed bounds on the lowest %s of uncached tokens (rank %d of %d turns): %d windows of %d steps, seams ±%d steps, %d thresholds given (--taus, no search)%s%s", q, b.Rank, b.Turns, b.Windows, b.WindowTurns, b.SeamTurns, len(b.Probes), pctOverlapTitle(b.LowerOverlap), upperTitle(b.UpperMode)),
		Header: []string{"quantity", "value"}}
	t.Add(report.CellText("lower bound (tokens)"), report.CellI(b.Lower))
	t.Add(report.CellText("upper bound (tokens)"), report.CellI(b.Upper))
	t.Add(report.CellText("relative width (upper − lower)/upper"), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*b.RelativeWidth), b.RelativeWidth))
	t.Add(report.CellText("proven optimal"), report.CellText(fmt.Sprint(b.ProvenOptimal)))
	t.Add(report.CellText("largest load, nothing cached (tokens)"), report.CellI(b.MaxLoad))
	pt := report.Table{Title: fmt.Sprintf("thresholds (windowed SLO bounds at τ, summed over every window; at most %d turns may exceed the percentile)", b.MaxExceeding),
		Header: []string{"τ (tokens)", "lower (turns)", "upper (turns)", "decided"}}
	for _, pr := range b.Probes {
		pt.Add(report.CellI(pr.Tau), report.CellI(int64(pr.Lower)), report.CellI(int64(pr.Upper)), report.CellText(pr.Decided))
	}
	out := []report.Table{t, pt}
	if !perWindow {
		b.PerWindow = nil
		return b, out
	}
	h := []string{"window", "first step", "turns", "largest load (tokens)"}
	for _, pr := range b.Probes {
		h = append(h, fmt.Sprintf("lower at τ=%d (turns)", pr.Tau), fmt.Sprintf("upper at τ=%d (turns)", pr.Tau))
	}
	pw := report.Table{Title: "windows (their times, seconds, in the JSON)", Header: h}
	for _, f := range b.PerWindow {
		row := []report.Cell{report.CellI(int64(f.Index)), report.CellI(int64(f.Start)), report.CellI(int64(f.Turns)), report.CellI(f.MaxLoad)}
		for i := range f.Lower {
			row = append(row, report.CellI(int64(f.Lower[i])), report.CellI(int64(f.Upper[i])))
		}
		pw.Add(row...)
	}
	return b, append(out, pw)
}
