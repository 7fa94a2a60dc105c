package suite

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// gapPolicies are every registered policy, Tail-Optimized Belady included.
const gapPolicies = "lru,fifo,lfu,threshold-lru,tlru,etlru,end-aware-tlru,length-aware-tlru,to-belady,belady"

// optimumKey is the record key of the hindsight optimum.
const optimumKey = "optimum"

// smallDuration is the seconds of births of the reduced birth–death
// workload (Options.Small).
const smallDuration = 120

// OptimalityGap is every policy against the exact hindsight optimum (the
// min-cost-flow solver) across capacities and thresholds, Tail-Optimized
// Belady's own gap included (the tail-latency paper compares with
// Tail-Optimized Belady, which is exact only at B = 1).
func OptimalityGap() *Suite {
	return &Suite{
		Name:     "optimality-gap",
		Source:   "tail-latency paper (seed 003): the online policies and Tail-Optimized Belady against the exact optimum (Theorem 1's setting, §4)",
		Workload: "embedded birth–death workload (--trace: any canonical trace)",
		Policies: strings.Split(gapPolicies, ","),
		Metrics:  []string{"TEL (tokens)", "hindsight optimum TEL (tokens)", "relative gap (TEL − opt)/opt"},
		Params: []Param{
			{"trace", "", "canonical trace; omitted: the embedded birth–death workload"},
			{"capacities", "65536,131072,262144", "cache capacities, tokens (small: 16384,32768)"},
			{"xis", "900,1900,2900", "thresholds ξ, tokens (100, 200, 300 ms at α = 0.1, β = 10; small: 1900)"},
			{"block-size", "16", "block size B, tokens"},
			{"policies", gapPolicies, "policies compared with the optimum"},
		},
		Grid:    gapGrid,
		Eval:    gapEval,
		Layout:  gapLayout,
		Figures: gapFigures,
	}
}

func gapGrid(env *Env) ([]Point, error) {
	caps, err := intsParam(env, "capacities")
	if err != nil {
		return nil, err
	}
	xis, err := floatsParam(env, "xis")
	if err != nil {
		return nil, err
	}
	if env.Small {
		if env.isDefault(OptimalityGap(), "capacities") {
			caps = []int64{16384, 32768}
		}
		if env.isDefault(OptimalityGap(), "xis") {
			xis = []float64{1900}
		}
	}
	b, err := intParam(env, "block-size")
	if err != nil {
		return nil, err
	}
	if _, err := policies.Parse(env.Param("policies")); err != nil {
		return nil, fmt.Errorf("flag --policies: %w", err)
	}
	var grid []Point
	for _, c := range caps {
		if err := checkCapacity("capacities", c, b); err != nil {
			return nil, err
		}
		for _, x := range xis {
			grid = append(grid, Point{"capacity": strconv.FormatInt(c, 10), "xi": fmtFloat(x)})
		}
	}
	return grid, nil
}

// gapWorkload returns the suite's birth–death parameters (the default, or
// its first smallDuration seconds when small).
func gapWorkload(env *Env) birthdeath.Params {
	p := birthdeath.Default()
	if env.Small {
		p.Duration = smallDuration
	}
	return p
}

func gapEval(ctx context.Context, env *Env, _ int, p Point) ([]Record, error) {
	tr, err := traceOrBirthDeath(env, gapWorkload(env))
	if err != nil {
		return nil, err
	}
	c, err := parseInt("capacity", p["capacity"])
	if err != nil {
		return nil, err
	}
	xi, err := parseFloat("xi", p["xi"])
	if err != nil {
		return nil, err
	}
	b, err := intParam(env, "block-size")
	if err != nil {
		return nil, err
	}
	entries, err := policies.Parse(env.Param("policies"))
	if err != nil {
		return nil, err
	}
	rows, err := gap.Run(ctx, tr, gap.Config{Block: b, Capacities: []int64{c}, Xis: []float64{xi}, Policies: entries,
		Solver: solvers.Flow, Model: latency.Default(), Workers: 1})
	if err != nil {
		return nil, err
	}
	var recs []Record
	for i, r := range rows {
		if i == 0 {
			recs = append(recs, Record{Key: optimumKey, Values: map[string]Num{"tel_tokens": Num(r.TELOptTokens)}})
		}
		recs = append(recs, Record{Key: r.Policy, Values: map[string]Num{"tel_tokens": Num(r.TELTokens),
			"tel_opt_tokens": Num(r.TELOptTokens)}})
	}
	return recs, nil
}

// traceOrBirthDeath returns the --trace file, or the birth–death trace of
// p with the run's seed.
func traceOrBirthDeath(env *Env, p birthdeath.Params) (*trace.Trace, error) {
	if path := env.Param("trace"); path != "" {
		return fileTrace(env, path)
	}
	key := "default"
	if env.Small {
		key = "small"
	}
	return birthDeathTrace(env, key, p, env.Seed)
}

// gapText is a policy's TEL in 10³ tokens with its relative gap.
func gapText(tel, opt float64) string {
	switch {
	case opt > 0:
		return fmt.Sprintf("%s (%+.2f%%)", report.F(tel/1000, 1), 100*(tel-opt)/opt)
	case tel == 0:
		return "0 (both 0)"
	}
	return report.F(tel/1000, 1) + " (∞, opt 0)"
}

func gapLayout(env *Env, grid []Point, recs []Record) (Output, error) {
	type cell struct{ tel, opt float64 }
	var xis, caps, keys []string
	seenX, seenC, seenK := map[string]bool{}, map[string]bool{}, map[string]bool{}
	at := map[[3]string]cell{}
	type row struct {
		CapacityTokens string   `json:"capacity_tokens"`
		XiTokens       string   `json:"xi_tokens"`
		Policy         string   `json:"policy"`
		TELTokens      Num      `json:"tel_tokens"`
		TELOptTokens   Num      `json:"tel_opt_tokens"`
		RelGap         *float64 `json:"rel_gap"`
	}
	var doc []row
	for _, r := range recs {
		p := grid[r.Point]
		if !seenX[p["xi"]] {
			seenX[p["xi"]] = true
			xis = append(xis, p["xi"])
		}
		if !seenC[p["capacity"]] {
			seenC[p["capacity"]] = true
			caps = append(caps, p["capacity"])
		}
		if !seenK[r.Key] {
			seenK[r.Key] = true
			keys = append(keys, r.Key)
		}
		opt := r.V("tel_opt_tokens")
		if r.Key == optimumKey {
			opt = r.V("tel_tokens")
		}
		at[[3]string{p["xi"], p["capacity"], r.Key}] = cell{r.V("tel_tokens"), opt}
		if r.Key != optimumKey {
			d := row{CapacityTokens: p["capacity"], XiTokens: p["xi"], Policy: r.Key, TELTokens: Num(r.V("tel_tokens")), TELOptTokens: Num(opt)}
			if opt > 0 {
				g := (r.V("tel_tokens") - opt) / opt
				d.RelGap = &g
			}
			doc = append(doc, d)
		}
	}
	var out Output
	for _, x := range xis {
		t := report.Table{Title: fmt.Sprintf("optimality gap at ξ = %s tokens: TEL (10³ tokens) and (TEL − opt)/opt; optimum by min-cost flow", x),
			Header: []string{"policy"}}
		for _, c := range caps {
			t.Header = append(t.Header, "C = "+c)
		}
		for _, k := range keys {
			name := k
			if k == optimumKey {
				name = "hindsight optimum (flow)"
			}
			line := []string{name}
			for _, c := range caps {
				v, ok := at[[3]string{x, c, k}]
				switch {
				case !ok:
					line = append(line, "")
				case k == optimumKey:
					line = append(line, report.F(v.tel/1000, 1))
				default:
					line = append(line, gapText(v.tel, v.opt))
				}
			}
			t.Rows = append(t.Rows, line)
		}
		out.Tables = append(out.Tables, t)
	}
	out.Doc = map[string]any{"block_size_tokens": env.Param("block-size"), "rows": doc}
	return out, nil
}

// gapFigures draws, per ξ, each policy's TEL against capacity with the
// hindsight optimum as a grey band under them (stem "tel-xiX"), and each
// policy's relative gap (TEL − TEL_opt)/TEL_opt against capacity (stem
// "xiX"). Titles name the workload, B and ξ.
func gapFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	type sweep struct {
		gap, tel map[string]*plots.Series
		opt      plots.Band
	}
	by := map[string]*sweep{}
	var xis []string
	var order []string
	seen := map[string]bool{}
	for _, r := range recs {
		p := grid[r.Point]
		sw := by[p["xi"]]
		if sw == nil {
			sw = &sweep{gap: map[string]*plots.Series{}, tel: map[string]*plots.Series{}, opt: plots.Band{Name: "hindsight optimum (exact)"}}
			by[p["xi"]] = sw
			xis = append(xis, p["xi"])
		}
		c, _ := strconv.ParseFloat(p["capacity"], 64)
		if r.Key == optimumKey {
			sw.opt.X = append(sw.opt.X, c)
			sw.opt.Lo = append(sw.opt.Lo, r.V("tel_tokens"))
			sw.opt.Hi = append(sw.opt.Hi, r.V("tel_tokens"))
			continue
		}
		if sw.gap[r.Key] == nil {
			sw.gap[r.Key], sw.tel[r.Key] = &plots.Series{Name: r.Key}, &plots.Series{Name: r.Key}
		}
		if !seen[r.Key] {
			seen[r.Key] = true
			order = append(order, r.Key)
		}
		t := sw.tel[r.Key]
		t.X, t.Y = append(t.X, c), append(t.Y, r.V("tel_tokens"))
		if opt := r.V("tel_opt_tokens"); opt > 0 {
			g := sw.gap[r.Key]
			g.X, g.Y = append(g.X, c), append(g.Y, 100*(r.V("tel_tokens")-opt)/opt)
		}
	}
	workload := "embedded birth–death workload"
	if env.Small {
		workload = fmt.Sprintf("birth–death workload (first %d\u00a0s)", smallDuration)
	}
	if tr := env.Param("trace"); tr != "" {
		workload = filepath.Base(tr)
	}
	settings := fmt.Sprintf("%s, B = %s tokens", workload, env.Param("block-size"))
	var figs []NamedFigure
	for _, x := range xis {
		sw := by[x]
		tel := plots.Figure{Title: fmt.Sprintf("TEL against capacity and the hindsight optimum: %s, ξ = %s tokens", settings, x),
			XLabel: "capacity C (tokens)", YLabel: "TEL (tokens)", LogX: true, Bands: []plots.Band{sw.opt}}
		gap := plots.Figure{Title: fmt.Sprintf("optimality gap against capacity: %s, ξ = %s tokens", settings, x),
			XLabel: "capacity C (tokens)", YLabel: "(TEL − TEL_opt)/TEL_opt (%)", LogX: true}
		for _, k := range order {
			if s := sw.tel[k]; s != nil && len(s.X) > 0 {
				tel.Series = append(tel.Series, *s)
			}
			if s := sw.gap[k]; s != nil && len(s.X) > 0 {
				gap.Series = append(gap.Series, *s)
			}
		}
		figs = append(figs, NamedFigure{Stem: "tel-xi" + x, Figure: tel}, NamedFigure{Stem: "xi" + x, Figure: gap})
	}
	return figs, nil
}
