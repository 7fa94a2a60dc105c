package birthdeath

import (
	"context"
	"io"

	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/trace"
)

// TimestampOptions are the settings of gen timestamps.
type TimestampOptions struct {
	// Trace is the canonical trace whose turns get synthetic times, with
	// or without "t" ("-" for standard input).
	Trace string
	// LambdaConv is the rate of conversation births, per second.
	LambdaConv float64
	// Rates and Gamma are the turn rates, as Flags reads them.
	Rates, Gamma string
	// Seed seeds every random draw.
	Seed uint64
}

// GenTimestamps writes the trace o.Trace with synthetic times (Timestamps)
// to stdout, whole lines only.
func GenTimestamps(ctx context.Context, o TimestampOptions, stdout io.Writer) error {
	if o.Trace == "" {
		return option.Errorf("trace", "required")
	}
	rates, err := rateDist(o.Rates, o.Gamma)
	if err != nil {
		return err
	}
	tr, err := trace.ReadFileOptionalTime(o.Trace) // times are replaced: "t" may be absent
	if err != nil {
		return err
	}
	out, err := Timestamps(tr, o.LambdaConv, rates, o.Seed)
	if err != nil {
		return err
	}
	lines := lineout.New(ctx, stdout)
	if err := trace.WriteTrace(lines, out); err != nil {
		return err
	}
	return lines.Close()
}

// rateDist returns the turn-rate law that rates or gamma name, as
// Flags.Apply reads them.
func rateDist(rates, gamma string) (RateDist, error) {
	p := Default()
	if err := (Flags{Rates: rates, Gamma: gamma}).Apply(&p); err != nil {
		return nil, err
	}
	if p.Rates != nil {
		return p.Rates, nil
	}
	return ClassDist(p.Classes), nil
}
