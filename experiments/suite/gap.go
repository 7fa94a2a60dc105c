package suite

import (
	"context"
	"fmt"
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

// gapFigures draws the relative gap against capacity, one line per policy,
// one figure per ξ.
func gapFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	series := map[string]map[string]*plots.Series{}
	var xis []string
	var order []string
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Key == optimumKey {
			continue
		}
		p := grid[r.Point]
		if series[p["xi"]] == nil {
			series[p["xi"]] = map[string]*plots.Series{}
			xis = append(xis, p["xi"])
		}
		s := series[p["xi"]][r.Key]
		if s == nil {
			s = &plots.Series{Name: r.Key}
			series[p["xi"]][r.Key] = s
		}
		if !seen[r.Key] {
			seen[r.Key] = true
			order = append(order, r.Key)
		}
		c, _ := strconv.ParseFloat(p["capacity"], 64)
		opt := r.V("tel_opt_tokens")
		if opt > 0 {
			s.X = append(s.X, c)
			s.Y = append(s.Y, 100*(r.V("tel_tokens")-opt)/opt)
		}
	}
	var figs []NamedFigure
	for _, x := range xis {
		f := plots.Figure{Title: "optimality gap against capacity, ξ = " + x + " tokens", XLabel: "capacity (tokens)",
			YLabel: "(TEL − opt)/opt (%)", LogX: true}
		for _, k := range order {
			if s := series[x][k]; s != nil && len(s.X) > 0 {
				f.Series = append(f.Series, *s)
			}
		}
		figs = append(figs, NamedFigure{Stem: "xi" + x, Figure: f})
	}
	return figs, nil
}
