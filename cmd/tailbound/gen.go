package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/fits"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/prefixgen"
)

// runGen generates traces: gen birth-death | gen timestamps.
func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, "Usage: tailbound gen birth-death [flags]   (a birth–death trace on stdout)\n       tailbound gen timestamps --trace FILE [flags]   (synthetic times for a trace)\n       tailbound gen prefix [flags]   (a block-hash trace in Mooncake format on stdout)\n")
		return nil
	}
	switch args[0] {
	case "birth-death":
		return runGenBirthDeath(ctx, args[1:], stdout, stderr)
	case "timestamps":
		return runGenTimestamps(ctx, args[1:], stdout)
	case "prefix":
		return runGenPrefix(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown generator %q (want birth-death, timestamps or prefix)", args[0])
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

func runGenPrefix(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen prefix", "gen prefix [--preset NAME|--model FILE|--fit TRACE --trace-format F] (--requests N|--duration S) [--seed S]", stdout)
	var o fits.PrefixOptions
	fs.StringVar(&o.Preset, "preset", "", "built-in model: "+strings.Join(prefixgen.Presets(), "|")+" (default cluster when neither --model nor --fit is given)")
	fs.StringVar(&o.Model, "model", "", "model file (JSON, as --model-out writes; see docs/traces.md)")
	fs.StringVar(&o.Fit, "fit", "", "fit the model to this block-hash trace and generate its twin; the fit and trace-vs-twin table go to stderr")
	fs.StringVar(&o.TraceFormat, "trace-format", "", "with --fit: mooncake|bailian")
	fs.Int64Var(&o.Requests, "requests", 0, "stop after this many requests (0: no limit)")
	fs.Float64Var(&o.DurationS, "duration", 0, "stop at this trace time, seconds (0: no limit; with --fit and no --requests: the trace's span)")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.StringVar(&o.ModelOut, "model-out", "", "also write the model used (preset, file or fit) as JSON to FILE")
	fs.IntVar(&o.FitOptions.MinShare, "min-share", 0, "with --fit: sessions that must start with a block chain for it to be a shared prefix (0: max(2, sessions/1000))")
	fs.StringVar(&o.FitOptions.GapLaw, "gap-law", "best", "with --fit: reuse-time law exponential (the workload study's)|lognormal|best (higher likelihood)")
	fs.StringVar(&o.FitOptions.LengthLaw, "length-law", "best", "with --fit: length laws lognormal|mixture (of two log-normals)|best (the mixture when BIC prefers it)")
	fs.IntVar(&o.Importer.MinSharedBlocks, "min-shared-blocks", importer.DefaultMinSharedBlocks, "with --fit, Mooncake: linking guard k, blocks (as import)")
	o.Importer.Chain = "ceil"
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.Fit == "" { // a fit writes its tables to stderr: no line beside them
		o.Progress = progressFunc(stderr)
	}
	return fits.Prefix(ctx, o, stdout, stderr)
}
