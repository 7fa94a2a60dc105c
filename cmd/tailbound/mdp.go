package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tailbound/tailbound/experiments/exactgap"
	"github.com/tailbound/tailbound/experiments/montecarlo"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/latency"
)

// runMDP is the belief-MDP command: mdp solve | mdp simulate.
func runMDP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, "Usage: tailbound mdp solve [flags]      exact optimum and policy values of a small belief MDP")
		fmt.Fprintln(stdout, "       tailbound mdp simulate [flags]   Monte Carlo of the birth–death model, policies vs Tail-Optimized Belady")
		fmt.Fprintln(stdout, "       tailbound mdp onestep [flags]    one ET-LRU decision: the greedy (Lemma 1) against the exact one-step optimum")
		return nil
	}
	switch args[0] {
	case "solve":
		return runMDPSolve(args[1:], stdout)
	case "simulate":
		return runMDPSimulate(args[1:], stdout, stderr)
	case "onestep":
		return runMDPOneStep(args[1:], stdout)
	}
	return fmt.Errorf("unknown mdp command %q (want solve, simulate or onestep)", args[0])
}

// runMDPSolve solves a small belief MDP exactly (mdp/exact, experiments/exactgap).
func runMDPSolve(args []string, stdout io.Writer) error {
	def := exact.Default(2, exact.Paper)
	fs := newFlags("mdp solve", "mdp solve [--seats R:H:X:M,…] [--world paper|bayes] [flags]", stdout)
	var s exact.Settings
	fs.StringVar(&s.Seats, "seats", exact.FormatSeats(def.Seats), "seats RATE:HISTORY:CACHED:SILENCE,… (turns per s while alive, tokens, tokens, steps; history 0 = empty seat)")
	fs.IntVar(&s.Served, "served", def.Served, "seat whose turn was just served (the root decision); -1: the root is between turns")
	fs.StringVar(&s.World, "world", "paper", "turn hazards: paper (λ̄·exp(−μs)) or bayes (λ̄·P(alive | silent s), the birth–death model)")
	fs.Float64Var(&s.Mu, "mu", def.Mu, "death rate μ, per second")
	fs.Float64Var(&s.Birth, "birth", def.Birth, "rate at which an empty seat receives a conversation, per second")
	fs.Float64Var(&s.Step, "step", def.Step, "step Δ, seconds (at most one event per step)")
	fs.IntVar(&s.Horizon, "horizon", def.Horizon, "horizon, steps")
	fs.IntVar(&s.MaxTurns, "max-turns", def.MaxTurns, "end after this many turns (0: no cap)")
	fs.Int64Var(&s.Capacity, "capacity", def.Capacity, "cache capacity C, tokens (a multiple of --block-size)")
	fs.Int64Var(&s.Block, "block-size", def.BlockSize, "block size B, tokens")
	fs.Float64Var(&s.Xi, "xi-tokens", def.Xi, "TEL threshold ξ, tokens")
	fs.StringVar(&s.Prompt, "prompt", def.Prompt.String(), "prompt lengths: fixed:N or pmf:TOKENS:PROB,…")
	fs.StringVar(&s.Response, "response", def.Response.String(), "response lengths: fixed:N or pmf:TOKENS:PROB,…")
	fs.BoolVar(&s.Forced, "forced", false, "forced caching: the served conversation keeps its whole history")
	fs.Float64Var(&s.Discount, "discount", 1, "discount per step, in (0, 1]")
	fs.StringVar(&s.Policies, "policies", strings.Join(exact.DeciderNames(), ","), "policies to evaluate: "+strings.Join(exact.DeciderNames(), ", "))
	fs.Float64Var(&s.QHat, "qhat", 0, "T-LRU's Q̂, tokens (0: the prompt distribution's mean)")
	fs.BoolVar(&s.AllowEmptyPrompts, "allow-empty-prompts", false, "admit prompt lengths of 0 tokens (the unit-page idealization Q = 0 of the theorem checks; a real prompt is ≥ 1 token)")
	fs.IntVar(&s.MaxStates, "max-states", exact.DefaultMaxStates, "stop when the belief MDP passes this many memoized states (memory and time grow with it)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	doc, tables, err := exactgap.Run(s)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}

// runMDPSimulate is the Monte Carlo study of the birth–death model
// (experiments/montecarlo).
func runMDPSimulate(args []string, stdout, stderr io.Writer) error {
	def := birthdeath.Default()
	fs := newFlags("mdp simulate", "mdp simulate [--reps N] [--seed S] [--policies …] [model and cache flags]", stdout)
	var c montecarlo.Command
	var mf modelFlags
	mf.add(fs, def, "the embedded workload's", "the embedded workload's")
	fs.Float64Var(&c.Duration, "duration", 1800, "seconds of births per replication")
	fs.IntVar(&c.Reps, "reps", 10, "replications (independent traces)")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed")
	fs.StringVar(&c.Policies, "policies", "lru,tlru,etlru-paper,etlru-bayes", "online policies (registered names, or etlru-paper / etlru-bayes: ET-LRU told the model's μ and rates); to-belady is added as the reference")
	fs.Int64Var(&c.Capacity, "capacity", defaultWorkloadCapacity, "cache capacity C, tokens, a multiple of --block-size")
	fs.Int64Var(&c.Block, "block-size", 16, "block size B, tokens")
	var lat latency.Settings
	addLatency(fs, &lat)
	fs.StringVar(&c.QHat, "qhat", "auto", "T-LRU's Q̂: auto (running mean) or tokens")
	fs.Float64Var(&c.SLOMs, "slo-ms", 200, "SLO for violation counts, ms")
	fs.BoolVar(&c.Forced, "forced", false, "forced caching")
	fs.StringArrayVar(&c.PolicyOpts, "policy-opt", nil, "policy-specific setting key=value (repeatable; e.g. prompt=online for ET-LRU)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	c.Model, c.Progress = def, progressTo(stderr)
	if err := mf.apply(&c.Model); err != nil {
		return err
	}
	if c.Latency, c.Xi, err = lat.Resolve(fs.Changed); err != nil {
		return err
	}
	doc, tables, err := c.Run()
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}
