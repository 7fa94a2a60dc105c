package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// runSolve computes the hindsight TEL optimum of a trace.
func runSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	format, err := parseFormat(fs, args)
	if err != nil {
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
	model, xi, err := lat.resolve(fs.Changed)
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
	rep, err := gap.Solve(ctx, tr, in, gap.Spec{Formulation: f, Solver: *solver, Relax: *relax,
		TimeLimit: time.Duration(*limit * float64(time.Second)), CrossCheck: *cross, Model: model})
	if err != nil {
		return err
	}
	if *schedule != "" {
		if rep.Schedule == nil {
			return fmt.Errorf("flag --schedule: no schedule to write (status %s)", rep.Status)
		}
		if err := writeSchedule(ctx, *schedule, in, tr.Names, rep.Schedule); err != nil {
			return err
		}
	}
	settings := map[string]any{"trace": *tracePath, "turns": in.K(), "conversations": in.Conversations,
		"capacity_tokens": *capacity, "block_size_tokens": *block, "xi_tokens": xi, "forced": *forced,
		"alpha_ms_per_token": model.AlphaMs, "time_limit_seconds": *limit}
	return report.Emit(stdout, format, solveJSON{Report: rep, Settings: settings}, rep.Tables(in)...)
}

// solveJSON is solve's JSON document: the report's fields plus settings.
type solveJSON struct {
	*gap.Report
	Settings any `json:"settings"`
}

func writeSchedule(ctx context.Context, path string, in *lp.Instance, names []string, sched []int64) error {
	err := atomicfile.Write(ctx, path, func(w io.Writer) error { return in.WriteSchedule(w, names, sched) })
	if err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	return nil
}
