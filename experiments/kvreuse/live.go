package kvreuse

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/kvpipe"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
)

// Live is a measurement of the real recompute/load pipeline on this
// machine, per tier and context length.
type Live struct {
	// Model is the KV configuration whose per-layer size the pipeline
	// carries (named in the set-up line).
	Model kvsize.Config
	// Pipeline is the pipeline's configuration.
	Pipeline kvpipe.Config
	// Tiers and Tokens (context lengths, tokens) are measured in every
	// combination, tiers outermost.
	Tiers  []kvpipe.Tier
	Tokens []int
	// Reps runs are averaged per evaluated ratio and profile point; the
	// profile times each stage alone at ProfileSteps token counts.
	Reps, ProfileSteps int
	// Median uses the median of the runs at each ratio instead of the mean.
	Median bool
	// Options and Variants configure the searches.
	Options  recompute.Options
	Variants []recompute.Variant
	// ProfileOnly fits the hardware profile and skips the searches.
	ProfileOnly bool
	// Progress, when not nil, receives a line per step.
	Progress io.Writer
}

// Measure runs l and returns its output and every timed run (the CSV
// format recompute.WriteMeasurements writes). The tables are the hardware
// profile and, unless ProfileOnly, the searches and the roofline against
// the measured optimum; one figure per tier and length.
func Measure(l Live) (Output, []recompute.Measurement, error) {
	pipe, err := kvpipe.Open(l.Pipeline)
	if err != nil {
		return Output{}, nil, err
	}
	defer pipe.Close()
	var runs []recompute.Measurement
	st := kvpipe.Settings{Reps: l.Reps, ProfileSteps: l.ProfileSteps, Options: l.Options, Variants: l.Variants, Median: l.Median,
		Record: func(m recompute.Measurement) { runs = append(runs, m) }}
	if l.Progress != nil {
		st.Progress = func(s string) { fmt.Fprintln(l.Progress, s) }
	}
	load0 := loadAvg()
	var results []kvpipe.Result
	for _, t := range l.Tiers {
		for _, n := range l.Tokens {
			if l.ProfileOnly {
				if st.Progress != nil {
					st.Progress(fmt.Sprintf("%s, %d tokens: profiling", t, n))
				}
				p, err := pipe.FitProfile(t, n, l.Reps, l.ProfileSteps)
				if err != nil {
					return Output{}, nil, err
				}
				results = append(results, kvpipe.Result{Tier: t.String(), Tokens: n, Profile: p,
					Model: recompute.Model{Profile: p.Profile, Tokens: n, Layers: l.Pipeline.Layers}})
				continue
			}
			r, err := pipe.Measure(t, n, st)
			if err != nil {
				return Output{}, nil, err
			}
			results = append(results, r)
		}
	}
	load1 := loadAvg()
	cfg := l.Pipeline
	setupLine := fmt.Sprintf("%s KV (%.0f bytes/token/layer), %d layers, KV file %.1f MiB, attention dim %d, %d runs per point, %s of runs; load average %s → %s",
		l.Model.Name, l.Model.BytesPerTokenLayer(), cfg.Layers, float64(cfg.FileBytes())/(1<<20), cfg.HeadDim, l.Reps,
		map[bool]string{false: "mean", true: "median"}[l.Median], load0, load1)
	prof := report.Table{Title: "hardware profile of this machine, least squares over stage timings (" + setupLine + ")",
		Header: []string{"tier", "tokens", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "t_o (µs/layer)", "effective bandwidth (GB/s)",
			"R² compute", "R² load", "r0 unclipped"}}
	for _, r := range results {
		p := r.Profile
		prof.Add(report.CellText(r.Tier), report.CellI(int64(r.Tokens)), usCell(p.Profile.Tc), usCell(p.Profile.Ti), usCell(p.Profile.To),
			gbsCell(p.Bandwidth), report.CellF(p.Compute.R2, 3), report.CellF(p.Load.R2, 3), report.CellF(p.Profile.R0(), 4))
	}
	out := Output{Doc: map[string]any{"setup": setupLine, "load_average_before": load0, "load_average_after": load1, "results": results},
		Tables: []report.Table{prof}}
	if l.ProfileOnly {
		return out, runs, nil
	}
	var rows []SearchRow
	for _, r := range results {
		for _, a := range r.Analyses {
			v := r.Model.TTFT(a.R0)
			rows = append(rows, SearchRow{Tier: r.Tier, Tokens: r.Tokens, R0Source: "profile", Analysis: a, PredictedTTFTR0S: &v})
		}
		var grid []recompute.Point
		if len(r.Analyses) > 0 {
			grid = r.Analyses[0].Grid
		}
		md := r.Model
		label := fmt.Sprintf("%s@%d", r.Tier, r.Tokens)
		out.Figures = append(out.Figures, searchFigure(label, grid, &md, r.Analyses))
		out.Labels = append(out.Labels, label)
	}
	o := l.Options
	search := searchTable(fmt.Sprintf("measured optimum on this machine: warm-started golden-section search (ε = %g) and a %d-interval grid over [%g, %g]",
		o.Eps, o.GridIntervals, o.RMin, o.RMax), rows)
	out.Tables = append(out.Tables, search, rooflineVsMeasured(results))
	return out, runs, nil
}

// rooflineVsMeasured is claim 9's table: the roofline's r0 and the
// intercept-aware crossover against the best of the candidate ratios, all
// re-measured side by side.
func rooflineVsMeasured(results []kvpipe.Result) report.Table {
	t := report.Table{Title: "roofline r0 against the measured optimum: r0, the intercept-aware crossover, every r* and the grid minimum re-measured side by side (mean ± standard error)",
		Header: []string{"tier", "tokens", "r0", "TTFT(r0) (ms)", "r0 with stage intercepts", "its TTFT (ms)", "best ratio",
			"best is", "best TTFT (ms)", "regret of r0", "regret of r0 with intercepts"}}
	pm := func(c kvpipe.Candidate) string { return ms(c.TTFT) + " ± " + report.F(1e3*c.SE, 3) }
	for _, r := range results {
		c, ok := kvpipe.CompareRoofline(r)
		if !ok {
			continue
		}
		t.Rows = append(t.Rows, []string{r.Tier, report.I(int64(r.Tokens)), report.F(c.R0.R, 4), pm(c.R0), report.F(c.Intercepts.R, 4), pm(c.Intercepts),
			report.F(c.Best.R, 4), strings.Join(c.Best.Names, ", "), pm(c.Best), report.Pct(c.RegretR0), report.Pct(c.RegretIntercepts)})
	}
	return t
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or "n/a".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "n/a"
}
