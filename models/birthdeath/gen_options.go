package birthdeath

// GenOptions are the settings of gen birth-death: the model, how long to
// generate, the seed and the side outputs, or a trace to fit the model to.
type GenOptions struct {
	// Model are the model's flags with Duration (s) and Turns; its Changed
	// also tells FitTwin which flags were given.
	Model Flags
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
}

// Params returns the parameters of the trace to generate: Default with the
// model's flags given applied (Flags.Params).
func (o GenOptions) Params() (Params, error) {
	p, _, err := o.Model.Params(false)
	return p, err
}
