package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
)

// addSuiteFlags binds the flags every suite command shares into o, with
// progress to stderr when that is a terminal, and registers the suite's own
// parameters (passed on as given flags).
func addSuiteFlags(fs *pflag.FlagSet, s *suite.Suite, o *suite.Options, stderr io.Writer) {
	for _, p := range s.Params {
		fs.String(p.Name, p.Default, p.Help)
	}
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of every random draw of the suite")
	fs.BoolVar(&o.Small, "small", false, "the suite's reduced grid (a quick look; what the tests run)")
	fs.IntVar(&o.Workers, "workers", 2, "grid points evaluated at once")
	o.Progress = progressFunc(stderr)
}

// givenFlags are the flags set on the command line as --name=value, in order.
func givenFlags(fs *pflag.FlagSet) (given []string) {
	fs.Visit(func(f *pflag.Flag) { given = append(given, "--"+f.Name+"="+f.Value.String()) })
	return given
}

// runTables runs an experiment suite and prints its tables.
func runTables(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "--list" {
		fs := newFlags("tables --list", "tables --list [--format F]", stdout)
		format, err := parseFormat(fs, args[1:])
		if err != nil {
			return err
		}
		doc, t := suite.List()
		return report.Emit(stdout, format, doc, t)
	}
	s, rest, err := suite.FromArgs("tables", args)
	if err != nil {
		return err
	}
	fs := newFlags("tables "+s.Name, "tables "+s.Name+" [flags]   ("+s.Source+")", stdout)
	var o suite.TablesOptions
	addSuiteFlags(fs, s, &o.Run, stderr)
	fs.StringVar(&o.Format, "format", "table", suite.FormatHelp)
	fs.StringVar(&o.Shard, "shard", "", "run part i/n of the grid and write its result file (see merge)")
	fs.StringVar(&o.Out, "out", "", "with --shard: the result file (default standard output); with --slurm: where the merge job writes the merged output (default $OUT/SUITE.FORMAT)")
	fs.IntVar(&o.Slurm, "slurm", 0, "print a Slurm array script running the grid in N shards, and a merge job that runs only if every shard succeeds")
	fs.StringVar(&o.Seeds, "seeds", "", "run the suite for N seeds (--seed, --seed+1, …) or a range A-B, --workers at a time, and print each cell's mean ± 95% Student-t interval")
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	o.Given = givenFlags(fs)
	return suite.Tables(ctx, s, o, stdout)
}

// runPlot runs a suite (or reads its result files) and draws its figures.
func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, rest, err := suite.FromArgs("plot", args)
	if err != nil {
		return err
	}
	fs := newFlags("plot "+s.Name, "plot "+s.Name+" [flags] [--results FILE,…]", stdout)
	var o suite.PlotOptions
	addSuiteFlags(fs, s, &o.Run, stderr)
	fs.StringVar(&o.Dir, "dir", ".", "directory of the figures (written as SUITE-NAME.EXT)")
	fs.StringVar(&o.Ext, "ext", "svg", "figure format: svg|png|pdf")
	fs.StringVar(&o.Results, "results", "", "draw from these result files (shards are merged) instead of running the suite")
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	o.Given = givenFlags(fs)
	return suite.Plot(ctx, s, o, stdout)
}
