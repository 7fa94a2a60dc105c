package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// workloadFlags are gen birth-death's model flags on a command that
// replays the embedded workload: given, they replace its parameters.
type workloadFlags struct {
	mf       modelFlags
	duration float64
	turns    int
	changed  []string
}

// workloadFlagNames are the flags of workloadFlags.
var workloadFlagNames = []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "duration", "turns"}

func (w *workloadFlags) add(fs *pflag.FlagSet) {
	def := birthdeath.Default()
	w.mf.add(fs, def, "log-normal with mean 200 tokens, σ=1", "log-normal with mean 300 tokens, σ=0.8")
	fs.Float64Var(&w.duration, "duration", def.Duration, "seconds during which conversations are born (embedded workload, as gen birth-death)")
	fs.IntVar(&w.turns, "turns", 0, "stop after this many turns (0: no limit; embedded workload, as gen birth-death)")
	for _, n := range workloadFlagNames {
		fs.Lookup(n).Usage += " [embedded workload]"
	}
}

// params returns the workload's parameters: birthdeath.Default() with the
// flags given applied, and whether any was given; tracePath != "" with a
// model flag is an error.
func (w *workloadFlags) params(fs *pflag.FlagSet, tracePath string) (birthdeath.Params, bool, error) {
	p := birthdeath.Default()
	w.changed = nil
	for _, n := range workloadFlagNames {
		if fs.Changed(n) {
			w.changed = append(w.changed, "--"+n+"="+fs.Lookup(n).Value.String())
		}
	}
	if len(w.changed) == 0 {
		return p, false, nil
	}
	if tracePath != "" {
		return p, false, fmt.Errorf("flag %s: for the embedded workload only (not with --trace)", strings.SplitN(w.changed[0], "=", 2)[0])
	}
	p.MaxTurns = w.turns
	if fs.Changed("duration") || !fs.Changed("turns") {
		p.Duration = w.duration
	} else {
		p.Duration = 0
	}
	if err := w.mf.apply(&p); err != nil {
		return p, false, err
	}
	if w.turns < 0 {
		return p, false, fmt.Errorf("flag --turns: must be ≥ 0, got %d", w.turns)
	}
	if math.IsNaN(p.Duration) || math.IsInf(p.Duration, 0) || p.Duration < 0 {
		return p, false, fmt.Errorf("flag --duration: must be a finite number of seconds ≥ 0")
	}
	if err := p.Validate(); err != nil {
		return p, false, err
	}
	return p, true, nil
}

// label names the workload: the embedded one, with the flags given.
func (w *workloadFlags) label() string {
	if len(w.changed) == 0 {
		return "embedded birth–death workload"
	}
	return "birth–death workload (" + strings.Join(w.changed, " ") + ")"
}

// workloadTrace generates the workload p of seed.
func workloadTrace(p birthdeath.Params, seed uint64) (*trace.Trace, error) {
	return birthdeath.Trace(p, seed)
}
