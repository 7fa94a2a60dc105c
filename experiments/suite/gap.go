package suite

import (
	"context"
	"fmt"
	"math"
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
	"github.com/tailbound/tailbound/models/objective"
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
			turnBoundParam(),
			turnBoundTimeParam(),
			{"tail-objectives", "p90,slo", "objectives bounded in hindsight when --tail-bounds is on: slo and pQ (one grid point each per capacity; LRU, T-LRU and to-belady beside them)"},
			{"slo-ms", "200", "SLO of the violation bound and the policies' violation counts, ms (α = 0.1 ms/token, β = 10 ms)"},
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
	solver, err := turnBoundSolver(env)
	if err != nil {
		return nil, err
	}
	var objs []objective.Objective
	if solver != "" {
		if objs, err = turnBoundObjectives(env); err != nil {
			return nil, err
		}
		if _, err := turnBoundTimeLimit(env); err != nil {
			return nil, err
		}
		if _, err := floatParam(env, "slo-ms"); err != nil {
			return nil, err
		}
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
	// The bound points come after the TEL points (one per capacity and
	// objective; the interval does not depend on ξ, the policies' values
	// beside it are at every ξ).
	for _, o := range objs {
		for _, c := range caps {
			grid = append(grid, Point{"capacity": strconv.FormatInt(c, 10), boundKey: o.String()})
		}
	}
	return grid, nil
}

// gapBoundPolicies are the policies put beside the hindsight tail bounds.
const gapBoundPolicies = "lru,tlru,to-belady"

// gapBoundEval bounds one objective at one capacity (a bound point): the
// interval (optKey) and, at every ξ of the run, LRU's, T-LRU's and
// Tail-Optimized Belady's value (violations, or uncached tokens with
// value_ms its TTFT) from gap.RunTail.
func gapBoundEval(ctx context.Context, env *Env, p Point) ([]Record, error) {
	solver, err := turnBoundSolver(env)
	if err != nil {
		return nil, err
	}
	if solver == "" {
		return nil, fmt.Errorf("grid point %v: a bound point with --tail-bounds none", p)
	}
	tr, err := traceOrBirthDeath(env, gapWorkload(env))
	if err != nil {
		return nil, err
	}
	c, err := parseInt("capacity", p["capacity"])
	if err != nil {
		return nil, err
	}
	b, err := intParam(env, "block-size")
	if err != nil {
		return nil, err
	}
	obj, err := objective.Parse(p[boundKey])
	if err != nil {
		return nil, err
	}
	sloMs, err := floatParam(env, "slo-ms")
	if err != nil {
		return nil, err
	}
	var xis []float64
	grid, err := gapGrid(env)
	if err != nil {
		return nil, err
	}
	for _, q := range grid {
		if q["capacity"] == p["capacity"] && q[boundKey] == "" {
			x, err := parseFloat("xi", q["xi"])
			if err != nil {
				return nil, err
			}
			xis = append(xis, x)
		}
	}
	m := latency.Default()
	s, err := (objective.SLOSettings{SLOMs: sloMs, SLOTokens: math.NaN()}).Resolve(m, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	entries, err := policies.Parse(gapBoundPolicies)
	if err != nil {
		return nil, err
	}
	limit, err := turnBoundTimeLimit(env)
	if err != nil {
		return nil, err
	}
	rows, err := gap.RunTail(ctx, tr, gap.Config{Block: b, Capacities: []int64{c}, Xis: xis, Policies: entries, Model: m, Workers: 1, TimeLimit: limit},
		gap.TailSpec{Objective: obj, SLOTokens: s, Solver: solver, Model: m})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("grid point %v: no rows", p)
	}
	r0 := rows[0]
	proven := Num(0)
	if r0.Proven {
		proven = 1
	}
	opt := Record{Key: optKey, Values: map[string]Num{"lo": Num(r0.LowerBound), "hi": Num(r0.UpperBound), "proven": proven, "slo_tokens": Num(s),
		"time_limit_s": Num(r0.TimeLimitSeconds)}}
	if obj.Kind == objective.Percentile {
		opt.Values["lo_ms"], opt.Values["hi_ms"] = Num(m.TTFTMs(float64(r0.LowerBound))), Num(m.TTFTMs(float64(r0.UpperBound)))
	}
	recs := []Record{opt}
	for _, r := range rows {
		v := map[string]Num{"xi": Num(r.XiTokens), "value": Num(r.Value)}
		if r.ValueTTFTMs != nil {
			v["value_ms"] = Num(*r.ValueTTFTMs)
		}
		recs = append(recs, Record{Key: r.Policy, Values: v})
	}
	return recs, nil
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
	if p[boundKey] != "" {
		return gapBoundEval(ctx, env, p)
	}
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
		if p[boundKey] != "" {
			continue
		}
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
	bt, bd := gapBoundTables(grid, recs)
	out.Tables = append(out.Tables, bt...)
	d := map[string]any{"block_size_tokens": env.Param("block-size"), "rows": doc}
	if len(bd) > 0 {
		d["hindsight_bounds"] = bd
		d["slo_ms"] = env.Param("slo-ms")
	}
	out.Doc = d
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
		if p[boundKey] != "" {
			continue
		}
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
	return append(figs, gapBoundFigures(grid, recs, settings, env.Param("slo-ms"))...), nil
}

// gapBoundRow is one row of the optimality-gap suite's hindsight tail
// bounds in the JSON document: at one capacity and ξ, the objective's
// interval and LRU's, T-LRU's and Tail-Optimized Belady's values
// (violations in turns, percentiles as TTFT in ms) with Reach in percent.
type gapBoundRow struct {
	CapacityTokens string `json:"capacity_tokens"`
	XiTokens       Num    `json:"xi_tokens"`
	Objective      string `json:"objective"`
	LRU            Num    `json:"lru"`
	TLRU           Num    `json:"tlru"`
	TOBelady       Num    `json:"to_belady"`
	Lower          Num    `json:"optimum_lower"`
	Upper          Num    `json:"optimum_upper"`
	Proven         bool   `json:"proven_optimal"`
	GainPct        Num    `json:"tlru_gain_pct"`
	PossibleLo     Num    `json:"possible_gain_lower_pct"`
	PossibleHi     Num    `json:"possible_gain_upper_pct"`
	ShareLo        Num    `json:"share_reached_lower_pct"`
	ShareHi        Num    `json:"share_reached_upper_pct"`
}

// gapBound is one bound point's records: the objective, its interval
// (in ms for a percentile) and each policy's value by ξ.
type gapBound struct {
	obj      objective.Objective
	capacity string
	lo, hi   float64
	proven   bool
	values   map[float64]map[string]float64 // ξ → policy → value (ms for pQ)
	xis      []float64
}

// gapBounds collects the bound points' records in grid order.
func gapBounds(grid []Point, recs []Record) []*gapBound {
	var out []*gapBound
	at := map[int]*gapBound{}
	for _, r := range recs {
		p := grid[r.Point]
		if p[boundKey] == "" {
			continue
		}
		b := at[r.Point]
		if b == nil {
			o, err := objective.Parse(p[boundKey])
			if err != nil {
				continue
			}
			b = &gapBound{obj: o, capacity: p["capacity"], values: map[float64]map[string]float64{}}
			at[r.Point] = b
			out = append(out, b)
		}
		pct := b.obj.Kind == objective.Percentile
		if r.Key == optKey {
			b.lo, b.hi, b.proven = r.V("lo"), r.V("hi"), r.V("proven") == 1
			if pct {
				b.lo, b.hi = r.V("lo_ms"), r.V("hi_ms")
			}
			continue
		}
		x := r.V("xi")
		if b.values[x] == nil {
			b.values[x] = map[string]float64{}
			b.xis = append(b.xis, x)
		}
		v := r.V("value")
		if pct {
			v = r.V("value_ms")
		}
		b.values[x][r.Key] = v
	}
	return out
}

// gapBoundTables is one table per bounded objective: at every ξ and
// capacity, "T-LRU reaches X of a possible Y" (Reach against LRU) and
// Tail-Optimized Belady's value beside the interval.
func gapBoundTables(grid []Point, recs []Record) ([]report.Table, []gapBoundRow) {
	var ts []report.Table
	var doc []gapBoundRow
	idx := map[string]int{}
	for _, b := range gapBounds(grid, recs) {
		name := b.obj.String()
		i, ok := idx[name]
		if !ok {
			what, unit := "SLO violations", "turns"
			if b.obj.Kind == objective.Percentile {
				what, unit = strings.ToUpper(name)+" TTFT", "ms"
			}
			ts = append(ts, report.Table{
				Title:  fmt.Sprintf("hindsight bound on %s (%s): T-LRU's gain over LRU beside the best achievable by any schedule (T-LRU reaches X of a possible Y); interval by lp/slo%s", what, unit, boundLimitNote(recs)),
				Header: append(append([]string{"ξ (tokens)", "capacity (tokens)"}, reachHeader...), "to-belady"),
			})
			i = len(ts) - 1
			idx[name] = i
		}
		prec := 0
		if b.obj.Kind == objective.Percentile {
			prec = 1
		}
		for _, x := range b.xis {
			v := b.values[x]
			ts[i].Add(append(append([]report.Cell{report.CellF(x, 0), report.CellText(b.capacity)},
				reachCells(v["lru"], v["tlru"], b.lo, b.hi, b.proven, prec)...), report.CellF(v["to-belady"], prec))...)
			rc := ReachOf(v["lru"], v["tlru"], b.lo, b.hi)
			doc = append(doc, gapBoundRow{CapacityTokens: b.capacity, XiTokens: Num(x), Objective: name, LRU: Num(v["lru"]),
				TLRU: Num(v["tlru"]), TOBelady: Num(v["to-belady"]), Lower: Num(b.lo), Upper: Num(b.hi), Proven: b.proven,
				GainPct: Num(rc.Gain), PossibleLo: Num(rc.PossibleLo), PossibleHi: Num(rc.PossibleHi), ShareLo: Num(rc.ShareLo),
				ShareHi: Num(rc.ShareHi)})
		}
	}
	return ts, doc
}

// gapBoundFigures draws, per bounded objective and ξ, LRU's, T-LRU's and
// Tail-Optimized Belady's value against capacity with the hindsight
// interval as a band (stem "p90-xiX", "slo-xiX").
func gapBoundFigures(grid []Point, recs []Record, settings, sloMs string) []NamedFigure {
	type key struct {
		obj string
		xi  float64
	}
	figs := map[key]*plots.Figure{}
	var order []key
	for _, b := range gapBounds(grid, recs) {
		c, _ := strconv.ParseFloat(b.capacity, 64)
		for _, x := range b.xis {
			k := key{b.obj.String(), x}
			f := figs[k]
			if f == nil {
				f = &plots.Figure{XLabel: "capacity C (tokens)", LogX: true}
				if b.obj.Kind == objective.Percentile {
					f.Title = fmt.Sprintf("%s TTFT against capacity and the hindsight optimum: %s, ξ = %s tokens", strings.ToUpper(k.obj), settings, fmtFloat(x))
					f.YLabel = strings.ToUpper(k.obj) + " TTFT (ms)"
				} else {
					f.Title = fmt.Sprintf("SLO violations (TTFT > %s ms) against capacity and the hindsight optimum: %s, ξ = %s tokens", sloMs, settings, fmtFloat(x))
					f.YLabel = "SLO violations (turns)"
				}
				f.Bands = []plots.Band{{Name: "hindsight optimum [lower, upper]"}}
				for _, n := range strings.Split(gapBoundPolicies, ",") {
					f.Series = append(f.Series, plots.Series{Name: n})
				}
				figs[k] = f
				order = append(order, k)
			}
			band := &f.Bands[0]
			band.X, band.Lo, band.Hi = append(band.X, c), append(band.Lo, b.lo), append(band.Hi, b.hi)
			for i := range f.Series {
				s := &f.Series[i]
				if v, ok := b.values[x][s.Name]; ok {
					s.X, s.Y = append(s.X, c), append(s.Y, v)
				}
			}
		}
	}
	var out []NamedFigure
	for _, k := range order {
		out = append(out, NamedFigure{Stem: fmt.Sprintf("%s-xi%s", k.obj, fmtFloat(k.xi)), Figure: *figs[k]})
	}
	return out
}
