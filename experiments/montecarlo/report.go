package montecarlo

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/experiments/report"
)

// Report returns the JSON document and the table of a Monte Carlo run of
// cfg that gave stats (stats[0] is the first policy, the paired
// comparison's reference): each figure a mean with its 95% CI half-width.
func Report(cfg Config, stats []Stats) (any, report.Table) {
	p, s := cfg.Model, cfg.Settings
	ci := func(v Interval, d int) report.Cell {
		if math.IsNaN(v.Mean) {
			return report.CellNone("n/a (< 2 replications with a value)")
		}
		return report.CellCI(v.Mean, v.Half, d)
	}
	t := report.Table{
		Title: fmt.Sprintf("birth–death Monte Carlo: %d replications (seed %d) of %g s, λ_conv=%.4g/s, μ=%.4g/s, rates %s; C=%d tokens, B=%d tokens, ξ=%.1f tokens; mean ± 95%% CI half-width",
			cfg.Reps, cfg.Seed, p.Duration, p.LambdaConv, p.Mu, p.RateLabel(), s.Capacity, s.BlockSize, s.Xi),
		Header: []string{"policy", "TEL (tokens)", "TEL per turn (tokens)", "mean TTFT (ms)", "P90 TTFT (ms)", "P95 TTFT (ms)", "P99 TTFT (ms)",
			"TEL gap to to-belady (%)", "TEL vs " + stats[0].Name + " (%, paired)"},
	}
	for _, st := range stats {
		gap := Interval{Mean: 100 * st.GapToReference.Mean, Half: 100 * st.GapToReference.Half}
		vs := Interval{Mean: 100 * st.VsFirst.Mean, Half: 100 * st.VsFirst.Half}
		t.Add(report.CellText(st.Name), ci(st.TELTokens, 0), ci(st.TELPerTurn, 2), ci(st.MeanTTFT, 2),
			ci(st.P90, 1), ci(st.P95, 1), ci(st.P99, 1), ci(gap, 2), ci(vs, 2))
	}
	doc := map[string]any{"units": "TEL in tokens and ms per replication, TTFT in ms, gap as a ratio (TEL − TEL_to-belady)/TEL_to-belady; tel_vs_first_policy the paired ratio (TEL − TEL_first)/TEL_first; each value a mean with its 95% Student-t CI half-width over replications",
		"replications": cfg.Reps, "seed": cfg.Seed, "duration_s": p.Duration, "lambda_conv_per_s": p.LambdaConv, "mu_per_s": p.Mu,
		"rates": p.RateLabel(), "capacity_tokens": s.Capacity, "block_size_tokens": s.BlockSize, "xi_tokens": s.Xi, "policies": stats}
	return doc, t
}
