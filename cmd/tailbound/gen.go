package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/fits"
	"github.com/tailbound/tailbound/models/birthdeath"
)

// runGen generates traces: gen birth-death | gen timestamps.
func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, "Usage: tailbound gen birth-death [flags]   (a birth–death trace on stdout)\n       tailbound gen timestamps --trace FILE [flags]   (synthetic times for a trace)\n")
		return nil
	}
	switch args[0] {
	case "birth-death":
		return runGenBirthDeath(ctx, args[1:], stdout, stderr)
	case "timestamps":
		return runGenTimestamps(ctx, args[1:], stdout)
	}
	return fmt.Errorf("unknown generator %q (want birth-death or timestamps)", args[0])
}

// modelFlags binds the birth–death model's flags, shared by gen
// birth-death and mdp simulate.
type modelFlags struct{ birthdeath.Flags }

// add registers the flags; promptDef and responseDef describe the defaults
// of the length distributions in the help.
func (m *modelFlags) add(fs *pflag.FlagSet, def birthdeath.Params, promptDef, responseDef string) {
	fs.Float64Var(&m.LambdaConv, "lambda-conv", def.LambdaConv, "conversation births per second")
	fs.Float64Var(&m.Mu, "mu", def.Mu, "death rate μ per second (mean lifetime 1/μ s)")
	addRateFlags(fs, &m.Rates, &m.Gamma)
	fs.StringVar(&m.Prompt, "prompt", "", "prompt lengths, tokens: fixed:N|geometric:MEAN|lognormal:MU,SIGMA|empirical:FILE (default "+promptDef+")")
	fs.StringVar(&m.Response, "response", "", "response lengths, tokens, as --prompt (default "+responseDef+")")
}

// apply sets p's rates and, when given, its length distributions.
func (m *modelFlags) apply(p *birthdeath.Params) error { return m.Apply(p) }

// addRateFlags registers the turn-rate flags shared by both generators.
func addRateFlags(fs *pflag.FlagSet, rates, gamma *string) {
	fs.StringVar(rates, "rates", birthdeath.DefaultFlags().Rates, "turn-rate classes RATE:WEIGHT,… (rates per second while alive, relative weights)")
	fs.StringVar(gamma, "gamma", "", "Gamma-distributed turn rates SHAPE:MEAN (mean per second); overrides --rates")
}

func runGenBirthDeath(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := birthdeath.Default()
	fs := newFlags("gen birth-death", "gen birth-death [--lambda-conv R] [--mu R] [--rates R:W,…|--gamma K:M] [--prompt D] [--response D] (--duration S|--turns N) [--seed S] [--deaths FILE]", stdout)
	var o birthdeath.GenOptions
	mf := modelFlags{}
	mf.add(fs, def, "log-normal with mean 200 tokens, σ=1", "log-normal with mean 300 tokens, σ=0.8")
	fs.Float64Var(&mf.Duration, "duration", def.Duration, "seconds during which conversations are born (their later turns run on until they die)")
	fs.IntVar(&mf.Turns, "turns", 0, "stop after this many turns (0: no limit)")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.StringVar(&o.Deaths, "deaths", "", "also write the hidden per-conversation birth, death (s) and rate (per s) as JSON Lines to FILE")
	fs.StringVar(&o.Fit, "fit", "", "fit the model to this canonical trace (e.g. from 'import mooncake') and generate its twin; the fit and its goodness go to stderr")
	fs.StringVar(&o.FitLaws, "fit-laws", "lognormal", "with --fit: prompt and response laws, lognormal (fitted) or empirical (the trace's lengths)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	mf.Changed = fs.Changed
	o.Model = mf.Flags
	if o.Fit != "" {
		return fits.BirthDeath(o, stdout, stderr)
	}
	return birthdeath.Gen(ctx, o, stdout)
}

func runGenTimestamps(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("gen timestamps", "gen timestamps --trace FILE [--lambda-conv R] [--rates R:W,…|--gamma K:M] [--seed S]", stdout)
	var o birthdeath.TimestampOptions
	fs.StringVar(&o.Trace, "trace", "", "canonical trace whose turns get synthetic times, with or without \"t\" (- for stdin)")
	fs.Float64Var(&o.LambdaConv, "lambda-conv", birthdeath.Default().LambdaConv, "conversation births per second")
	addRateFlags(fs, &o.Rates, &o.Gamma)
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return birthdeath.GenTimestamps(ctx, o, stdout)
}
