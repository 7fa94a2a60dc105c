package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/fits"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/latency"
)

// runLatency fits the linear TTFT model to measured points.
func runLatency(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "fit" {
		return fmt.Errorf("usage: tailbound latency fit --csv FILE (columns uncached_tokens,ttft_ms)")
	}
	fs := newFlags("latency fit", "latency fit --csv FILE [--xi-ms X] [--plot F] [--format F]", stdout)
	var o fits.LatencyOptions
	fs.StringVar(&o.CSV, "csv", "", "CSV of measured points with header columns uncached_tokens (tokens) and ttft_ms (ms)")
	fs.Float64Var(&o.XiMs, "xi-ms", latency.DefaultXiMs, "threshold ξ_s to convert to tokens with the fitted model, ms")
	fs.StringVar(&o.Plot, "plot", "", "also draw the points and the fitted line (the tail-latency paper's Figure 3) to this .svg/.png/.pdf file")
	fs.StringVar(&o.Format, "format", "table", report.FormatHelp)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	doc, t, err := fits.Latency(o)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.Format, doc, t)
}
