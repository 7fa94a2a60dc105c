package kvreuse

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
)

// errOneSource refuses both or neither of --csv and --live.
var errOneSource = errors.New("give exactly one of --csv FILE and --live")

// SearchOptions are the settings of "recompute search": on a CSV of
// measurements, or live as "recompute measure" does.
type SearchOptions struct {
	// CSV is the measurements' path (--csv); Live measures instead
	// (--live). Exactly one is given.
	CSV  string
	Live bool
	// R0 is the warm start given directly (--r0); TcUs and TiUs are a
	// profiled recompute and load cost, µs per token per layer (--tc-us,
	// --ti-us), giving r0 when R0 is not given. NaN means not given; with
	// none given the roofline is fitted to each curve.
	R0, TcUs, TiUs float64
	// FitLayers are the layers of the measured pipeline, 0 for the
	// model's (--fit-layers); FitTokens is the context length of curves
	// without one, tokens (--fit-tokens). Both only scale a fitted profile.
	FitLayers, FitTokens int
	// LiveOptions are the model, search, pipeline, --save and --plot.
	LiveOptions
}

// Run validates o and searches for the measured optimum on the CSV (see
// Search) or live (see Measure), saving the figures to Plot.
func (o *SearchOptions) Run(env Env) (Output, error) {
	if (o.CSV == "") == !o.Live {
		return Output{}, errOneSource
	}
	so, vs, err := o.Search.Resolve()
	if err != nil {
		return Output{}, err
	}
	if o.Live {
		return o.run(env, so, vs, false)
	}
	s := CSVSearch{Source: o.CSV, Options: so, Variants: vs, DefaultTokens: o.FitTokens}
	s.Layers, s.Measurements, err = readCSV(o.Model, env, o.CSV, o.FitLayers, func(layers int) error {
		if layers < 1 {
			return option.Errorf("fit-layers", "want ≥ 1, got %d", layers)
		}
		return nil
	})
	if err != nil {
		return Output{}, err
	}
	switch {
	case !math.IsNaN(o.R0):
		r0 := o.R0
		s.R0, s.R0Source = &r0, "--r0"
	case !math.IsNaN(o.TcUs) || !math.IsNaN(o.TiUs):
		p := recompute.Profile{Tc: o.TcUs / 1e6, Ti: o.TiUs / 1e6}
		if err := p.Validate(); err != nil {
			return Output{}, fmt.Errorf("flags --tc-us/--ti-us: %w", err)
		}
		s.Profile, s.R0Source = &p, "--tc-us/--ti-us"
	}
	out, err := Search(s)
	if err != nil {
		return Output{}, err
	}
	return withPlots(out, o.Plot)
}

// ProfileOptions are the settings of "recompute profile": the roofline
// fitted to a CSV's curves, or the stages timed live.
type ProfileOptions struct {
	// CSV is the measurements' path (--csv); Live times the pipeline
	// instead (--live). Exactly one is given.
	CSV  string
	Live bool
	// FitLayers are the layers of the measured pipeline, 0 for the
	// model's (--fit-layers); FitTokens is the context length of curves
	// without one, tokens (--fit-tokens).
	FitLayers, FitTokens int
	// Model chooses the KV configuration (--model and its overrides).
	Model kvsize.Overrides
	// Pipeline is the live pipeline (--tokens, --layers, …).
	Pipeline PipelineOptions
}

// Run validates o and fits the profile to the CSV (see Profile) or live
// (see Measure with ProfileOnly).
func (o *ProfileOptions) Run(env Env) (Output, error) {
	if (o.CSV == "") == !o.Live {
		return Output{}, errOneSource
	}
	if o.Live {
		l := LiveOptions{Model: o.Model, Pipeline: o.Pipeline}
		return l.run(env, recompute.DefaultOptions(), nil, true)
	}
	n, meas, err := readCSV(o.Model, env, o.CSV, o.FitLayers, func(layers int) error {
		if layers < 1 || o.FitTokens < 1 {
			return fmt.Errorf("flags --fit-layers/--fit-tokens: want ≥ 1, got %d and %d", layers, o.FitTokens)
		}
		return nil
	})
	if err != nil {
		return Output{}, err
	}
	return Profile(o.CSV, meas, n, o.FitTokens)
}

// readCSV resolves the model and reads the measurements at path; layers
// 0 becomes the model's number of layers, which check vets first.
func readCSV(m kvsize.Overrides, env Env, path string, layers int, check func(layers int) error) (int, []recompute.Measurement, error) {
	cfg, err := m.Resolve(env.Changed)
	if err != nil {
		return 0, nil, err
	}
	if layers == 0 {
		layers = cfg.Layers
	}
	if err := check(layers); err != nil {
		return 0, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, option.Wrap("csv", err)
	}
	defer f.Close()
	meas, err := recompute.ReadMeasurements(f, path)
	return layers, meas, err
}
