package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/importer"
)

// addImportFlags binds the importer settings shared by import and characterize.
func addImportFlags(fs *pflag.FlagSet, s *importer.Settings) {
	fs.StringVar(&s.Chain, "chain-length", "ceil", "required hash_ids length for an input of L tokens in B-token blocks: ceil (⌈L/B⌉ blocks), floor (⌊L/B⌋ blocks, full blocks only) or any")
	fs.IntVar(&s.MinSharedBlocks, "min-shared-blocks", importer.DefaultMinSharedBlocks, "Mooncake linking guard k, blocks: a request continues a conversation only through a shared full-block prefix longer than k blocks (the system prompt)")
	fs.StringSliceVar(&s.ExtraTypes, "extra-types", nil, "Bailian request types accepted besides text, search, image, file (comma-separated)")
}

// runImport converts a Mooncake or Bailian trace into the canonical
// conversation trace or the blocks format.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", "import mooncake|bailian --in FILE [--to canonical|blocks] [--out FILE] [--format F]", stdout)
	var o characterize.ImportOptions
	fs.StringVar(&o.In, "in", "", "trace file to import (\"-\" for standard input)")
	fs.StringVar(&o.To, "to", "canonical", "output: canonical (conversation trace: t in s, prompt and response in tokens) or blocks (block-level JSONL: t in s, input/output in tokens, block size in tokens, hashes)")
	fs.StringVar(&o.Out, "out", "-", "output file (\"-\" for standard output); written to a temporary file and renamed when complete")
	fs.StringVar(&o.Format, "format", "table", "format of the summary on stderr: table|markdown|csv|json")
	addImportFlags(fs, &o.Importer)
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	o.Args = fs.Args()
	doc, t, err := characterize.Import(ctx, o, stdout)
	if err != nil {
		return err
	}
	return report.Emit(stderr, o.Format, doc, t)
}
