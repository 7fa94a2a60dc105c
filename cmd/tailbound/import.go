package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/models/importer"
)

// importFlags are the importer settings shared by import and characterize.
type importFlags struct {
	chain      string
	minShared  int
	extraTypes []string
}

func addImportFlags(fs *pflag.FlagSet) *importFlags {
	f := &importFlags{}
	fs.StringVar(&f.chain, "chain-length", "ceil", "required hash_ids length for an input of L tokens in B-token blocks: ceil (⌈L/B⌉ blocks), floor (⌊L/B⌋ blocks, full blocks only) or any")
	fs.IntVar(&f.minShared, "min-shared-blocks", importer.DefaultMinSharedBlocks, "Mooncake linking guard k, blocks: a request continues a conversation only through a shared full-block prefix longer than k blocks (the system prompt)")
	fs.StringSliceVar(&f.extraTypes, "extra-types", nil, "Bailian request types accepted besides text, search, image, file (comma-separated)")
	return f
}

func (f *importFlags) options() (importer.Options, error) {
	rule, err := importer.ParseChainRule(f.chain)
	if err != nil {
		return importer.Options{}, fmt.Errorf("flag --chain-length: %w", err)
	}
	if f.minShared < 0 {
		return importer.Options{}, fmt.Errorf("flag --min-shared-blocks: %d must be ≥ 0 blocks", f.minShared)
	}
	return importer.Options{Chain: rule, MinSharedBlocks: f.minShared, ExtraTypes: f.extraTypes}, nil
}

// runImport converts a Mooncake or Bailian trace into the canonical
// conversation trace or the blocks format.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", "import mooncake|bailian --in FILE [--to canonical|blocks] [--out FILE] [--format F]", stdout)
	in := fs.String("in", "", "trace file to import (\"-\" for standard input)")
	to := fs.String("to", "canonical", "output: canonical (conversation trace: t in s, prompt and response in tokens) or blocks (block-level JSONL: t in s, input/output in tokens, block size in tokens, hashes)")
	out := fs.String("out", "-", "output file (\"-\" for standard output); written to a temporary file and renamed when complete")
	format := fs.String("format", "table", "format of the summary on stderr: table|markdown|csv|json")
	iflags := addImportFlags(fs)
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one trace format argument, mooncake or bailian (see --help)")
	}
	name := fs.Arg(0)
	if name != "mooncake" && name != "bailian" {
		return fmt.Errorf("trace format %q: want mooncake or bailian", name)
	}
	if *to != "canonical" && *to != "blocks" {
		return fmt.Errorf("flag --to: %q, want canonical or blocks", *to)
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("flag --in: required (the trace file)")
	}
	opt, err := iflags.options()
	if err != nil {
		return err
	}
	src, closer, err := importer.Open(*in, name, opt)
	if err != nil {
		return err
	}
	defer closer.Close()
	var canon *importer.Canonicalizer
	err = writeOutput(ctx, *out, stdout, func(w io.Writer) error {
		if *to == "blocks" {
			return importer.WriteBlocks(w, src)
		}
		var err error
		canon, err = importer.WriteCanonical(w, src)
		return err
	})
	if errors.Is(err, importer.ErrNoRequests) {
		return fmt.Errorf("%s: %w", *in, err)
	}
	if err != nil {
		return err
	}
	doc, t := characterize.ImportSummary(*in, name, src.Summary(), canon)
	return report.Emit(stderr, *format, doc, t)
}

// writeOutput runs write on path ("-" is stdout, whole lines only). A file
// is written whole or not at all (atomicfile): a failed or interrupted
// import leaves no partial or temporary file.
func writeOutput(ctx context.Context, path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		lines := lineout.New(ctx, stdout)
		if err := write(lines); err != nil {
			return err
		}
		return lines.Close()
	}
	var werr error // the input's errors are not the output file's
	err := atomicfile.Write(ctx, path, func(w io.Writer) error { werr = write(w); return werr })
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("flag --out: %w", err)
	}
	return nil
}
