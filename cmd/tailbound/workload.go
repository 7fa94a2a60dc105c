package main

import (
	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// addWorkloadFlags registers gen birth-death's model flags, bound to f, on
// a command that replays the embedded workload.
func addWorkloadFlags(fs *pflag.FlagSet, f *birthdeath.Flags) {
	d := birthdeath.DefaultFlags()
	fs.Float64Var(&f.LambdaConv, "lambda-conv", d.LambdaConv, "conversation births per second")
	fs.Float64Var(&f.Mu, "mu", d.Mu, "death rate μ per second (mean lifetime 1/μ s)")
	fs.StringVar(&f.Rates, "rates", d.Rates, "turn-rate classes RATE:WEIGHT,… (rates per second while alive, relative weights)")
	fs.StringVar(&f.Gamma, "gamma", "", "Gamma-distributed turn rates SHAPE:MEAN (mean per second); overrides --rates")
	fs.StringVar(&f.Prompt, "prompt", "", "prompt lengths, tokens: fixed:N|geometric:MEAN|lognormal:MU,SIGMA|empirical:FILE (default log-normal with mean 200 tokens, σ=1)")
	fs.StringVar(&f.Response, "response", "", "response lengths, tokens, as --prompt (default log-normal with mean 300 tokens, σ=0.8)")
	fs.Float64Var(&f.Duration, "duration", d.Duration, "seconds during which conversations are born (embedded workload, as gen birth-death)")
	fs.IntVar(&f.Turns, "turns", 0, "stop after this many turns (0: no limit; embedded workload, as gen birth-death)")
	for _, n := range birthdeath.FlagNames() {
		fs.Lookup(n).Usage += " [embedded workload]"
	}
}

// workloadFlags are addWorkloadFlags for gap, which still reads them here.
type workloadFlags struct {
	birthdeath.Flags
	changed []string // the flags given, "--name=value"
}

func (w *workloadFlags) add(fs *pflag.FlagSet) { addWorkloadFlags(fs, &w.Flags) }

// params returns the workload's parameters and whether a flag was given.
func (w *workloadFlags) params(fs *pflag.FlagSet, tracePath string) (birthdeath.Params, bool, error) {
	w.Changed = fs.Changed
	w.changed = w.Given()
	return w.Params(tracePath != "")
}

func (w *workloadFlags) label() string { return w.Label() }

// workloadTrace generates the workload p of seed.
func workloadTrace(p birthdeath.Params, seed uint64) (*trace.Trace, error) {
	return birthdeath.Trace(p, seed)
}
