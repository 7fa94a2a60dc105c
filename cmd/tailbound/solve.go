package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// runSolve computes the hindsight TEL optimum of a trace.
func runSolve(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("solve", "solve --trace FILE --capacity TOKENS --block-size B (--xi-tokens X | --xi-ms X) [flags]", stdout)
	tracePath := fs.String("trace", "", "canonical trace (JSON Lines; - for stdin)")
	capacity := fs.Int64("capacity", 0, "cache capacity C, tokens, a multiple of --block-size")
	block := fs.Int64("block-size", 16, "block size B, tokens")
	var lat latencyFlags
	lat.add(fs)
	form := fs.String("formulation", string(lp.Compact), "compact|paper|paper-as-written")
	solver := fs.String("solver", solvers.Auto, "solver: "+solvers.Help(solvers.IP|solvers.LP))
	relax := fs.Bool("relax", false, "solve only the LP relaxation")
	forced := fs.Bool("forced", false, "forced caching: the served conversation keeps its whole history")
	limit := fs.Float64("time-limit", 0, "time limit per solve, seconds (0: none)")
	cross := fs.Bool("cross-check", true, "also solve with flow and report any difference from the chosen solver")
	schedule := fs.String("schedule", "", "write the optimum's cache schedule (CSV, tokens per turn) to this file")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if *tracePath == "" {
		return fmt.Errorf("flag --trace: required (a canonical trace file, or - for stdin)")
	}
	if !fs.Changed("capacity") {
		return fmt.Errorf("flag --capacity: required (tokens)")
	}
	if err := checkCapacity(*capacity, *block); err != nil {
		return err
	}
	model, xi, err := lat.resolve(fs)
	if err != nil {
		return err
	}
	f, err := lp.ParseFormulation(*form)
	if err != nil {
		return fmt.Errorf("flag --formulation: %w", err)
	}
	if *limit < 0 {
		return fmt.Errorf("flag --time-limit: must be ≥ 0 seconds, got %v", *limit)
	}
	if *schedule != "" && *relax {
		return fmt.Errorf("flag --schedule: needs the integer optimum; drop --relax")
	}
	tr, err := trace.ReadFile(*tracePath)
	if err != nil {
		return err
	}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: *capacity, BlockSize: *block, Xi: xi, Forced: *forced})
	if err != nil {
		return err
	}
	rep, err := gap.Solve(context.Background(), tr, in, gap.Spec{Formulation: f, Solver: *solver, Relax: *relax,
		TimeLimit: time.Duration(*limit * float64(time.Second)), CrossCheck: *cross, Model: model})
	if err != nil {
		return err
	}
	if *schedule != "" {
		if rep.Schedule == nil {
			return fmt.Errorf("flag --schedule: no schedule to write (status %s)", rep.Status)
		}
		if err := writeSchedule(*schedule, in, tr.Names, rep.Schedule); err != nil {
			return err
		}
	}
	settings := map[string]any{"trace": *tracePath, "turns": in.K(), "conversations": in.Conversations,
		"capacity_tokens": *capacity, "block_size_tokens": *block, "xi_tokens": xi, "forced": *forced,
		"alpha_ms_per_token": model.AlphaMs, "time_limit_seconds": *limit}
	return report.Emit(stdout, *format, solveJSON{Report: rep, Settings: settings}, solveTables(rep, in)...)
}

// solveJSON is solve's JSON document: the report's fields plus settings.
type solveJSON struct {
	*gap.Report
	Settings any `json:"settings"`
}

func writeSchedule(path string, in *lp.Instance, names []string, sched []int64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	if err := in.WriteSchedule(f, names, sched); err != nil {
		f.Close()
		return fmt.Errorf("flag --schedule: %w", err)
	}
	return f.Close()
}

func optF(p *float64, prec int) string {
	if p == nil {
		return "—"
	}
	return report.F(*p, prec)
}

func solveTables(r *gap.Report, in *lp.Instance) []report.Table {
	integral := "—"
	if r.Integral != nil {
		integral = fmt.Sprint(*r.Integral)
	}
	t := report.Table{
		Title: fmt.Sprintf("hindsight TEL optimum: %d turns, %d conversations, C=%d tokens, B=%d tokens, ξ=%g tokens, forced=%v",
			in.K(), in.Conversations, in.Capacity, in.BlockSize, in.Xi, in.Forced),
		Header: []string{"quantity", "value"},
		Rows: [][]string{
			{"TEL optimum (tokens)", optF(r.TELOptTokens, 3)},
			{"TEL optimum (ms)", optF(r.TELOptMs, 3)},
			{"LP bound (tokens)", optF(r.LPBoundTokens, 3)},
			{"LP solution integral (tol " + fmt.Sprint(r.IntegralityTolBlocks) + " blocks)", integral},
			{"to-belady TEL (tokens)", report.F(r.BeladyTELTokens, 3)},
			{"flow cross-check TEL (tokens)", optF(r.FlowTELTokens, 3)},
			{"status", r.Status},
			{"solver", r.Solver},
			{"formulation", r.Formulation},
			{"LP status / solver", r.LPStatus + " / " + r.LPSolver},
			{"rows × cols (nonzeros)", fmt.Sprintf("%d × %d (%d)", r.Rows, r.Cols, r.NonZeros)},
			{"build / solve / LP solve (s)", fmt.Sprintf("%.3f / %.3f / %.3f", r.BuildSeconds, r.SolveSeconds, r.LPSolveSeconds)},
			{"schedule check", r.ScheduleCheck},
		},
	}
	if r.BestFoundTokens != nil {
		t.Rows = append(t.Rows, []string{"best integer point found, not proven optimal (tokens)", optF(r.BestFoundTokens, 3)})
	}
	for _, d := range r.Disagreements {
		t.Rows = append(t.Rows, []string{"DISAGREEMENT", d})
	}
	for _, n := range r.Notes {
		t.Rows = append(t.Rows, []string{"note", n})
	}
	c := report.Table{Title: "conditions and readings of " + r.Formulation, Header: []string{"name", "condition"}}
	for _, k := range r.Conditions {
		c.Rows = append(c.Rows, []string{k.Name, k.Text})
	}
	return []report.Table{t, c}
}
