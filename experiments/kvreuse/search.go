package kvreuse

import (
	"errors"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/recompute"
)

// SearchRow is one analysed curve and search variant.
type SearchRow struct {
	Tier     string             `json:"tier"`
	Tokens   int                `json:"tokens"`
	R0Source string             `json:"r0_source"`
	Analysis recompute.Analysis `json:"analysis"`
	// PredictedTTFTR0S is the roofline's TTFT at r0 with the profile used,
	// seconds (absent when r0 was given directly).
	PredictedTTFTR0S *float64 `json:"predicted_ttft_r0_s,omitempty"`
}

// CSVSearch is a search for the measured optimum on recorded curves.
type CSVSearch struct {
	// Source names the measurements (a file) in messages and titles.
	Source string
	// Measurements are the recorded runs, one curve per tier and length.
	Measurements []recompute.Measurement
	// Options bound and tune the search; the measured points are its grid
	// (shown when GridIntervals > 0).
	Options recompute.Options
	// Variants are the search variants to run on each curve.
	Variants []recompute.Variant
	// R0, when not nil, is the warm start given directly; otherwise
	// Profile, when not nil, gives it; otherwise the roofline is fitted to
	// each curve.
	R0      *float64
	Profile *recompute.Profile
	// R0Source says how R0 or Profile was given (reported per row).
	R0Source string
	// Layers scales a fitted profile; DefaultTokens is the context length
	// of curves that do not state theirs, tokens (at least 1 is used).
	Layers, DefaultTokens int
}

// Search runs every variant of the warm-started golden-section search on
// each curve of s, interpolated between its measured ratios.
func Search(s CSVSearch) (Output, error) {
	o := s.Options
	var rows []SearchRow
	var out Output
	for _, c := range recompute.Curves(s.Measurements) {
		lo, hi := c.Range()
		oc := o
		oc.RMin, oc.RMax = math.Max(o.RMin, lo), math.Min(o.RMax, hi)
		if !(oc.RMin < oc.RMax) {
			return Output{}, fmt.Errorf("%s: curve %s measures r in [%v, %v], which leaves nothing of [r_min, r_max] = [%v, %v] to search",
				s.Source, c.Label(), lo, hi, o.RMin, o.RMax)
		}
		row := SearchRow{Tier: c.Tier, Tokens: c.Tokens}
		var model *recompute.Model
		var r0raw float64
		switch {
		case s.R0 != nil:
			r0raw, row.R0Source = *s.R0, s.R0Source
		case s.Profile != nil:
			r0raw, row.R0Source = s.Profile.R0(), s.R0Source
		default:
			n := c.Tokens
			if n == 0 {
				n = max(s.DefaultTokens, 1)
			}
			pts := make([]recompute.CurvePoint, len(c.Points))
			copy(pts, c.Points)
			fit, err := recompute.FitRoofline(pts, n, s.Layers)
			if err != nil {
				return Output{}, fmt.Errorf("%s: curve %s: %w", s.Source, c.Label(), err)
			}
			r0raw, row.R0Source = fit.R0(), "fit to this curve"
			if !fit.Consistent {
				row.R0Source += " (no roofline shape)"
			}
			md := recompute.Model{Profile: fit.Profile, Tokens: n, Layers: s.Layers}
			model = &md
		}
		if math.IsNaN(r0raw) {
			return Output{}, errors.New("r0 is not a number")
		}
		oc.GridIntervals = 0 // the measured points are the grid
		as, err := recompute.AnalyzeAll(c.Objective(), r0raw, oc, s.Variants)
		if err != nil {
			return Output{}, fmt.Errorf("%s: curve %s: %w", s.Source, c.Label(), err)
		}
		var grid []recompute.Point
		for _, p := range c.Points {
			if p.R >= oc.RMin && p.R <= oc.RMax {
				grid = append(grid, recompute.Point{R: p.R, TTFT: p.TTFT})
			}
		}
		for _, a := range as {
			if len(grid) > 0 && o.GridIntervals > 0 {
				a.SetGrid(grid, o.Tol)
			}
			r := row
			r.Analysis = a
			if model != nil {
				v := model.TTFT(a.R0)
				r.PredictedTTFTR0S = &v
			}
			rows = append(rows, r)
		}
		out.Figures = append(out.Figures, searchFigure(c.Label(), grid, model, as))
		out.Labels = append(out.Labels, c.Label())
	}
	title := fmt.Sprintf("warm-started golden-section search on %s (interpolated between measured ratios; ε = %g)", s.Source, o.Eps)
	out.Doc = map[string]any{"source": s.Source, "rows": rows}
	out.Tables = []report.Table{searchTable(title, rows)}
	return out, nil
}

// FitRow is the roofline fitted to one measured curve.
type FitRow struct {
	Tier   string        `json:"tier"`
	Tokens int           `json:"tokens"`
	Fit    recompute.Fit `json:"fit"`
	R0     float64       `json:"r0_unclipped"`
}

// Profile fits the roofline TTFT(r) = layers·(max(r·N·t_c, (1−r)·N·t_i) +
// t_o) by least squares to each curve of ms (from source), with defaultTokens
// the context length of curves that do not state theirs.
func Profile(source string, meas []recompute.Measurement, layers, defaultTokens int) (Output, error) {
	var rows []FitRow
	tbl := report.Table{Title: fmt.Sprintf("roofline TTFT(r) = layers·(max(r·N·t_c, (1−r)·N·t_i) + t_o) fitted by least squares to %s (%d layers)", source, layers),
		Header: []string{"tier", "tokens", "points", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "t_o (µs/layer)", "r0 unclipped", "RMSE (ms)", "roofline shape"}}
	for _, c := range recompute.Curves(meas) {
		n := c.Tokens
		if n == 0 {
			n = defaultTokens
		}
		fit, err := recompute.FitRoofline(c.Points, n, layers)
		if err != nil {
			return Output{}, fmt.Errorf("%s: curve %s: %w", source, c.Label(), err)
		}
		rows = append(rows, FitRow{Tier: c.Tier, Tokens: n, Fit: fit, R0: fit.R0()})
		shape := "yes"
		if !fit.Consistent {
			shape = "no (no split is consistent; do not trust)"
		}
		tbl.Add(report.CellText(c.Tier), report.CellI(int64(n)), report.CellI(int64(fit.Points)), usCell(fit.Tc), usCell(fit.Ti), usCell(fit.To),
			report.CellF(fit.R0(), 4), msCell(fit.RMSE), report.CellText(shape))
	}
	return Output{Doc: map[string]any{"source": source, "layers": layers, "rows": rows}, Tables: []report.Table{tbl}}, nil
}

func searchTable(title string, rows []SearchRow) report.Table {
	t := report.Table{Title: title, Header: []string{"tier", "tokens", "variant", "r0 from", "r0", "r*", "TTFT(r0) (ms)", "TTFT(r*) (ms)",
		"regret TTFT(r0)/TTFT(r*)−1", "evaluations", "classic evaluations", "probe order inverted", "grid best r", "grid best TTFT (ms)",
		"r* vs grid best", "unimodal", "roofline TTFT(r0) (ms)"}}
	for _, r := range rows {
		a := r.Analysis
		// "-" is no value; a missed grid best is flagged in the text (and
		// in the JSON's gss_missed_minimum); CSV writes its gap as the fraction.
		gb, gt, gap := report.CellNone("-"), report.CellNone("-"), report.CellNone("-")
		if len(a.Grid) > 0 {
			gb, gt, gap = report.CellF(a.GridBest.R, 4), msCell(a.GridBest.TTFT), report.CellPct(a.GridGap)
			if a.Missed {
				gap = report.CellFracAs(gap.Text+" (missed)", a.GridGap)
			}
		}
		uni := "yes"
		if !a.Unimodal {
			uni = fmt.Sprintf("no: +%s ms at r=%.3f", report.F(1e3*a.Bump.Excess, 3), a.Bump.R)
		}
		pred := report.CellNone("-")
		if r.PredictedTTFTR0S != nil {
			pred = msCell(*r.PredictedTTFTR0S)
		}
		tok := report.CellNone("-")
		if r.Tokens > 0 {
			tok = report.CellI(int64(r.Tokens))
		}
		t.Add(report.CellText(r.Tier), tok, report.CellText(a.Variant.String()), report.CellText(r.R0Source), report.CellF(a.R0, 4),
			report.CellF(a.RStar, 4), msCell(a.TTFTR0), msCell(a.TTFTRStar), report.CellPct(a.Regret), report.CellI(int64(a.Evaluations)),
			report.CellI(int64(a.ClassicEvaluations)), report.CellText(fmt.Sprint(a.Inverted)), gb, gt, gap, report.CellText(uni), pred)
	}
	return t
}

// searchFigure draws one measured curve with the roofline prediction
// (when a profile is known), r0 and each variant's r*.
func searchFigure(label string, grid []recompute.Point, model *recompute.Model, as []recompute.Analysis) plots.Figure {
	f := plots.Figure{Title: "TTFT against recompute ratio, " + label, XLabel: "recompute ratio r (fraction of tokens)", YLabel: "TTFT (ms)"}
	var xs, ys []float64
	for _, p := range grid {
		xs, ys = append(xs, p.R), append(ys, 1e3*p.TTFT)
	}
	f.Series = append(f.Series, plots.Series{Name: "measured", X: xs, Y: ys})
	if model != nil && len(grid) > 0 {
		var mx, my []float64
		for _, p := range grid {
			mx, my = append(mx, p.R), append(my, 1e3*model.TTFT(p.R))
		}
		f.Series = append(f.Series, plots.Series{Name: "roofline (fitted profile)", X: mx, Y: my})
	}
	if len(as) > 0 {
		f.Markers = append(f.Markers, plots.Marker{Name: fmt.Sprintf("r0 = %.3f", as[0].R0), X: as[0].R0})
	}
	for _, a := range as {
		f.Markers = append(f.Markers, plots.Marker{Name: fmt.Sprintf("r* %s = %.3f", a.Variant, a.RStar), X: a.RStar})
	}
	return f
}
