package main

import (
	"context"
	"io"

	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/experiments/windows"
)

// runMerge combines the result files of a suite's shards and prints the
// unsharded run's output.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "merge FILE... [--format F] [--out FILE]", stdout)
	var o suite.MergeOptions
	fs.StringVar(&o.Format, "format", "table", suite.FormatHelp)
	fs.StringVar(&o.Out, "out", "", "also write the merged result file here (for plot --results)")
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	o.Files = fs.Args()
	o.Others = map[string]func(io.Writer, *suite.File, string) error{windows.Name: windows.Render, windows.BlockName: windows.RenderBlock}
	return suite.MergeFiles(ctx, o, stdout)
}
