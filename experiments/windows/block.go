package windows

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/outfile"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// BlockName is the "suite" field of the result file of a shard of 'solve
// --level block --windows N', by which merge knows it.
const BlockName = "solve-block-windows"

// RunBlock is 'solve --level block --windows N' as shards: with c.Slurm >
// 0 it prints the Slurm array job of that many shards and its merge; with
// c.Shard = i/n it bounds the i-th of n runs of consecutive windows (as
// GridWindows assigns them; blocktail.BoundWindowedRange) and writes its
// result file to c.Out (standard output when empty): the grid is every
// window, the records the shard's, each with its lower bound and
// restricted cost, the run's first window also with the run's stitched
// schedule's replayed cost.
func RunBlock(ctx context.Context, stdout io.Writer, c blocktail.Command) error {
	if c.Shard != "" && c.Slurm != 0 {
		return option.Errorf("slurm", "not with --shard")
	}
	if c.Slurm < 0 {
		return option.Errorf("slurm", "want a number of shards ≥ 1, got %d", c.Slurm)
	}
	if c.Windows < 1 {
		return option.Errorf("windows", "--shard and --slurm need --windows N (N ≥ 1)")
	}
	if c.TargetWidth != 0 {
		return option.Errorf("target-width", "for one process: not with --shard or --slurm (each shard bounds the windows it is given)")
	}
	if c.ReplayLookaheadRequests != 0 {
		// A shard's run replays its stitched schedule with the run's whole
		// lookahead (prefixtail.WindowedSpan); a bounded one is for one
		// process (prefixtail.WindowedLookahead).
		return option.Errorf("replay-lookahead-requests", "for one process: not with --shard or --slurm")
	}
	if c.CarriedHistory {
		// Carried histories are built and checked in one process
		// (prefixtail.WindowedFlat, WindowedLookahead); shards keep the
		// last uses.
		return option.Errorf("relaxation-history", "for one process: not with --shard or --slurm")
	}
	if c.Slurm > 0 {
		return blockSlurm(stdout, c)
	}
	sh, err := suite.ParseShard(c.Shard)
	if err != nil {
		return err
	}
	cfg, want, err := c.WindowCheck()
	if err != nil {
		return err
	}
	nw := c.Windows
	var n int
	var block int64
	// Standard input, which cannot be read twice, is read once into a
	// compact Flat and cut; a file is counted by its non-blank lines (a
	// byte scan, no parse: one request per line in every block-level
	// format) and read once, up to the run's end (LoadSpan; the run that
	// reads to the end checks the count).
	var fl *prefixtail.Flat
	if c.Trace == "-" {
		if fl, block, err = blocktail.LoadFlat(c.Trace, c.TraceFormat, want); err != nil {
			return err
		}
		n = fl.Len()
	} else if n, err = countTurns(c.Trace); err != nil {
		return err
	}
	if nw > max(n, 1) {
		return option.Errorf("windows", "want 1 … %d (the number of requests), got %d", max(n, 1), nw)
	}
	order := GridWindows(nw, sh.N)
	point := make([]int, nw)
	var grid []suite.Point
	first, last := nw, -1
	for p, w := range order {
		point[w] = p
		grid = append(grid, suite.Point{"window": strconv.Itoa(w), "first_request": strconv.Itoa(w * n / nw), "requests": strconv.Itoa((w+1)*n/nw - w*n/nw)})
		if sh.Has(p) {
			first, last = min(first, w), max(last, w)
		}
	}
	var sp *blocktail.Span
	if fl != nil {
		sp = &blocktail.Span{BlockTokens: block, Span: prefixtail.Span{Requests: n, History: [][]prefixcache.Req{}}}
		if last >= 0 {
			s, err := fl.Span(nw, first, last, c.WindowOptions())
			if err != nil {
				return err
			}
			sp.Span = *s
		}
	} else if sp, err = blocktail.LoadSpan(c.Trace, c.TraceFormat, want, n, nw, first, last, c.WindowOptions()); err != nil {
		return err
	}
	f := &suite.File{Suite: BlockName, Options: suite.Options{Params: c.WindowSettingsOf(sp.BlockTokens, n, cfg)}, Shard: sh, Grid: grid, Points: []int{}, Records: []suite.Record{}}
	if last >= 0 {
		wb, err := blocktail.BoundWindowedSpan(ctx, sp, cfg.Capacities[0], nw, first, last, c.WindowOptions(), cfg)
		if err != nil {
			return err
		}
		for k, fg := range wb.PerWindow {
			w := first + k
			v := map[string]suite.Num{"lower_bound": suite.Num(fg.Lower), "restricted": suite.Num(fg.Restricted), "history_requests": suite.Num(fg.History),
				"run_first": 0, "stitched": 0, "stitched_without_seams": 0, "seconds": suite.Num(fg.Seconds)}
			if k == 0 {
				v["run_first"], v["stitched"], v["stitched_without_seams"] = 1, suite.Num(wb.Upper), suite.Num(wb.UpperNoSeams)
			}
			f.Points = append(f.Points, point[w])
			f.Records = append(f.Records, suite.Record{Point: point[w], Key: "window", Values: v})
		}
	}
	if f.Digest, err = f.ComputeDigest(); err != nil {
		return err
	}
	dst := c.Out
	if dst == "" {
		dst = outfile.Stdout
	}
	return outfile.Write(ctx, "out", dst, stdout, f.Write)
}

// blockSlurm prints the Slurm array job of c.Slurm shards of c and its
// dependent merge.
func blockSlurm(stdout io.Writer, c blocktail.Command) error {
	if c.Trace == "-" || c.Trace == "" {
		return option.Errorf("trace", "a Slurm job reads a file, not standard input")
	}
	return writeSlurm(stdout, BlockName, c.Given, c.Slurm, c.Format, c.Out)
}

// RenderBlock prints a merged result file of block-level windowed shards
// (merge calls it after its checks): the windows' lower bounds and
// restricted costs as the one process prints them, the upper bound the
// sum of the runs' stitched replays. From one shard (1/1) it prints what
// the one-process run prints.
func RenderBlock(w io.Writer, f *suite.File, format string) error {
	if f.Suite != BlockName {
		return fmt.Errorf("result file is %s, not %s", f.Suite, BlockName)
	}
	if len(f.Points) != len(f.Grid) {
		return fmt.Errorf("%s: result file holds shard %d/%d only; merge the shards first (tailbound merge)", BlockName, f.Shard.I, f.Shard.N)
	}
	if format == "latex" {
		return fmt.Errorf("flag --format: latex is for the suites; %s prints table|markdown|csv|json", BlockName)
	}
	ps := f.Options.Params
	capacity, err1 := strconv.ParseInt(ps["capacity_tokens"], 10, 64)
	block, err2 := strconv.ParseInt(ps["block_size_tokens"], 10, 64)
	requests, err3 := strconv.Atoi(ps["requests"])
	if err1 != nil || err2 != nil || err3 != nil || block < 1 {
		return fmt.Errorf("%s: settings capacity_tokens %q, block_size_tokens %q, requests %q: not numbers", BlockName, ps["capacity_tokens"], ps["block_size_tokens"], ps["requests"])
	}
	out := &blocktail.Windowed{CapacityTokens: capacity, CapacityBlocks: int(capacity / block)}
	out.Objective, out.Windows, out.Requests = ps["objective"], len(f.Grid), requests
	var wo prefixtail.WindowOptions
	for _, s := range []struct {
		name string
		v    *int
	}{{"seam_requests", &wo.SeamRequests}, {"join_requests", &wo.JoinRequests}, {"lower_overlap_requests", &wo.LowerOverlapRequests}} {
		if h := ps[s.name]; h != "" { // files written before seams and joins carry neither, and files without a lower overlap none
			if *s.v, err1 = strconv.Atoi(h); err1 != nil || *s.v < 0 {
				return fmt.Errorf("%s: setting %s %q: not a number of requests ≥ 0", BlockName, s.name, h)
			}
		}
	}
	out.SeamRequests, out.JoinRequests = wo.SeamRequests, prefixtail.JoinRequests(requests, len(f.Grid), wo)
	out.LowerOverlapRequests = prefixtail.LowerOverlapRequests(requests, len(f.Grid), wo)
	if v := ps["lower_overlap_weights"]; v != "" { // left out for the ramp
		o, err := prefixtail.ParseOverlapWeighting(v)
		if err != nil {
			return fmt.Errorf("%s: setting lower_overlap_weights: %w", BlockName, err)
		}
		wo.LowerOverlapWeights = o
	}
	if out.LowerOverlapRequests > 0 && wo.LowerOverlapWeights != prefixtail.RampWeights {
		out.LowerOverlapWeights = wo.LowerOverlapWeights.String()
	}
	figs := make([]prefixtail.WindowFigure, len(f.Grid))
	seen := make([]bool, len(f.Grid))
	stitched := make([]float64, len(f.Grid)) // a run's replayed cost, at its first window
	plain := make([]float64, len(f.Grid))    // the same without the seams' guide
	runs := 0
	for _, r := range f.Records {
		g := f.Grid[r.Point]
		idx, _ := strconv.Atoi(g["window"])
		first, _ := strconv.Atoi(g["first_request"])
		n, _ := strconv.Atoi(g["requests"])
		if idx < 0 || idx >= len(figs) || seen[idx] {
			return fmt.Errorf("%s: grid point %d: window %q is not one of the %d windows, or is there twice", BlockName, r.Point, g["window"], len(figs))
		}
		for _, m := range []string{"lower_bound", "restricted", "history_requests", "run_first", "stitched"} {
			if _, ok := r.Values[m]; !ok {
				return fmt.Errorf("%s: record of window %d: value %q missing", BlockName, idx, m)
			}
		}
		seen[idx] = true
		figs[idx] = prefixtail.WindowFigure{First: first, Requests: n, History: int(r.V("history_requests")), Lower: r.V("lower_bound"),
			Restricted: r.V("restricted"), Seconds: r.V("seconds")}
		stitched[idx], plain[idx] = r.V("stitched"), r.V("stitched_without_seams")
		if r.V("run_first") == 1 {
			runs++
		}
	}
	// Sum in window order, as the one process does.
	for i, fg := range figs {
		out.Lower += fg.Lower
		out.Upper += stitched[i]
		out.UpperNoSeams += plain[i]
	}
	if out.Objective == prefixtail.SLO.String() {
		out.Lower = prefixtail.TotalLower(prefixtail.SLO, out.LowerOverlapRequests, out.Lower)
	}
	out.PerWindow = figs
	out.SetWidth()
	if out.Lower > out.Upper+1e-6*max(1, out.Upper) {
		return fmt.Errorf("%s: lower bound %v above the upper bound %v (a bug)", BlockName, out.Lower, out.Upper)
	}
	doc := struct {
		Units    string            `json:"units"`
		Settings map[string]string `json:"settings"`
		// Runs is the number of runs of consecutive windows (shards), each
		// replayed from an empty cache.
		Runs int `json:"runs"`
		*blocktail.Windowed
	}{blocktail.WindowUnits(out.Objective), ps, runs, out}
	return report.Emit(w, format, doc, blocktail.WindowTablesRuns(ps["trace"], out, runs)...)
}
