// Package kvreuse runs the experiments of "recompute or load a reused KV
// cache": the selective-recompute roofline across storage tiers and context
// lengths, the compute-and-load schedules, the roofline fitted to measured
// curves, and the warm-started search for the measured optimum, on a CSV of
// measurements or live on this machine. Each returns an Output: the JSON
// document, the tables and the figures of one command.
package kvreuse

import (
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
)

// Output is one experiment's result, ready to print.
type Output struct {
	// Doc is the JSON document.
	Doc any
	// Tables are the human-readable tables, in order.
	Tables []report.Table
	// Figures are the plots; Labels[i] names Figures[i] when there are
	// several (SavePlots suffixes the path with it).
	Figures []plots.Figure
	Labels  []string
}

// SavePlots writes the figures to path, or, when there are several, to
// path with "-label" before its extension, one file per figure.
func (o Output) SavePlots(path string) error {
	for i, f := range o.Figures {
		label := ""
		if i < len(o.Labels) {
			label = o.Labels[i]
		}
		if err := f.Save(PlotName(path, label, len(o.Figures) > 1)); err != nil {
			return err
		}
	}
	return nil
}

// PlotName returns path with "-label" before the extension when several
// figures share one path ("@", "/" and spaces in label become "-").
func PlotName(path, label string, many bool) string {
	if !many {
		return path
	}
	ext := filepath.Ext(path)
	label = strings.NewReplacer("@", "-", "/", "-", " ", "-").Replace(label)
	return strings.TrimSuffix(path, ext) + "-" + label + ext
}

// ms formats seconds as milliseconds; msCell and usCell are table cells
// of seconds in milliseconds and microseconds.
func ms(s float64) string          { return msCell(s).Text }
func msCell(s float64) report.Cell { return report.CellF(1e3*s, 3) }
func usCell(s float64) report.Cell { return report.CellF(1e6*s, 4) }

// gbsCell is a bandwidth in bytes/s as GB/s ("n/a", no value, when 0).
func gbsCell(b float64) report.Cell {
	if b == 0 {
		return report.CellNone("n/a")
	}
	return report.CellF(b/1e9, 3)
}
