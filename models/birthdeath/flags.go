package birthdeath

import (
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/internal/option"
)

// Flags are the model's command-line settings in their units, as gen
// birth-death takes them. On a command that replays the embedded workload,
// the flags given replace Default's parameters; the others keep them.
type Flags struct {
	// LambdaConv is the conversation birth rate, per second.
	LambdaConv float64
	// Mu is the death rate μ, per second (mean lifetime 1/μ s).
	Mu float64
	// Rates are the turn-rate classes, "RATE:WEIGHT,…" (rates per second
	// while alive, relative weights), as ParseRates reads them.
	Rates string
	// Gamma is "SHAPE:MEAN" (mean per second) for Gamma-distributed turn
	// rates; non-empty, it overrides Rates.
	Gamma string
	// Prompt and Response are the length distributions in tokens, as
	// ParseDist reads them; "" keeps Default's.
	Prompt, Response string
	// Duration is how long conversations are born, seconds.
	Duration float64
	// Turns stops the trace after this many turns (0: no limit).
	Turns int
	// Changed reports whether a flag (named without dashes) was given on
	// the command line; nil means none was.
	Changed func(flag string) bool
}

// DefaultFlags returns the flags' defaults: Default's parameters, no turn
// limit.
func DefaultFlags() Flags {
	d := Default()
	return Flags{LambdaConv: d.LambdaConv, Mu: d.Mu, Rates: FormatRates(d.Classes), Duration: d.Duration}
}

// FlagNames returns the names of Flags' flags, in the order Given lists them.
func FlagNames() []string {
	return []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "duration", "turns"}
}

// changed reports whether flag was given.
func (f Flags) changed(flag string) bool { return f.Changed != nil && f.Changed(flag) }

// Given returns the flags given, each as "--name=value" with the value as
// the command line's flag package prints it.
func (f Flags) Given() []string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	values := []string{g(f.LambdaConv), g(f.Mu), f.Rates, f.Gamma, f.Prompt, f.Response, g(f.Duration), strconv.Itoa(f.Turns)}
	var out []string
	for i, n := range FlagNames() {
		if f.changed(n) {
			out = append(out, "--"+n+"="+values[i])
		}
	}
	return out
}

// Label names the workload: the embedded one, or one with the flags given.
func (f Flags) Label() string {
	given := f.Given()
	if len(given) == 0 {
		return "embedded birth–death workload"
	}
	return "birth–death workload (" + strings.Join(given, " ") + ")"
}

// Params returns the workload's parameters, Default with the flags given
// applied, and whether any was given. A flag given with withTrace (a trace
// file replaces the workload) is an error.
func (f Flags) Params(withTrace bool) (Params, bool, error) {
	p := Default()
	given := f.Given()
	if len(given) == 0 {
		return p, false, nil
	}
	if withTrace {
		name, _, _ := strings.Cut(strings.TrimPrefix(given[0], "--"), "=")
		return p, false, option.Errorf(name, "for the embedded workload only (not with --trace)")
	}
	p.MaxTurns = f.Turns
	// --turns alone ends the trace by its count, not Default's duration.
	if f.changed("duration") || !f.changed("turns") {
		p.Duration = f.Duration
	} else {
		p.Duration = 0
	}
	if err := f.Apply(&p); err != nil {
		return p, false, err
	}
	if f.Turns < 0 {
		return p, false, option.Errorf("turns", "must be ≥ 0, got %d", f.Turns)
	}
	if math.IsNaN(p.Duration) || math.IsInf(p.Duration, 0) || p.Duration < 0 {
		return p, false, option.Errorf("duration", "must be a finite number of seconds ≥ 0")
	}
	if err := p.Validate(); err != nil {
		return p, false, err
	}
	return p, true, nil
}

// Apply sets p's birth and death rates, its turn rates and, when given,
// its length distributions from the flags.
func (f Flags) Apply(p *Params) error {
	p.LambdaConv, p.Mu = f.LambdaConv, f.Mu
	if f.Gamma != "" {
		g, err := ParseGamma(f.Gamma)
		if err != nil {
			return option.Wrap("gamma", err)
		}
		p.Rates = g
	} else {
		c, err := ParseRates(f.Rates)
		if err != nil {
			return option.Wrap("rates", err)
		}
		p.Classes = c
	}
	var err error
	if f.Prompt != "" {
		if p.Prompt, err = ParseDist(f.Prompt, "prompt", 1); err != nil {
			return option.Wrap("prompt", err)
		}
	}
	if f.Response != "" {
		if p.Response, err = ParseDist(f.Response, "response", 0); err != nil {
			return option.Wrap("response", err)
		}
	}
	return nil
}
