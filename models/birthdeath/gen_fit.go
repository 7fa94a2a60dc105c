package birthdeath

import (
	"fmt"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/trace"
)

// Twin is the birth–death model fitted to a trace and a trace generated
// from the fit, with the goodness of fit.
type Twin struct {
	// Fitted is the fit to Trace.
	Fitted Fitted
	// Params are the parameters Twin was generated from: the fit with the
	// chosen length laws, Duration (s) and MaxTurns.
	Params Params
	// Trace is the fitted trace, Twin the generated one.
	Trace, Twin *trace.Trace
	// KSTurns, KSLengthS and KSGapsS are the KS distances between Trace
	// and Twin of the turns per conversation, the conversation lengths (s)
	// and the inter-turn gaps (s).
	KSTurns, KSLengthS, KSGapsS float64
}

// FitTwin fits the model to the canonical trace o.Fit and generates its
// twin with o.Seed: the fit's rates, the laws o.FitLaws names,
// o.Model.Duration when given (else the trace's span of births) and
// o.Model.Turns.
func (o GenOptions) FitTwin() (*Twin, error) {
	// The flags that set the model, which the fit sets instead.
	for _, f := range []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "deaths"} {
		if o.Model.changed(f) {
			return nil, option.Errorf(f, "not with --fit (the fit sets the model)")
		}
	}
	tr, err := trace.ReadFile(o.Fit)
	if err != nil {
		return nil, err
	}
	f, err := Fit(tr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Fit, err)
	}
	p := f.Params
	switch o.FitLaws {
	case "lognormal":
	case "empirical":
		p = f.WithEmpirical()
	default:
		return nil, option.Errorf("fit-laws", "want lognormal or empirical, got %q", o.FitLaws)
	}
	if o.Model.changed("duration") {
		p.Duration = o.Model.Duration
	}
	p.MaxTurns = o.Model.Turns
	twin, err := Trace(p, o.Seed)
	if err != nil {
		return nil, err
	}
	t := &Twin{Fitted: f, Params: p, Trace: tr, Twin: twin}
	t.KSTurns, t.KSLengthS, t.KSGapsS = GoodnessOfFit(tr, twin)
	return t, nil
}
