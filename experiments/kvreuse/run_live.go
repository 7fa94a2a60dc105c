package kvreuse

import (
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/kvpipe"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
)

// PipelineOptions size the live pipeline as the command line does. Each
// field holds the value of the flag named in its comment.
type PipelineOptions struct {
	// Tokens are the context lengths, tokens, comma-separated (--tokens).
	Tokens string
	// Layers is the number of layers run (--layers).
	Layers int
	// Tiers are the measured tiers, comma-separated (--tiers; see
	// kvpipe.ParseTiers).
	Tiers string
	// Reps runs are averaged per ratio and profile point (--reps, 1..1000);
	// each stage is timed alone at ProfileSteps token counts
	// (--profile-steps, 2..100).
	Reps, ProfileSteps int
	// AttnDim is the dimension of the emulated attention, values
	// (--attn-dim).
	AttnDim int
	// Dir holds the temporary KV file, "" for the system's (--dir).
	Dir string
	// Seed fills the KV file and the attention operands (--seed).
	Seed uint64
	// Median uses the median of the runs at a ratio, not the mean
	// (--median).
	Median bool
}

// live returns the measurement p describes, carrying model's per-layer KV
// size; errors name the flag at fault.
func (p PipelineOptions) live(model kvsize.Config) (Live, error) {
	l := Live{Model: model, Reps: p.Reps, ProfileSteps: p.ProfileSteps, Median: p.Median}
	var err error
	if l.Tokens, err = parseTokens(p.Tokens); err != nil {
		return l, err
	}
	if l.Tiers, err = kvpipe.ParseTiers(p.Tiers); err != nil {
		return l, option.Wrap("tiers", err)
	}
	if p.Reps < 1 || p.Reps > 1000 {
		return l, option.Errorf("reps", "want 1..1000, got %d", p.Reps)
	}
	if p.ProfileSteps < 2 || p.ProfileSteps > 100 {
		return l, option.Errorf("profile-steps", "want 2..100, got %d", p.ProfileSteps)
	}
	l.Pipeline = kvpipe.Config{Layers: p.Layers, MaxTokens: slices.Max(l.Tokens), BytesPerTokenLayer: int(math.Ceil(model.BytesPerTokenLayer())),
		HeadDim: p.AttnDim, Dir: p.Dir, Seed: p.Seed}
	if err := l.Pipeline.Validate(); err != nil {
		return l, fmt.Errorf("flags --layers/--tokens/--attn-dim: %w", err)
	}
	return l, nil
}

// LiveOptions are the settings of a live measurement: the model, the
// search, the pipeline, where to save the runs and the figures.
type LiveOptions struct {
	// Model chooses the KV configuration (--model and its overrides).
	Model kvsize.Overrides
	// Search bounds and tunes the searches (--r-min, --eps, --variant, …).
	Search recompute.SearchSettings
	// Pipeline is the live pipeline (--tokens, --layers, …).
	Pipeline PipelineOptions
	// Save is the path of a CSV receiving every timed run, "" for none
	// (--save).
	Save string
	// Plot is the figures' path, "" for none (--plot).
	Plot string
}

// MeasureOptions are the settings of "recompute measure".
type MeasureOptions struct {
	LiveOptions
}

// Run validates o and measures on this machine (see Measure), saving the
// runs to Save and the figures to Plot.
func (o *MeasureOptions) Run(env Env) (Output, error) {
	so, vs, err := o.Search.Resolve()
	if err != nil {
		return Output{}, err
	}
	return o.run(env, so, vs, false)
}

// run measures with search options so and variants vs (only the profile
// when profileOnly, which draws no figure).
func (l LiveOptions) run(env Env, so recompute.Options, vs []recompute.Variant, profileOnly bool) (Output, error) {
	if so.GridIntervals == 0 && l.Plot != "" && !profileOnly {
		// Without a grid the figure would hold markers and no curve
		// (gonum/plot then fails on their infinite extent, after the run).
		return Output{}, option.Errorf("plot", "needs --grid > 0: the figure draws the measured grid")
	}
	cfg, err := l.Model.Resolve(env.Changed)
	if err != nil {
		return Output{}, err
	}
	live, err := l.Pipeline.live(cfg)
	if err != nil {
		return Output{}, err
	}
	if so.GridIntervals == 0 && !profileOnly {
		fmt.Fprintln(env.notes(), "note: --grid 0: the search is not confirmed by a grid scan")
	}
	var save *os.File
	if l.Save != "" {
		if save, err = os.Create(l.Save); err != nil {
			return Output{}, option.Wrap("save", err)
		}
		defer save.Close()
	}
	live.Options, live.Variants, live.ProfileOnly, live.Progress = so, vs, profileOnly, env.Progress
	out, runs, err := Measure(live)
	if err != nil {
		return Output{}, err
	}
	if save != nil {
		if err := recompute.WriteMeasurements(save, runs); err != nil {
			return Output{}, option.Wrap("save", err)
		}
		if err := save.Close(); err != nil {
			return Output{}, option.Wrap("save", err)
		}
	}
	if profileOnly {
		return out, nil
	}
	return withPlots(out, l.Plot)
}
