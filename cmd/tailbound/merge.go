package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tailbound/tailbound/experiments/suite"
)

// runMerge combines the result files of a suite's shards and prints the
// unsharded run's output.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "merge FILE... [--format F] [--out FILE]", stdout)
	format := fs.String("format", "table", suite.FormatHelp)
	out := fs.String("out", "", "also write the merged result file here (for plot --results)")
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("usage: tailbound merge FILE... (the result files of tables SUITE --shard i/n)")
	}
	if err := suite.CheckFormat(*format); err != nil {
		return err
	}
	f, err := readResults(fs.Args())
	if err != nil {
		return err
	}
	s, err := suite.Lookup(f.Suite)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writeOutput(ctx, *out, stdout, f.Write); err != nil {
			return err
		}
	}
	return suite.Render(stdout, s, f, *format)
}

// readResults reads and merges result files.
func readResults(paths []string) (*suite.File, error) {
	var files []*suite.File
	for _, p := range paths {
		r, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		f, err := suite.ReadFile(r, p)
		r.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return suite.Merge(files)
}
