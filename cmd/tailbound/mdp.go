package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tailbound/tailbound/experiments/exactgap"
	"github.com/tailbound/tailbound/experiments/montecarlo"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// runMDP is the belief-MDP command: mdp solve | mdp simulate.
func runMDP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, "Usage: tailbound mdp solve [flags]      exact optimum and policy values of a small belief MDP")
		fmt.Fprintln(stdout, "       tailbound mdp simulate [flags]   Monte Carlo of the birth–death model, policies vs Tail-Optimized Belady")
		return nil
	}
	switch args[0] {
	case "solve":
		return runMDPSolve(args[1:], stdout)
	case "simulate":
		return runMDPSimulate(args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown mdp command %q (want solve or simulate)", args[0])
}

func runMDPSolve(args []string, stdout io.Writer) error {
	def := exact.Default(2, exact.Paper)
	fs := newFlags("mdp solve", "mdp solve [--seats R:H:X:M,…] [--world paper|bayes] [flags]", stdout)
	seats := fs.String("seats", exact.FormatSeats(def.Seats), "seats RATE:HISTORY:CACHED:SILENCE,… (turns per s while alive, tokens, tokens, steps; history 0 = empty seat)")
	served := fs.Int("served", def.Served, "seat whose turn was just served (the root decision); -1: the root is between turns")
	world := fs.String("world", "paper", "turn hazards: paper (λ̄·exp(−μs)) or bayes (λ̄·P(alive | silent s), the birth–death model)")
	mu := fs.Float64("mu", def.Mu, "death rate μ, per second")
	birth := fs.Float64("birth", def.Birth, "rate at which an empty seat receives a conversation, per second")
	step := fs.Float64("step", def.Step, "step Δ, seconds (at most one event per step)")
	horizon := fs.Int("horizon", def.Horizon, "horizon, steps")
	maxTurns := fs.Int("max-turns", def.MaxTurns, "end after this many turns (0: no cap)")
	capacity := fs.Int64("capacity", def.Capacity, "cache capacity C, tokens (a multiple of --block-size)")
	block := fs.Int64("block-size", def.BlockSize, "block size B, tokens")
	xi := fs.Float64("xi-tokens", def.Xi, "TEL threshold ξ, tokens")
	prompt := fs.String("prompt", def.Prompt.String(), "prompt lengths: fixed:N or pmf:TOKENS:PROB,…")
	response := fs.String("response", def.Response.String(), "response lengths: fixed:N or pmf:TOKENS:PROB,…")
	forced := fs.Bool("forced", false, "forced caching: the served conversation keeps its whole history")
	discount := fs.Float64("discount", 1, "discount per step, in (0, 1]")
	pols := fs.String("policies", strings.Join(exact.DeciderNames(), ","), "policies to evaluate: "+strings.Join(exact.DeciderNames(), ", "))
	qhat := fs.Float64("qhat", 0, "T-LRU's Q̂, tokens (0: the prompt distribution's mean)")
	emptyPrompts := fs.Bool("allow-empty-prompts", false, "admit prompt lengths of 0 tokens (the unit-page idealization Q = 0 of the theorem checks; a real prompt is ≥ 1 token)")
	maxStates := fs.Int("max-states", exact.DefaultMaxStates, "stop when the belief MDP passes this many memoized states (memory and time grow with it)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if *qhat < 0 {
		return fmt.Errorf("flag --qhat: must be ≥ 0 tokens (0: the prompt distribution's mean), got %v", *qhat)
	}
	if *maxStates < 1 {
		return fmt.Errorf("flag --max-states: must be ≥ 1, got %d", *maxStates)
	}
	in := exact.Instance{Served: *served, Mu: *mu, Birth: *birth, Step: *step, Horizon: *horizon, MaxTurns: *maxTurns, MaxStates: *maxStates,
		Params: instance.Params{Capacity: *capacity, BlockSize: *block, Xi: *xi, Forced: *forced}}
	if in.World, err = exact.ParseWorld(*world); err != nil {
		return fmt.Errorf("flag --world: %w", err)
	}
	if in.Seats, err = exact.ParseSeats(*seats); err != nil {
		return fmt.Errorf("flag --seats: %w", err)
	}
	if in.Prompt, err = exact.ParseDist(*prompt); err != nil {
		return fmt.Errorf("flag --prompt: %w", err)
	}
	if !*emptyPrompts {
		for _, v := range in.Prompt.Values {
			if v == 0 {
				return fmt.Errorf("flag --prompt: a prompt of 0 tokens (want ≥ 1; --allow-empty-prompts admits the unit-page idealization)")
			}
		}
	}
	if in.Response, err = exact.ParseDist(*response); err != nil {
		return fmt.Errorf("flag --response: %w", err)
	}
	if !(*discount > 0 && *discount <= 1) {
		return fmt.Errorf("flag --discount: must be in (0, 1], got %v", *discount)
	}
	in.Discount = *discount
	if err := in.Validate(); err != nil {
		return err
	}
	q := *qhat
	if q == 0 {
		q = in.Prompt.Mean()
	}
	deciders, err := exact.Deciders(*pols, q)
	if err != nil {
		return fmt.Errorf("flag --policies: %w", err)
	}
	rows, err := exact.Compare(&in, deciders)
	if err != nil {
		return err
	}
	doc, t := exactgap.Report(&in, q, rows)
	return report.Emit(stdout, format, doc, t)
}

func runMDPSimulate(args []string, stdout, stderr io.Writer) error {
	def := birthdeath.Default()
	fs := newFlags("mdp simulate", "mdp simulate [--reps N] [--seed S] [--policies …] [model and cache flags]", stdout)
	var mf modelFlags
	mf.add(fs, def, "the embedded workload's", "the embedded workload's")
	duration := fs.Float64("duration", 1800, "seconds of births per replication")
	reps := fs.Int("reps", 10, "replications (independent traces)")
	seed := fs.Uint64("seed", 1, "random seed")
	pols := fs.String("policies", "lru,tlru,etlru-paper,etlru-bayes", "online policies (registered names, or etlru-paper / etlru-bayes: ET-LRU told the model's μ and rates); to-belady is added as the reference")
	capacity := fs.Int64("capacity", defaultWorkloadCapacity, "cache capacity C, tokens, a multiple of --block-size")
	block := fs.Int64("block-size", 16, "block size B, tokens")
	var lat latencyFlags
	lat.add(fs)
	qhat := fs.String("qhat", "auto", "T-LRU's Q̂: auto (running mean) or tokens")
	slo := fs.Float64("slo-ms", 200, "SLO for violation counts, ms")
	forced := fs.Bool("forced", false, "forced caching")
	var popts []string
	fs.StringArrayVar(&popts, "policy-opt", nil, "policy-specific setting key=value (repeatable; e.g. prompt=online for ET-LRU)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	p := def
	p.Duration = *duration
	if err := mf.apply(&p); err != nil {
		return err
	}
	if !(p.Duration > 0) || math.IsInf(p.Duration, 0) {
		return fmt.Errorf("flag --duration: must be a finite number of seconds > 0")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if *reps < 2 {
		return fmt.Errorf("flag --reps: need at least 2 replications, got %d", *reps)
	}
	if err := checkCapacity(*capacity, *block); err != nil {
		return err
	}
	model, xi, err := lat.resolve(fs.Changed)
	if err != nil {
		return err
	}
	q, err := parseQHat(*qhat)
	if err != nil {
		return err
	}
	kv, err := option.KV("policy-opt", popts)
	if err != nil {
		return err
	}
	entries, err := montecarlo.Policies(*pols, p, kv)
	if err != nil {
		return fmt.Errorf("flag --policies: %w", err)
	}
	cfg := montecarlo.Config{Model: p, Reps: *reps, Seed: *seed, Policies: entries, Workers: 2,
		Settings: sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: *capacity, BlockSize: *block, Xi: xi, Forced: *forced},
			Model: model, SLOMs: *slo}, QHat: q, Threshold: policy.DefaultThreshold, PolicyOptions: kv}}
	if pr := progressTo(stderr); pr != nil {
		fmt.Fprintf(pr, "running %d replications of %g s on 2 workers…\n", *reps, p.Duration)
	}
	stats, err := montecarlo.Run(cfg)
	if err != nil {
		return err
	}
	doc, t := montecarlo.Report(cfg, stats)
	return report.Emit(stdout, format, doc, t)
}
