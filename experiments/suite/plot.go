package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/internal/option"
)

// PlotOptions are the settings of plot SUITE.
type PlotOptions struct {
	// Run are the suite's run options (when not drawing from Results);
	// the suite's parameters among Given are added to its Params.
	Run Options
	// Given are the flags given on the command line as --name=value.
	Given []string
	// Dir is the directory the figures are written into, as
	// SUITE-STEM.EXT.
	Dir string
	// Ext is the figure format: svg, png or pdf.
	Ext string
	// Results, when not empty, are comma-separated result files (shards
	// are merged) drawn instead of running the suite.
	Results string
}

// Plot runs suite s (or reads its result files) and draws its figures
// into o.Dir, printing each file's path on stdout once written.
func Plot(ctx context.Context, s *Suite, o PlotOptions, stdout io.Writer) error {
	if o.Ext != "svg" && o.Ext != "png" && o.Ext != "pdf" {
		return option.Errorf("ext", "want svg, png or pdf, got %q", o.Ext)
	}
	var f *File
	var err error
	if o.Results != "" {
		if f, err = ReadFiles(strings.Split(o.Results, ",")); err != nil {
			return err
		}
	} else if f, err = Run(ctx, s, s.withGiven(o.Run, o.Given), Shard{I: 1, N: 1}); err != nil {
		return err
	}
	figs, err := Figures(s, f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	for _, g := range figs {
		p := filepath.Join(o.Dir, s.Name+"-"+g.Stem+"."+o.Ext)
		if err := g.Save(p); err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
	}
	return nil
}
