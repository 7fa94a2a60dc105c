package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/experiments/suite"
)

// suiteFlags are the flags every suite command shares, plus the suite's own
// parameters.
type suiteFlags struct {
	s       *suite.Suite
	seed    uint64
	small   bool
	workers int
	params  map[string]*string
}

func addSuiteFlags(fs *pflag.FlagSet, s *suite.Suite) *suiteFlags {
	f := &suiteFlags{s: s, params: map[string]*string{}}
	for _, p := range s.Params {
		f.params[p.Name] = fs.String(p.Name, p.Default, p.Help)
	}
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random draw of the suite")
	fs.BoolVar(&f.small, "small", false, "the suite's reduced grid (a quick look; what the tests run)")
	fs.IntVar(&f.workers, "workers", 2, "grid points evaluated at once")
	return f
}

func (f *suiteFlags) options(fs *pflag.FlagSet, stderr io.Writer) suite.Options {
	o := suite.Options{Seed: f.seed, Small: f.small, Workers: f.workers, Progress: progressTo(stderr), Params: map[string]string{}}
	for n, v := range f.params {
		if fs.Changed(n) {
			o.Params[n] = *v
		}
	}
	return o
}

// suiteArgs splits the suite name off args.
func suiteArgs(cmd string, args []string) (*suite.Suite, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, nil, fmt.Errorf("usage: tailbound %s SUITE [flags] (tailbound tables --list names the suites)", cmd)
	}
	s, err := suite.Lookup(args[0])
	return s, args[1:], err
}

// runTables runs an experiment suite and prints its tables.
func runTables(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "--list" {
		return listSuites(args[1:], stdout)
	}
	s, rest, err := suiteArgs("tables", args)
	if err != nil {
		return err
	}
	fs := newFlags("tables "+s.Name, "tables "+s.Name+" [flags]   ("+s.Source+")", stdout)
	sf := addSuiteFlags(fs, s)
	format := fs.String("format", "table", suite.FormatHelp)
	shard := fs.String("shard", "", "run part i/n of the grid and write its result file (see merge)")
	out := fs.String("out", "", "with --shard: the result file (default standard output)")
	slurm := fs.Int("slurm", 0, "print a Slurm array script running the grid in N shards and merging them")
	seedList := fs.String("seeds", "", "run the suite for N seeds (--seed, --seed+1, …) or a range A-B, --workers at a time, and print each cell's mean ± 95% Student-t interval")
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	if err := suite.CheckFormat(*format); err != nil {
		return err
	}
	if *seedList != "" {
		if *slurm != 0 || *shard != "" {
			return fmt.Errorf("flag --seeds: not with --shard or --slurm")
		}
		return tablesSeeds(ctx, s, sf.options(fs, stderr), *seedList, *format, stdout)
	}
	if *slurm != 0 {
		var pass []string
		fs.Visit(func(f *pflag.Flag) {
			if f.Name != "slurm" && f.Name != "shard" && f.Name != "out" && f.Name != "format" {
				pass = append(pass, "--"+f.Name+"="+f.Value.String())
			}
		})
		bin, err := os.Executable()
		if err != nil {
			bin = "tailbound"
		}
		return suite.WriteSlurm(stdout, bin, s.Name, *slurm, *format, pass)
	}
	sh := suite.Shard{I: 1, N: 1}
	if *shard != "" {
		if sh, err = suite.ParseShard(*shard); err != nil {
			return err
		}
	} else if *out != "" {
		return fmt.Errorf("flag --out: only with --shard (the result file of a shard)")
	}
	f, err := suite.Run(ctx, s, sf.options(fs, stderr), sh)
	if err != nil {
		return err
	}
	if *shard != "" {
		dst := *out
		if dst == "" {
			dst = "-"
		}
		return writeOutput(ctx, dst, stdout, f.Write)
	}
	return suite.Render(stdout, s, f, *format)
}

// listSuites names every suite with its source.
func listSuites(args []string, stdout io.Writer) error {
	fs := newFlags("tables --list", "tables --list [--format F]", stdout)
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	t := report.Table{Title: "experiment suites (tailbound tables SUITE, tailbound plot SUITE)",
		Header: []string{"suite", "source", "workload"}}
	var doc []map[string]any
	for _, s := range suite.All() {
		t.Rows = append(t.Rows, []string{s.Name, s.Source, s.Workload})
		doc = append(doc, map[string]any{"name": s.Name, "source": s.Source, "workload": s.Workload,
			"policies": s.Policies, "metrics": s.Metrics})
	}
	return report.Emit(stdout, *format, map[string]any{"suites": doc}, t)
}

// runPlot runs a suite (or reads its result files) and draws its figures.
func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, rest, err := suiteArgs("plot", args)
	if err != nil {
		return err
	}
	fs := newFlags("plot "+s.Name, "plot "+s.Name+" [flags] [--results FILE,…]", stdout)
	sf := addSuiteFlags(fs, s)
	dir := fs.String("dir", ".", "directory of the figures (written as SUITE-NAME.EXT)")
	ext := fs.String("ext", "svg", "figure format: svg|png|pdf")
	results := fs.String("results", "", "draw from these result files (shards are merged) instead of running the suite")
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	if *ext != "svg" && *ext != "png" && *ext != "pdf" {
		return fmt.Errorf("flag --ext: want svg, png or pdf, got %q", *ext)
	}
	var f *suite.File
	if *results != "" {
		if f, err = readResults(strings.Split(*results, ",")); err != nil {
			return err
		}
	} else if f, err = suite.Run(ctx, s, sf.options(fs, stderr), suite.Shard{I: 1, N: 1}); err != nil {
		return err
	}
	figs, err := suite.Figures(s, f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	for _, g := range figs {
		p := filepath.Join(*dir, s.Name+"-"+g.Stem+"."+*ext)
		if err := g.Save(p); err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
	}
	return nil
}

// tablesSeeds runs suite s once per seed of list (o.Workers seeds at a
// time, each on one worker) and prints the summary of experiments/seeds.
func tablesSeeds(ctx context.Context, s *suite.Suite, o suite.Options, list, format string, stdout io.Writer) error {
	ss, err := seeds.Parse(list, o.Seed)
	if err != nil {
		return err
	}
	workers := o.Workers
	o.Workers, o.Progress = 1, nil
	per, err := seeds.Run(ss, workers, func(seed uint64) (seeds.Output, error) {
		oo := o
		oo.Seed = seed
		f, err := suite.Run(ctx, s, oo, suite.Shard{I: 1, N: 1})
		if err != nil {
			return seeds.Output{}, err
		}
		out, err := suite.Layout(s, f)
		return seeds.Output{Doc: out.Doc, Tables: out.Tables}, err
	})
	if err != nil {
		return err
	}
	out, err := seeds.Summarize(ss, per, format)
	if err != nil {
		return err
	}
	if format == "latex" {
		return suite.WriteLaTeX(stdout, out.Tables)
	}
	return report.Emit(stdout, format, out.Doc, out.Tables...)
}
