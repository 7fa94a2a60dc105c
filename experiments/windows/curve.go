package windows

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// CurveReport is the JSON document of solve --windows N1,N2,…: the
// interval at each window count, tokens, and the settings.
type CurveReport struct {
	Unit     string            `json:"unit"`
	Points   []*window.Bounds  `json:"points"`
	Settings map[string]string `json:"settings"`
}

// curve solves the trace at each window count of c.Curve (one read each)
// and draws the width against the window size to c.Plot when set.
func (c Command) curve(ctx context.Context, mem *trace.Trace, p instance.Params, turns int, label string, settings map[string]string) (any, []report.Table, error) {
	rep := &CurveReport{Unit: "tokens", Settings: settings}
	for _, n := range c.Curve {
		if n < 1 {
			return nil, nil, option.Errorf("windows", "each window count must be ≥ 1, got %d", n)
		}
		b, err := c.solve(ctx, mem, p, window.Size(turns, n), nil)
		if err != nil {
			return nil, nil, err
		}
		b.PerWindow = nil
		rep.Points = append(rep.Points, b)
	}
	t := report.Table{Title: fmt.Sprintf("windowed TEL bounds of %s: %d turns, seams ±%d steps, lower overlap ≤ %d steps", label, turns, c.SeamTurns, c.LowerOverlap),
		Header: []string{"windows", "window (steps)", "lower bound (tokens)", "upper bound (tokens)", "relative width"}}
	for _, b := range rep.Points {
		t.Add(report.CellI(int64(b.Windows)), report.CellI(int64(b.WindowTurns)), report.CellF(b.Lower, 3), report.CellF(b.Upper, 3),
			report.CellFracAs(fmt.Sprintf("%.4f%%", 100*b.RelativeWidth), b.RelativeWidth))
	}
	if c.Plot != "" {
		if err := WidthFigure(label, rep.Points).Save(c.Plot); err != nil {
			return nil, nil, option.Wrap("plot", err)
		}
	}
	return rep, []report.Table{t}, nil
}

// WidthFigure draws the relative width of each interval (%) against its
// window size (steps, log scale).
func WidthFigure(label string, pts []*window.Bounds) plots.Figure {
	s := plots.Series{Name: "relative width"}
	for _, b := range pts {
		s.X = append(s.X, float64(b.WindowTurns))
		s.Y = append(s.Y, 100*b.RelativeWidth)
	}
	title := label
	if len(pts) > 0 {
		title = fmt.Sprintf("%s (%s turns): width of the windowed TEL interval, seams ±%d steps, lower overlap %d steps", label, strconv.Itoa(pts[0].Turns), pts[0].SeamTurns, pts[0].LowerOverlap)
	}
	return plots.Figure{Title: title, XLabel: "window size (steps)", YLabel: "(upper − lower)/upper (%)", Series: []plots.Series{s}, LogX: true}
}
