package kvreuse

import (
	"io"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/tier"
)

// Env is what a sub-command's Run needs besides its options.
type Env struct {
	// Changed reports whether a flag was given on the command line
	// (pflag.FlagSet.Changed; nil: none was). Overrides of a preset's
	// fields apply only when given, so that an override of 0 is refused
	// rather than ignored.
	Changed func(flag string) bool
	// Notes receives warnings about the settings (nil: discarded).
	Notes io.Writer
	// Progress, when not nil, receives a line per step of a live
	// measurement.
	Progress io.Writer
}

func (e Env) notes() io.Writer {
	if e.Notes == nil {
		return io.Discard
	}
	return e.Notes
}

// HardwareOptions choose the model, storage tiers, accelerator and context
// lengths that the roofline and the cake schedules are computed for.
type HardwareOptions struct {
	// Model chooses the KV configuration (--model and its overrides).
	Model kvsize.Overrides
	// Hardware chooses the tiers and the accelerator (--tiers, --gpu, …).
	Hardware tier.Selection
	// Tokens are the context lengths, tokens, comma-separated (--tokens).
	Tokens string
}

// Resolve returns the Hardware o chooses; errors name the flag at fault.
func (o HardwareOptions) Resolve(env Env) (h Hardware, err error) {
	if h.Model, err = o.Model.Resolve(env.Changed); err != nil {
		return h, err
	}
	if h.Tiers, h.FLOPS, err = o.Hardware.Resolve(env.Changed); err != nil {
		return h, err
	}
	h.Tokens, err = parseTokens(o.Tokens)
	return h, err
}

// MaxTokens bounds a context length, tokens.
const MaxTokens = 1 << 24

// parseTokens reads --tokens: context lengths in [1, MaxTokens] tokens.
func parseTokens(s string) ([]int, error) {
	v, err := option.Ints("tokens", s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		if x < 1 || x > MaxTokens {
			return nil, option.Errorf("tokens", "context length %d outside [1, 2^24] tokens", x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// withPlots saves out's figures to path (--plot; "" saves none) and
// returns out, so that a figure that cannot be written stops the command
// before it prints.
func withPlots(out Output, path string) (Output, error) {
	if path == "" {
		return out, nil
	}
	return out, out.SavePlots(path)
}
