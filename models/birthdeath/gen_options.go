package birthdeath

import (
	"math"

	"github.com/tailbound/tailbound/internal/option"
)

// RateOptions are the per-conversation turn-rate settings as a command line
// gives them (flags --rates and --gamma).
type RateOptions struct {
	// Rates are turn-rate classes RATE:WEIGHT,… (ParseRates: rates per
	// second while alive, relative weights).
	Rates string
	// Gamma, when not empty, is a Gamma law SHAPE:MEAN of the turn rates
	// (ParseGamma: mean per second); it overrides Rates.
	Gamma string
}

// Dist returns the turn-rate distribution, and the rate classes when it is
// Rates (nil for Gamma).
func (r RateOptions) Dist() (RateDist, []RateClass, error) {
	if r.Gamma != "" {
		g, err := ParseGamma(r.Gamma)
		if err != nil {
			return nil, nil, option.Wrap("gamma", err)
		}
		return g, nil, nil
	}
	c, err := ParseRates(r.Rates)
	if err != nil {
		return nil, nil, option.Wrap("rates", err)
	}
	return ClassDist(c), c, nil
}

// ModelOptions are the birth–death model's settings as a command line gives
// them (gen birth-death, mdp simulate): birth and death rates, turn rates
// and the length laws.
type ModelOptions struct {
	// LambdaConv is the rate of conversation births, per second.
	LambdaConv float64
	// Mu is the death rate μ, per second (mean lifetime 1/μ s).
	Mu float64
	RateOptions
	// Prompt and Response, when not empty, are the prompt and response
	// length laws, tokens (ParseDist: fixed:N|geometric:MEAN|
	// lognormal:MU,SIGMA|empirical:FILE); empty keeps the default's.
	Prompt, Response string
}

// Apply sets p's rates and, when given, its length distributions.
func (m ModelOptions) Apply(p *Params) error {
	p.LambdaConv, p.Mu = m.LambdaConv, m.Mu
	rates, classes, err := m.Dist()
	if err != nil {
		return err
	}
	if classes != nil {
		p.Classes = classes
	} else {
		p.Rates = rates
	}
	if m.Prompt != "" {
		if p.Prompt, err = ParseDist(m.Prompt, "prompt", 1); err != nil {
			return option.Wrap("prompt", err)
		}
	}
	if m.Response != "" {
		if p.Response, err = ParseDist(m.Response, "response", 0); err != nil {
			return option.Wrap("response", err)
		}
	}
	return nil
}

// GenOptions are the settings of gen birth-death: the model, how long to
// generate, the seed and the side outputs, or a trace to fit the model to.
type GenOptions struct {
	Model ModelOptions
	// Duration is the span of births, seconds (≥ 0).
	Duration float64
	// Turns stops the trace after this many turns (0: no limit).
	Turns int
	// Seed seeds every random draw.
	Seed uint64
	// Deaths, when not empty, is the file of the hidden per-conversation
	// birth, death (s) and rate (per s), as JSON Lines.
	Deaths string
	// Fit, when not empty, is a canonical trace the model is fitted to
	// (FitTwin) instead of being set by Model.
	Fit string
	// FitLaws are the fitted prompt and response laws: lognormal (fitted)
	// or empirical (the trace's lengths).
	FitLaws string
	// Given holds the flags given on the command line, by name: Turns
	// without Duration means no limit on the span of births, and Fit
	// refuses the model's flags.
	Given map[string]bool
}

// Params returns the parameters of the trace to generate: Default with the
// options applied.
func (o GenOptions) Params() (Params, error) {
	p := Default()
	p.MaxTurns = o.Turns
	if o.Given["duration"] || !o.Given["turns"] {
		p.Duration = o.Duration
	} else {
		p.Duration = 0
	}
	if err := o.Model.Apply(&p); err != nil {
		return p, err
	}
	if o.Turns < 0 {
		return p, option.Errorf("turns", "must be ≥ 0, got %d", o.Turns)
	}
	if math.IsNaN(p.Duration) || math.IsInf(p.Duration, 0) || p.Duration < 0 {
		return p, option.Errorf("duration", "must be a finite number of seconds ≥ 0")
	}
	return p, p.Validate()
}
