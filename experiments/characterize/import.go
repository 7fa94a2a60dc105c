package characterize

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/outfile"
	"github.com/tailbound/tailbound/models/importer"
)

// ImportOptions are the settings of the import command, which converts a
// Mooncake or Bailian trace into the canonical trace or the blocks format.
type ImportOptions struct {
	// Args are the command's arguments: exactly one, the input's format,
	// mooncake or bailian.
	Args []string
	// In is the trace file to import ("-" for standard input).
	In string
	// To is the output: canonical (conversation trace) or blocks.
	To string
	// Out is the output file ("-" for standard output).
	Out string
	// Format is the format of the summary (report.FormatHelp).
	Format string
	// Importer are the importer's settings.
	Importer importer.Settings
}

// Validate returns the input format and the importer options, or an error
// (an *option.Error for a flag) for a setting that cannot be used.
func (o ImportOptions) Validate() (string, importer.Options, error) {
	if len(o.Args) != 1 {
		return "", importer.Options{}, errors.New("want exactly one trace format argument, mooncake or bailian (see --help)")
	}
	name := o.Args[0]
	if name != "mooncake" && name != "bailian" {
		return "", importer.Options{}, fmt.Errorf("trace format %q: want mooncake or bailian", name)
	}
	if o.To != "canonical" && o.To != "blocks" {
		return "", importer.Options{}, option.Errorf("to", "%q, want canonical or blocks", o.To)
	}
	if err := report.CheckFormat(o.Format); err != nil {
		return "", importer.Options{}, err
	}
	if o.In == "" {
		return "", importer.Options{}, option.Errorf("in", "required (the trace file)")
	}
	opt, err := o.Importer.Options()
	return name, opt, err
}

// Import converts o.In into o.Out, a file written whole or not at all,
// and returns the summary (ImportSummary) that import prints.
func Import(ctx context.Context, o ImportOptions, stdout io.Writer) (map[string]any, report.Table, error) {
	name, opt, err := o.Validate()
	if err != nil {
		return nil, report.Table{}, err
	}
	src, closer, err := importer.Open(o.In, name, opt)
	if err != nil {
		return nil, report.Table{}, err
	}
	defer closer.Close()
	var canon *importer.Canonicalizer
	err = outfile.Write(ctx, "out", o.Out, stdout, func(w io.Writer) error {
		if o.To == "blocks" {
			return importer.WriteBlocks(w, src)
		}
		var err error
		canon, err = importer.WriteCanonical(w, src)
		return err
	}, o.In)
	if errors.Is(err, importer.ErrNoRequests) {
		return nil, report.Table{}, fmt.Errorf("%s: %w", o.In, err)
	}
	if err != nil {
		return nil, report.Table{}, err
	}
	doc, t := ImportSummary(o.In, name, src.Summary(), canon)
	return doc, t, nil
}
