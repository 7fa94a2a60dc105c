package gap

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
)

// Tables returns the report as tables: the optimum, bounds, solver and
// timings of instance in, then the formulation's conditions. The values
// that are numbers are written to CSV at full precision, the rest as text
// ("—", no value, as an empty cell).
func (r *Report) Tables(in *lp.Instance) []report.Table {
	integral := report.CellNone("—")
	if r.Integral != nil {
		integral = report.CellText(fmt.Sprint(*r.Integral))
	}
	t := report.Table{
		Title: fmt.Sprintf("hindsight TEL optimum: %d turns, %d conversations, C=%d tokens, B=%d tokens, ξ=%g tokens, forced=%v",
			in.K(), in.Conversations, in.Capacity, in.BlockSize, in.Xi, in.Forced),
		Header: []string{"quantity", "value"},
	}
	add := func(name string, v report.Cell) { t.Add(report.CellText(name), v) }
	add("TEL optimum (tokens)", report.CellFV(r.TELOptTokens, 3))
	add("TEL optimum (ms)", report.CellFV(r.TELOptMs, 3))
	add("LP bound (tokens)", report.CellFV(r.LPBoundTokens, 3))
	add("LP solution integral (tol "+fmt.Sprint(r.IntegralityTolBlocks)+" blocks)", integral)
	add("to-belady TEL (tokens)", report.CellF(r.BeladyTELTokens, 3))
	add("flow cross-check TEL (tokens)", report.CellFV(r.FlowTELTokens, 3))
	add("status", report.CellText(r.Status))
	add("solver", report.CellText(r.Solver))
	add("formulation", report.CellText(r.Formulation))
	add("LP status / solver", report.CellText(r.LPStatus+" / "+r.LPSolver))
	add("rows × cols (nonzeros)", report.CellText(fmt.Sprintf("%d × %d (%d)", r.Rows, r.Cols, r.NonZeros)))
	add("build / solve / LP solve (s)", report.CellText(fmt.Sprintf("%.3f / %.3f / %.3f", r.BuildSeconds, r.SolveSeconds, r.LPSolveSeconds)))
	add("schedule check", report.CellText(r.ScheduleCheck))
	if r.BestFoundTokens != nil {
		add("best integer point found, not proven optimal (tokens)", report.CellFV(r.BestFoundTokens, 3))
	}
	for _, d := range r.Disagreements {
		add("DISAGREEMENT", report.CellText(d))
	}
	for _, n := range r.Notes {
		add("note", report.CellText(n))
	}
	c := report.Table{Title: "conditions and readings of " + r.Formulation, Header: []string{"name", "condition"}}
	for _, k := range r.Conditions {
		c.Add(report.CellText(k.Name), report.CellText(k.Text))
	}
	return []report.Table{t, c}
}

// SweepTable returns the rows of a sweep of trace (block size block
// tokens, caching forced or not) as one table.
func SweepTable(trace string, block int64, forced bool, rows []Row) report.Table {
	t := report.Table{
		Title: fmt.Sprintf("%s: optimality gap against the hindsight optimum, B=%d tokens, forced=%v; relative gap = (TEL − TEL_opt)/TEL_opt, shown ∞ when TEL_opt = 0 < TEL",
			trace, block, forced),
		Header: []string{"capacity (tokens)", "ξ (tokens)", "policy", "TEL_opt (tokens)", "TEL (tokens)", "gap (tokens)", "gap (ms)", "gap (relative)"},
	}
	for _, r := range rows {
		name := r.Policy
		if r.ThresholdTokens != nil {
			name = fmt.Sprintf("%s(T=%d)", r.Policy, *r.ThresholdTokens)
		}
		t.Add(report.CellI(r.CapacityTokens), report.CellF(r.XiTokens, 2), report.CellText(name), report.CellF(r.TELOptTokens, 2),
			report.CellF(r.TELTokens, 2), report.CellF(r.AbsGapTokens, 2), report.CellF(r.AbsGapMs, 2), r.RelGapCell())
	}
	return t
}

// RelGapCell is the relative gap as RelGapText shows it, written to CSV
// as the fraction: 0 when both are 0, inf for a zero optimum.
func (r Row) RelGapCell() report.Cell {
	switch {
	case r.RelGap != nil:
		return report.CellFracAs(r.RelGapText(), *r.RelGap)
	case r.OptZero == "both zero":
		return report.CellFracAs(r.RelGapText(), 0)
	}
	return report.CellFracAs(r.RelGapText(), math.Inf(1))
}
