// Package fits reports the fits of tailbound's models to measured data:
// the TTFT model's (α, β) to measured points (latency fit) and the
// birth–death model to a canonical trace (gen birth-death --fit).
package fits

import (
	"path/filepath"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/latency"
)

// LatencyOptions are the settings of latency fit.
type LatencyOptions struct {
	// CSV is the file of measured points (latency.ReadPoints: columns
	// uncached_tokens, tokens, and ttft_ms, ms).
	CSV string
	// XiMs is a threshold ξ_s, ms, converted to tokens with the fit.
	XiMs float64
	// Plot, when not empty, is the .svg/.png/.pdf file of the points and
	// the fitted line.
	Plot string
	// Format is the output format (report.FormatHelp).
	Format string
}

// Validate returns an *option.Error for a setting that cannot be used.
func (o LatencyOptions) Validate() error {
	if err := report.CheckFormat(o.Format); err != nil {
		return err
	}
	if o.CSV == "" {
		return option.Errorf("csv", "required")
	}
	return nil
}

// Latency fits TTFT = β + α·b to the points of o.CSV, draws them when
// o.Plot is set, and returns what latency fit prints: the fit as the JSON
// document and as one table row.
func Latency(o LatencyOptions) (any, report.Table, error) {
	if err := o.Validate(); err != nil {
		return nil, report.Table{}, err
	}
	m, pts, err := latency.FitFile(o.CSV)
	if err != nil {
		return nil, report.Table{}, err
	}
	rmse := m.RMSE(pts)
	if err := atomicfile.RefuseInput(o.Plot, o.CSV); err != nil {
		return nil, report.Table{}, option.Wrap("plot", err)
	}
	if o.Plot != "" {
		if err := plots.LatencyFit(pts, m, "TTFT vs uncached tokens: "+filepath.Base(o.CSV)).Save(o.Plot); err != nil {
			return nil, report.Table{}, option.Wrap("plot", err)
		}
	}
	doc := map[string]any{"alpha_ms_per_token": m.AlphaMs, "beta_ms": m.BetaMs, "points": len(pts),
		"rmse_ms": rmse, "xi_ms": o.XiMs, "xi_tokens": m.XiTokens(o.XiMs)}
	t := report.Table{Title: "least-squares fit TTFT = β + α·b of " + o.CSV,
		Header: []string{"α (ms/token)", "β (ms)", "points", "RMSE (ms)", "ξ_s (ms)", "ξ (tokens)"}}
	t.Add(report.CellF(m.AlphaMs, 6), report.CellF(m.BetaMs, 3), report.CellI(int64(len(pts))), report.CellF(rmse, 3),
		report.CellF(o.XiMs, 1), report.CellF(m.XiTokens(o.XiMs), 1))
	return doc, t, nil
}
