package suite

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/outfile"
)

// TablesOptions are the settings of tables SUITE.
type TablesOptions struct {
	// Run are the suite's run options; the suite's parameters among Given
	// are added to its Params.
	Run Options
	// Format is the output format (FormatHelp).
	Format string
	// Shard, when not empty, is the part i/n of the grid to run; its
	// result file is written to Out (standard output when empty). With
	// Slurm, Out is where the script's merge job writes the merged output
	// (default $OUT/SUITE.FORMAT).
	Shard, Out string
	// Slurm, when not 0, prints a Slurm array script running the grid in
	// this many shards and merging them.
	Slurm int
	// Seeds, when not empty, runs the suite for several seeds (seeds.Parse:
	// N seeds from Run.Seed, or a range A-B) and prints each cell's mean
	// ± 95% Student-t interval.
	Seeds string
	// Given are the flags given on the command line as --name=value, in
	// order: the suite's parameters among them set Run.Params, and a Slurm
	// script repeats them (but --slurm, --shard, --out and --format) on
	// every shard.
	Given []string
}

// Tables runs suite s as o says and writes the result to stdout: its
// tables, a shard's result file, a Slurm script or the summary over seeds.
func Tables(ctx context.Context, s *Suite, o TablesOptions, stdout io.Writer) error {
	if err := CheckFormat(o.Format); err != nil {
		return err
	}
	o.Run = s.withGiven(o.Run, o.Given)
	if o.Seeds != "" {
		if o.Slurm != 0 || o.Shard != "" {
			return option.Errorf("seeds", "not with --shard or --slurm")
		}
		return tablesSeeds(ctx, s, o.Run, o.Seeds, o.Format, stdout)
	}
	if o.Slurm != 0 {
		if o.Shard != "" {
			return option.Errorf("shard", "not with --slurm (the script runs every shard)")
		}
		if o.Out == outfile.Stdout {
			return option.Errorf("out", "with --slurm, a file for the merged output (the merge job has no standard output to show)")
		}
		return slurm(s, o, stdout)
	}
	sh := Shard{I: 1, N: 1}
	if o.Shard != "" {
		var err error
		if sh, err = ParseShard(o.Shard); err != nil {
			return err
		}
	} else if o.Out != "" {
		return option.Errorf("out", "only with --shard (the result file of a shard)")
	}
	f, err := Run(ctx, s, o.Run, sh)
	if err != nil {
		return err
	}
	if o.Shard != "" {
		dst := o.Out
		if dst == "" {
			dst = outfile.Stdout
		}
		return outfile.Write(ctx, "out", dst, stdout, f.Write)
	}
	return Render(stdout, s, f, o.Format)
}

// slurm writes the Slurm script of o.Slurm shards running this executable;
// its merge job writes the merged output to o.Out when set.
func slurm(s *Suite, o TablesOptions, stdout io.Writer) error {
	var pass []string
	for _, a := range o.Given {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if name != "slurm" && name != "shard" && name != "out" && name != "format" {
			pass = append(pass, a)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		bin = "tailbound"
	}
	return WriteSlurm(stdout, bin, s.Name, o.Slurm, o.Format, o.Out, pass)
}

// tablesSeeds runs suite s once per seed of list (o.Workers seeds at a
// time, each on one worker) and prints the summary of experiments/seeds.
func tablesSeeds(ctx context.Context, s *Suite, o Options, list, format string, stdout io.Writer) error {
	ss, err := seeds.Parse(list, o.Seed)
	if err != nil {
		return err
	}
	workers := o.Workers
	o.Workers, o.Progress = 1, nil
	per, err := seeds.Run(ss, workers, func(seed uint64) (seeds.Output, error) {
		oo := o
		oo.Seed = seed
		f, err := Run(ctx, s, oo, Shard{I: 1, N: 1})
		if err != nil {
			return seeds.Output{}, err
		}
		out, err := Layout(s, f)
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
		return WriteLaTeX(stdout, out.Tables)
	}
	return report.Emit(stdout, format, out.Doc, out.Tables...)
}
