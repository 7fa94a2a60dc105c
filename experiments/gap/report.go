package gap

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
)

// optF formats an optional value ("—" when absent).
func optF(p *float64, prec int) string {
	if p == nil {
		return "—"
	}
	return report.F(*p, prec)
}

// Tables returns the report as tables: the optimum, bounds, solver and
// timings of instance in, then the formulation's conditions.
func (r *Report) Tables(in *lp.Instance) []report.Table {
	integral := "—"
	if r.Integral != nil {
		integral = fmt.Sprint(*r.Integral)
	}
	t := report.Table{
		Title: fmt.Sprintf("hindsight TEL optimum: %d turns, %d conversations, C=%d tokens, B=%d tokens, ξ=%g tokens, forced=%v",
			in.K(), in.Conversations, in.Capacity, in.Block, in.Xi, in.Forced),
		Header: []string{"quantity", "value"},
		Rows: [][]string{
			{"TEL optimum (tokens)", optF(r.TELOptTokens, 3)},
			{"TEL optimum (ms)", optF(r.TELOptMs, 3)},
			{"LP bound (tokens)", optF(r.LPBoundTokens, 3)},
			{"LP solution integral (tol " + fmt.Sprint(r.IntegralityTolBlocks) + " blocks)", integral},
			{"to-belady TEL (tokens)", report.F(r.BeladyTELTokens, 3)},
			{"flow cross-check TEL (tokens)", optF(r.FlowTELTokens, 3)},
			{"status", r.Status},
			{"solver", r.Solver},
			{"formulation", r.Formulation},
			{"LP status / solver", r.LPStatus + " / " + r.LPSolver},
			{"rows × cols (nonzeros)", fmt.Sprintf("%d × %d (%d)", r.Rows, r.Cols, r.NonZeros)},
			{"build / solve / LP solve (s)", fmt.Sprintf("%.3f / %.3f / %.3f", r.BuildSeconds, r.SolveSeconds, r.LPSolveSeconds)},
			{"schedule check", r.ScheduleCheck},
		},
	}
	if r.BestFoundTokens != nil {
		t.Rows = append(t.Rows, []string{"best integer point found, not proven optimal (tokens)", optF(r.BestFoundTokens, 3)})
	}
	for _, d := range r.Disagreements {
		t.Rows = append(t.Rows, []string{"DISAGREEMENT", d})
	}
	for _, n := range r.Notes {
		t.Rows = append(t.Rows, []string{"note", n})
	}
	c := report.Table{Title: "conditions and readings of " + r.Formulation, Header: []string{"name", "condition"}}
	for _, k := range r.Conditions {
		c.Rows = append(c.Rows, []string{k.Name, k.Text})
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
		t.Rows = append(t.Rows, []string{report.I(r.CapacityTokens), report.F(r.XiTokens, 2), name, report.F(r.TELOptTokens, 2),
			report.F(r.TELTokens, 2), report.F(r.AbsGapTokens, 2), report.F(r.AbsGapMs, 2), r.RelGapText()})
	}
	return t
}
