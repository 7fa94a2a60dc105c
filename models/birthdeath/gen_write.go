package birthdeath

import (
	"context"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/internal/option"
)

// Gen writes the trace of o.Params() with o.Seed to stdout (whole lines
// only, so an interrupted run stops at a line's end) and, with o.Deaths,
// the hidden deaths to that file, whole or not at all.
func Gen(ctx context.Context, o GenOptions, stdout io.Writer) error {
	p, err := o.Params()
	if err != nil {
		return err
	}
	var convs *Deaths
	var df *atomicfile.File
	if o.Deaths != "" {
		// Opened before the trace is written, so that a bad path fails
		// with nothing on stdout.
		if df, err = atomicfile.Create(ctx, o.Deaths); err != nil {
			return option.Wrap("deaths", err)
		}
		defer df.Abort()
		convs = &Deaths{}
	}
	lines := lineout.New(ctx, stdout)
	if err := Write(lines, p, o.Seed, convs); err != nil {
		return err
	}
	if err := lines.Close(); err != nil || df == nil {
		return err
	}
	if err := WriteDeaths(df, convs.List()); err != nil {
		return fmt.Errorf("%s: %w", o.Deaths, err)
	}
	return df.Commit()
}
