package tier

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/internal/option"
)

// Selection chooses storage tiers and an accelerator as the command line
// does. Each field holds the value of the flag named in its comment, in
// that flag's units.
type Selection struct {
	// Tiers are tier names, comma-separated (--tiers).
	Tiers string
	// Bandwidth are "name=GB/s" overrides, each item possibly a
	// comma-separated list (--bandwidth; see ParseOverrides).
	Bandwidth []string
	// GPU is the accelerator preset (--gpu).
	GPU string
	// TFLOPS replaces the accelerator's dense peak, TFLOP/s (--tflops).
	TFLOPS float64
	// MFU is the fraction of peak FLOP/s prefill achieves (--mfu).
	MFU float64
}

// Resolve returns the selected tiers and the achieved FLOP/s. changed
// reports whether a flag was given (pflag.FlagSet.Changed; nil: none was):
// TFLOPS replaces the preset's peak only when "tflops" was given. Errors
// name the flag.
func (s Selection) Resolve(changed func(flag string) bool) ([]Tier, float64, error) {
	over, err := ParseOverrides(s.Bandwidth)
	if err != nil {
		return nil, 0, option.Wrap("bandwidth", err)
	}
	ts, err := Resolve(strings.Split(s.Tiers, ","), over)
	if err != nil {
		return nil, 0, option.Wrap("tiers", err)
	}
	d, err := LookupDevice(s.GPU)
	if err != nil {
		return nil, 0, option.Wrap("gpu", err)
	}
	if changed != nil && changed("tflops") {
		d.PeakFLOPS = s.TFLOPS * 1e12
	}
	flops, err := d.Effective(s.MFU)
	if err != nil {
		// Either flag can be at fault; the text is the one the command
		// has always printed.
		return nil, 0, fmt.Errorf("flags --gpu/--tflops/--mfu: %w", err)
	}
	return ts, flops, nil
}
