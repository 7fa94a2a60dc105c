// Package exactgap reports the belief MDP's exact optimum against the
// policies evaluated on the same small instance (mdp/exact): each policy's
// expected TEL, its gap to the optimum and its first decision.
package exactgap

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/mdp/exact"
)

// Report returns the JSON document and the table of rows (from
// exact.Compare, the optimum first) on instance in, with T-LRU's Q̂ = qhat
// tokens.
func Report(in *exact.Instance, qhat float64, rows []exact.Row) (any, report.Table) {
	opt := rows[0]
	t := report.Table{
		Title: fmt.Sprintf("belief MDP, %s world: %d seats, Δ=%g s, horizon %d steps (max %d turns), C=%d tokens, B=%d tokens, ξ=%g tokens, μ=%g/s",
			in.World, len(in.Seats), in.Step, in.Horizon, in.MaxTurns, in.Capacity, in.BlockSize, in.Xi, in.Mu),
		Header: []string{"policy", "expected TEL (tokens)", "gap to optimum (tokens)", "gap (%)", "first decision (tokens per seat)", "states"},
	}
	for _, r := range rows {
		pct := relGap(r.Gap, opt.Value)
		dec := "none (between turns)"
		if r.Decision != nil {
			dec = fmt.Sprint(r.Decision)
		}
		t.Add(report.CellText(r.Name), report.CellF(r.Value, 9), report.CellF(r.Gap, 9), pct, report.CellText(dec),
			report.CellI(int64(r.States)))
	}
	doc := map[string]any{"units": "expected TEL in tokens over the horizon; decisions in tokens per seat",
		"world": in.World.String(), "tolerance_tokens": "values exact up to float64 rounding (tests: 1e-9 relative)",
		"instance": map[string]any{"seats": exact.FormatSeats(in.Seats), "served": in.Served, "mu_per_s": in.Mu,
			"birth_per_s": in.Birth, "step_s": in.Step, "horizon_steps": in.Horizon, "max_turns": in.MaxTurns,
			"capacity_tokens": in.Capacity, "block_size_tokens": in.BlockSize, "xi_tokens": in.Xi,
			"prompt": in.Prompt.String(), "response": in.Response.String(), "forced": in.Forced,
			"discount_per_step": in.Discount, "tlru_qhat_tokens": qhat},
		"policies": rows}
	return doc, t
}

// relGap is the gap of a policy as a percentage of the optimum. Against an
// optimum of 0 a policy that matches it (gap within 10⁻⁹ tokens, the
// values' float64 tolerance) has gap 0, and any other an infinite one,
// shown "∞ (opt 0)" as gap tables show it.
func relGap(gap, opt float64) report.Cell {
	switch {
	case opt > 0:
		return report.CellF(100*gap/opt, 4)
	case math.Abs(gap) <= 1e-9:
		return report.CellAs("0 (both 0)", 0)
	}
	return report.CellAs("∞ (opt 0)", math.Inf(1))
}
