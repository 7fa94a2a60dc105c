package main

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/experiments/tables"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// runTables regenerates a paper's tables.
func runTables(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "tail-latency" {
		return fmt.Errorf("usage: tailbound tables tail-latency [flags] (the tail-latency paper's Tables 1–3 and Figure 5)")
	}
	var lat latencyFlags
	fs := newFlags("tables tail-latency", "tables tail-latency [--trace FILE] [--xis-ms 100,200,300] [--capacity TOKENS] [flags]", stdout)
	path := fs.String("trace", "", "canonical trace; omitted: the embedded birth–death workload")
	xis := fs.String("xis-ms", "100,200,300", "thresholds ξ_s to tabulate, ms (the paper's 100, 200, 300)")
	capacity := fs.Int64("capacity", 0, fmt.Sprintf("cache capacity, tokens (default %d with the embedded workload)", defaultWorkloadCapacity))
	block := fs.Int64("block-size", 16, "block size B, tokens")
	lat.add(fs)
	qhat := fs.String("qhat", "auto", "T-LRU's Q̂: auto (running mean of prompts) or tokens")
	threshold := fs.Int64("threshold", policy.DefaultThreshold, "Threshold-LRU's T, tokens")
	slo := fs.Float64("slo-ms", 200, "SLO of Table 3, ms")
	seed := fs.Uint64("seed", 1, "seed of the embedded workload")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if fs.Changed("xi-ms") || fs.Changed("xi-tokens") {
		return fmt.Errorf("flag --xis-ms: the thresholds are a list here; use --xis-ms instead of --xi-ms/--xi-tokens")
	}
	model, _, err := lat.resolve(fs)
	if err != nil {
		return err
	}
	xiList, err := parseFloats("xis-ms", *xis)
	if err != nil {
		return err
	}
	if *path != "" && !fs.Changed("capacity") {
		return fmt.Errorf("flag --capacity: required with --trace (tokens)")
	}
	if *capacity == 0 && *path == "" {
		*capacity = defaultWorkloadCapacity
	}
	if err := checkCapacity(*capacity, *block); err != nil {
		return err
	}
	q, err := parseQHat(*qhat)
	if err != nil {
		return err
	}
	var tr *trace.Trace
	if *path == "" {
		tr, err = birthdeath.Trace(birthdeath.Default(), *seed)
	} else {
		tr, err = trace.ReadFile(*path)
	}
	if err != nil {
		return err
	}
	s := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: *capacity, BlockSize: *block}, Model: model, SLOMs: *slo,
		Progress: progressTo(stderr)}, QHat: q, Threshold: *threshold}
	rows, err := tables.TailLatency(tr, xiList, s)
	if err != nil {
		return err
	}
	doc := map[string]any{"capacity_tokens": *capacity, "block_size_tokens": *block, "alpha_ms_per_token": model.AlphaMs,
		"beta_ms": model.BetaMs, "slo_ms": *slo, "rows": rows}
	return report.Emit(stdout, *format, doc, tables.Tables(rows, *slo)...)
}
