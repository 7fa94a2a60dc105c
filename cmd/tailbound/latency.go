package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/latency"
)

// runLatency fits the linear TTFT model to measured points.
func runLatency(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "fit" {
		return fmt.Errorf("usage: tailbound latency fit --csv FILE (columns uncached_tokens,ttft_ms)")
	}
	fs := newFlags("latency fit", "latency fit --csv FILE [--xi-ms X] [--plot F] [--format F]", stdout)
	path := fs.String("csv", "", "CSV of measured points with header columns uncached_tokens (tokens) and ttft_ms (ms)")
	xiMs := fs.Float64("xi-ms", latency.DefaultXiMs, "threshold ξ_s to convert to tokens with the fitted model, ms")
	plot := fs.String("plot", "", "also draw the points and the fitted line (the tail-latency paper's Figure 3) to this .svg/.png/.pdf file")
	format, err := parseFormat(fs, args[1:])
	if err != nil {
		return err
	}
	if *path == "" {
		return fmt.Errorf("flag --csv: required")
	}
	f, err := os.Open(*path)
	if err != nil {
		return err
	}
	defer f.Close()
	pts, err := latency.ReadPoints(f, *path)
	if err != nil {
		return err
	}
	m, err := latency.Fit(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", *path, err)
	}
	rmse := m.RMSE(pts)
	if *plot != "" {
		if err := plots.LatencyFit(pts, m, "TTFT vs uncached tokens: "+filepath.Base(*path)).Save(*plot); err != nil {
			return fmt.Errorf("flag --plot: %w", err)
		}
	}
	doc := map[string]any{"alpha_ms_per_token": m.AlphaMs, "beta_ms": m.BetaMs, "points": len(pts),
		"rmse_ms": rmse, "xi_ms": *xiMs, "xi_tokens": m.XiTokens(*xiMs)}
	t := report.Table{Title: "least-squares fit TTFT = β + α·b of " + *path,
		Header: []string{"α (ms/token)", "β (ms)", "points", "RMSE (ms)", "ξ_s (ms)", "ξ (tokens)"},
		Rows: [][]string{{report.F(m.AlphaMs, 6), report.F(m.BetaMs, 3), fmt.Sprint(len(pts)), report.F(rmse, 3),
			report.F(*xiMs, 1), report.F(m.XiTokens(*xiMs), 1)}}}
	return report.Emit(stdout, format, doc, t)
}
