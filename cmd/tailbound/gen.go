package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// runGen generates traces: gen birth-death | gen timestamps.
func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, "Usage: tailbound gen birth-death [flags]   (a birth–death trace on stdout)")
		fmt.Fprintln(stdout, "       tailbound gen timestamps --trace FILE [flags]   (synthetic times for a trace)")
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

// modelFlags are the birth–death model's flags shared by gen birth-death
// and mdp simulate: birth and death rates, turn rates, length
// distributions.
type modelFlags struct {
	lambda, mu       float64
	rates            rateFlags
	prompt, response string
}

// add registers the flags; promptDef and responseDef describe the defaults
// of the length distributions in the help.
func (m *modelFlags) add(fs *pflag.FlagSet, def birthdeath.Params, promptDef, responseDef string) {
	fs.Float64Var(&m.lambda, "lambda-conv", def.LambdaConv, "conversation births per second")
	fs.Float64Var(&m.mu, "mu", def.Mu, "death rate μ per second (mean lifetime 1/μ s)")
	m.rates.add(fs)
	fs.StringVar(&m.prompt, "prompt", "", "prompt lengths, tokens: fixed:N|geometric:MEAN|lognormal:MU,SIGMA|empirical:FILE (default "+promptDef+")")
	fs.StringVar(&m.response, "response", "", "response lengths, tokens, as --prompt (default "+responseDef+")")
}

// apply sets p's rates and, when given, its length distributions.
func (m *modelFlags) apply(p *birthdeath.Params) error {
	p.LambdaConv, p.Mu = m.lambda, m.mu
	rates, classes, err := m.rates.resolve()
	if err != nil {
		return err
	}
	if classes != nil {
		p.Classes = classes
	} else {
		p.Rates = rates
	}
	if m.prompt != "" {
		if p.Prompt, err = birthdeath.ParseDist(m.prompt, "prompt", 1); err != nil {
			return fmt.Errorf("flag --prompt: %w", err)
		}
	}
	if m.response != "" {
		if p.Response, err = birthdeath.ParseDist(m.response, "response", 0); err != nil {
			return fmt.Errorf("flag --response: %w", err)
		}
	}
	return nil
}

// rateFlags are the per-conversation turn-rate flags shared by both generators.
type rateFlags struct{ rates, gamma string }

func (r *rateFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&r.rates, "rates", birthdeath.FormatRates(birthdeath.Default().Classes), "turn-rate classes RATE:WEIGHT,… (rates per second while alive, relative weights)")
	fs.StringVar(&r.gamma, "gamma", "", "Gamma-distributed turn rates SHAPE:MEAN (mean per second); overrides --rates")
}

func (r *rateFlags) resolve() (birthdeath.RateDist, []birthdeath.RateClass, error) {
	if r.gamma != "" {
		g, err := birthdeath.ParseGamma(r.gamma)
		if err != nil {
			return nil, nil, fmt.Errorf("flag --gamma: %w", err)
		}
		return g, nil, nil
	}
	c, err := birthdeath.ParseRates(r.rates)
	if err != nil {
		return nil, nil, fmt.Errorf("flag --rates: %w", err)
	}
	return birthdeath.ClassDist(c), c, nil
}

func runGenBirthDeath(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := birthdeath.Default()
	fs := newFlags("gen birth-death", "gen birth-death [--lambda-conv R] [--mu R] [--rates R:W,…|--gamma K:M] [--prompt D] [--response D] (--duration S|--turns N) [--seed S] [--deaths FILE]", stdout)
	var mf modelFlags
	mf.add(fs, def, "log-normal with mean 200 tokens, σ=1", "log-normal with mean 300 tokens, σ=0.8")
	duration := fs.Float64("duration", def.Duration, "seconds during which conversations are born (their later turns run on until they die)")
	turns := fs.Int("turns", 0, "stop after this many turns (0: no limit)")
	seed := fs.Uint64("seed", 1, "random seed")
	deaths := fs.String("deaths", "", "also write the hidden per-conversation birth, death (s) and rate (per s) as JSON Lines to FILE")
	fit := fs.String("fit", "", "fit the model to this canonical trace (e.g. from 'import mooncake') and generate its twin; the fit and its goodness go to stderr")
	laws := fs.String("fit-laws", "lognormal", "with --fit: prompt and response laws, lognormal (fitted) or empirical (the trace's lengths)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *fit != "" {
		return genFit(fs, *fit, *laws, *seed, stdout, stderr)
	}
	p := def
	p.MaxTurns = *turns
	if fs.Changed("duration") || !fs.Changed("turns") {
		p.Duration = *duration
	} else {
		p.Duration = 0
	}
	if err := mf.apply(&p); err != nil {
		return err
	}
	if *turns < 0 {
		return fmt.Errorf("flag --turns: must be ≥ 0, got %d", *turns)
	}
	if math.IsNaN(p.Duration) || math.IsInf(p.Duration, 0) || p.Duration < 0 {
		return fmt.Errorf("flag --duration: must be a finite number of seconds ≥ 0")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	var convs *birthdeath.Deaths
	var df *atomicfile.File
	var err error
	if *deaths != "" {
		// Opened before the trace is written, so that a bad path fails
		// with nothing on stdout.
		if df, err = atomicfile.Create(ctx, *deaths); err != nil {
			return fmt.Errorf("flag --deaths: %w", err)
		}
		defer df.Abort()
		convs = &birthdeath.Deaths{}
	}
	lines := lineout.New(ctx, stdout)
	if err := birthdeath.Write(lines, p, *seed, convs); err != nil {
		return err
	}
	if err := lines.Close(); err != nil || df == nil {
		return err
	}
	if err := birthdeath.WriteDeaths(df, convs.List()); err != nil {
		return fmt.Errorf("%s: %w", *deaths, err)
	}
	return df.Commit()
}

func runGenTimestamps(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("gen timestamps", "gen timestamps --trace FILE [--lambda-conv R] [--rates R:W,…|--gamma K:M] [--seed S]", stdout)
	path := fs.String("trace", "", "canonical trace whose turns get synthetic times, with or without \"t\" (- for stdin)")
	lambda := fs.Float64("lambda-conv", birthdeath.Default().LambdaConv, "conversation births per second")
	var rf rateFlags
	rf.add(fs)
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return fmt.Errorf("flag --trace: required")
	}
	rates, _, err := rf.resolve()
	if err != nil {
		return err
	}
	tr, err := trace.ReadFileOptionalTime(*path) // times are replaced: "t" may be absent
	if err != nil {
		return err
	}
	out, err := birthdeath.Timestamps(tr, *lambda, rates, *seed)
	if err != nil {
		return err
	}
	lines := lineout.New(ctx, stdout)
	if err := trace.WriteTrace(lines, out); err != nil {
		return err
	}
	return lines.Close()
}
