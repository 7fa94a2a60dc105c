package suite

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/experiments/tables"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// DefaultWorkloadCapacity is the cache capacity of the embedded birth–death
// workload's runs, tokens (as tailbound simulate's default).
const DefaultWorkloadCapacity = 131072

// The tail-latency suite's datasets.
const (
	datasetBirthDeath = "birth-death"
	datasetMooncake   = "mooncake"
	datasetBoth       = "both"
)

// tailPolicies are the policies of the paper's tables and Figures 5 and 7.
const tailPolicies = "lru,threshold-lru,tlru,end-aware-tlru,length-aware-tlru,to-belady"

// cdfLevels are the TTFT quantiles a record keeps for the CDF figures.
func cdfLevels() []float64 {
	var q []float64
	for k := 1; k <= 99; k++ {
		q = append(q, float64(k)/100)
	}
	return append(q, 0.995, 0.999, 1)
}

// TailLatency is the tail-latency paper's experiment section (seed 003):
// Tables 1–3 and Figure 5 (its first dataset, real timestamps: here the
// conversations derived from the Mooncake conversation trace, or any
// canonical trace), Tables 4–6 and Figure 7 (its second dataset with
// synthetic timestamps from the birth–death model: here the embedded
// birth–death workload). With --dataset birth-death (the default) it is
// exactly the former 'tables tail-latency' command.
func TailLatency() *Suite {
	return &Suite{
		Name:   "tail-latency",
		Source: "tail-latency paper (seed 003): Tables 1–3 and Figure 5; Tables 4–6 and Figure 7 (synthetic timestamps)",
		Workload: "embedded birth–death workload (synthetic timestamps, the paper's second dataset) and/or the " +
			"conversations derived from the Mooncake conversation trace (real timestamps) or --trace",
		Policies: strings.Split(tailPolicies, ","),
		Metrics:  []string{"TTFT P50/P90/P95/P99 and mean (ms)", "TEL (ms)", "SLO violations (turns)"},
		Params: []Param{
			{"dataset", datasetBirthDeath, "birth-death (Tables 1–3/Figure 5 layout on the embedded workload or --trace, as 'tables tail-latency' always printed) | mooncake (Tables 1–3/Figure 5 on the Mooncake conversations) | both (Mooncake as Tables 1–3/Figure 5, birth–death as Tables 4–6/Figure 7)"},
			{"trace", "", "canonical trace for the birth-death dataset; omitted: the embedded birth–death workload"},
			{"xis-ms", "100,200,300", "thresholds ξ_s to tabulate, ms (the paper's 100, 200, 300)"},
			{"capacity", "", fmt.Sprintf("cache capacity, tokens (default %d with the embedded workload; required with --trace)", DefaultWorkloadCapacity)},
			{"mooncake-capacity", "1048576", "cache capacity on the Mooncake conversations, tokens"},
			{"mooncake-xis-ms", "1500,2000,2500", "thresholds ξ_s on the Mooncake conversations, ms (near LRU's P90 there, 2.7 s, as the paper tunes ξ_s to the tail it targets)"},
			{"mooncake-slo-ms", "2000", "SLO of Table 3 on the Mooncake conversations, ms"},
			{"block-size", "16", "block size B, tokens"},
			{"alpha-ms", strconv.FormatFloat(latency.DefaultAlphaMs, 'g', -1, 64), "α: prefill time per uncached token, ms/token"},
			{"beta-ms", strconv.FormatFloat(latency.DefaultBetaMs, 'g', -1, 64), "β: fixed TTFT overhead, ms"},
			{"qhat", "auto", "T-LRU's Q̂: auto (running mean of prompts) or tokens"},
			{"threshold", strconv.Itoa(policy.DefaultThreshold), "Threshold-LRU's T, tokens"},
			{"slo-ms", "200", "SLO of Tables 3 and 6, ms"},
			mooncakeParam(),
			turnBoundParam(),
			turnBoundTimeParam(),
			{"tail-objectives", "slo,p90,p95,p99", "objectives bounded in hindsight when --tail-bounds is on: slo and p50|p90|p95|p99 (one grid point each per dataset)"},
		},
		Grid:    tailGrid,
		Eval:    tailEval,
		Layout:  tailLayout,
		Figures: tailFigures,
	}
}

// tailSettings are the parsed parameters of the tail-latency suite.
type tailSettings struct {
	model     latency.Model
	block     int64
	qhat      float64
	threshold int64
	slo       float64
}

func tailParse(env *Env) (tailSettings, error) {
	var s tailSettings
	var err error
	if s.model.AlphaMs, err = floatParam(env, "alpha-ms"); err != nil {
		return s, err
	}
	if s.model.BetaMs, err = floatParam(env, "beta-ms"); err != nil {
		return s, err
	}
	if err := s.model.Validate(); err != nil {
		return s, fmt.Errorf("flags --alpha-ms/--beta-ms: %w", err)
	}
	if s.block, err = intParam(env, "block-size"); err != nil {
		return s, err
	}
	if q := env.Param("qhat"); q != "auto" {
		v, err := strconv.ParseFloat(q, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return s, fmt.Errorf("flag --qhat: want auto or a number of tokens > 0, got %q", q)
		}
		s.qhat = v
	}
	if s.threshold, err = intParam(env, "threshold"); err != nil {
		return s, err
	}
	if s.slo, err = floatParam(env, "slo-ms"); err != nil {
		return s, err
	}
	return s, nil
}

// checkCapacity validates a capacity and block size in tokens
// (instance.Params.Validate), naming the capacity flag.
func checkCapacity(flag string, capacity, block int64) error {
	if err := (instance.Params{Capacity: capacity, BlockSize: block}).Validate(); err != nil {
		return fmt.Errorf("flags --%s/--block-size: %w", flag, err)
	}
	return nil
}

// tailDatasets returns the datasets of the run, in output order.
func tailDatasets(env *Env) ([]string, error) {
	switch d := env.Param("dataset"); d {
	case datasetBirthDeath, datasetMooncake:
		return []string{d}, nil
	case datasetBoth:
		return []string{datasetMooncake, datasetBirthDeath}, nil
	default:
		return nil, fmt.Errorf("flag --dataset: want birth-death, mooncake or both, got %q", d)
	}
}

// tailCapacity returns the capacity of dataset d.
func tailCapacity(env *Env, d string, block int64) (int64, error) {
	if d == datasetMooncake {
		c, err := intParam(env, "mooncake-capacity")
		if err != nil {
			return 0, err
		}
		return c, checkCapacity("mooncake-capacity", c, block)
	}
	var c int64 = DefaultWorkloadCapacity
	if env.Param("capacity") != "" {
		v, err := intParam(env, "capacity")
		if err != nil {
			return 0, err
		}
		c = v
	} else if env.Param("trace") != "" {
		return 0, fmt.Errorf("flag --capacity: required with --trace (tokens)")
	}
	if c == 0 && env.Param("trace") == "" {
		c = DefaultWorkloadCapacity
	}
	return c, checkCapacity("capacity", c, block)
}

func tailGrid(env *Env) ([]Point, error) {
	s, err := tailParse(env)
	if err != nil {
		return nil, err
	}
	ds, err := tailDatasets(env)
	if err != nil {
		return nil, err
	}
	solver, err := turnBoundSolver(env)
	if err != nil {
		return nil, err
	}
	var objs []objective.Objective
	if solver != "" {
		if objs, err = tailBoundObjectives(env); err != nil {
			return nil, err
		}
		if _, err := turnBoundTimeLimit(env); err != nil {
			return nil, err
		}
	}
	var grid []Point
	for _, d := range ds {
		c, err := tailCapacity(env, d, s.block)
		if err != nil {
			return nil, err
		}
		xis, err := floatsParam(env, tailParamName(d, "xis-ms"))
		if err != nil {
			return nil, err
		}
		for _, x := range xis {
			grid = append(grid, Point{"dataset": d, "xi-ms": fmtFloat(x), "capacity": strconv.FormatInt(c, 10)})
		}
		if solver != "" {
			for _, o := range objs {
				grid = append(grid, Point{"dataset": d, "capacity": strconv.FormatInt(c, 10), boundKey: o.String()})
			}
		}
	}
	return grid, nil
}

// tailBoundObjectives are the objectives of the tail-latency suite's
// bound points: slo and the percentiles its records keep.
func tailBoundObjectives(env *Env) ([]objective.Objective, error) {
	objs, err := turnBoundObjectives(env)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.Kind == objective.Percentile && tailPercentileMetric(o) == "" {
			return nil, fmt.Errorf("flag --tail-objectives: %s: want slo, p50, p90, p95 or p99 (the percentiles of the tables)", o)
		}
	}
	return objs, nil
}

// tailPercentileMetric is the record metric of percentile objective o
// ("" when the records do not keep it).
func tailPercentileMetric(o objective.Objective) string {
	switch o.String() {
	case "p50", "p90", "p95", "p99":
		return o.String()
	}
	return ""
}

// tailBoundEval bounds one objective on one dataset (a bound point).
func tailBoundEval(ctx context.Context, env *Env, s tailSettings, p Point) ([]Record, error) {
	solver, err := turnBoundSolver(env)
	if err != nil {
		return nil, err
	}
	if solver == "" {
		return nil, fmt.Errorf("grid point %v: a bound point with --tail-bounds none", p)
	}
	tr, err := tailTrace(env, p["dataset"])
	if err != nil {
		return nil, err
	}
	c, err := parseInt("capacity", p["capacity"])
	if err != nil {
		return nil, err
	}
	obj, err := objective.Parse(p[boundKey])
	if err != nil {
		return nil, err
	}
	slo, err := tailSLO(env, p["dataset"])
	if err != nil {
		return nil, err
	}
	limit, err := turnBoundTimeLimit(env)
	if err != nil {
		return nil, err
	}
	r, err := turnBound(ctx, tr, instance.Params{Capacity: c, BlockSize: s.block}, s.model, slo, obj, solver, limit)
	if err != nil {
		return nil, err
	}
	return []Record{r}, nil
}

// tailParamName returns the name of parameter name for dataset d: the
// Mooncake dataset has its own thresholds and SLO.
func tailParamName(d, name string) string {
	if d == datasetMooncake {
		return "mooncake-" + name
	}
	return name
}

// tailSLO returns dataset d's SLO, ms.
func tailSLO(env *Env, d string) (float64, error) { return floatParam(env, tailParamName(d, "slo-ms")) }

// tailTrace returns dataset d's trace.
func tailTrace(env *Env, d string) (*trace.Trace, error) {
	if d == datasetMooncake {
		return mooncakeConversations(env, "conversation")
	}
	if p := env.Param("trace"); p != "" {
		return fileTrace(env, p)
	}
	return birthDeathTrace(env, "default", birthdeath.Default(), env.Seed)
}

func tailEval(ctx context.Context, env *Env, _ int, p Point) ([]Record, error) {
	s, err := tailParse(env)
	if err != nil {
		return nil, err
	}
	if p[boundKey] != "" {
		return tailBoundEval(ctx, env, s, p)
	}
	tr, err := tailTrace(env, p["dataset"])
	if err != nil {
		return nil, err
	}
	xi, err := parseFloat("xi-ms", p["xi-ms"])
	if err != nil {
		return nil, err
	}
	c, err := parseInt("capacity", p["capacity"])
	if err != nil {
		return nil, err
	}
	entries, err := policies.Parse(tailPolicies)
	if err != nil {
		return nil, err
	}
	slo, err := tailSLO(env, p["dataset"])
	if err != nil {
		return nil, err
	}
	set := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: c, BlockSize: s.block, Xi: s.model.XiTokens(xi)},
		Model: s.model, SLOMs: slo}, QHat: s.qhat, Threshold: s.threshold}
	res, err := sim.Trace(tr, entries, set)
	if err != nil {
		return nil, fmt.Errorf("ξ_s = %v ms: %w", xi, err)
	}
	var recs []Record
	for _, r := range res {
		m := r.Summary
		v := map[string]Num{"p50": Num(m.P50), "p90": Num(m.P90), "p95": Num(m.P95), "p99": Num(m.P99),
			"mean_ms": Num(m.MeanTTFTMs), "tel_ms": Num(m.TELMs), "violations": Num(m.Violations)}
		ms, frac := r.Metrics.CDF()
		for _, q := range cdfLevels() {
			v[fmt.Sprintf("cdf_%g", q)] = Num(quantileOf(ms, frac, q))
		}
		recs = append(recs, Record{Key: r.Name, Values: v})
	}
	if p["dataset"] == datasetMooncake {
		r, err := engineTLRURecord(tr, c, s.block, s.model, s.model.XiTokens(xi), slo)
		if err != nil {
			return nil, fmt.Errorf("ξ_s = %v ms: %w", xi, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// quantileOf returns the smallest value whose cumulative fraction is ≥ q.
func quantileOf(ms, frac []float64, q float64) float64 {
	for i, f := range frac {
		if f >= q-1e-12 {
			return ms[i]
		}
	}
	if len(ms) == 0 {
		return math.NaN()
	}
	return ms[len(ms)-1]
}

// tailRows rebuilds the paper-table rows of dataset d from the records.
func tailRows(grid []Point, recs []Record, d string) ([]tables.Row, int64) {
	var rows []tables.Row
	var capacity int64
	at := map[int]int{}
	for _, r := range recs {
		p := grid[r.Point]
		if p["dataset"] != d || p[boundKey] != "" {
			continue
		}
		i, ok := at[r.Point]
		if !ok {
			x, _ := strconv.ParseFloat(p["xi-ms"], 64)
			capacity, _ = strconv.ParseInt(p["capacity"], 10, 64)
			rows = append(rows, tables.Row{XiMs: x, Summary: map[string]tables.Stats{}})
			i = len(rows) - 1
			at[r.Point] = i
		}
		rows[i].Results = append(rows[i].Results, replay.Result{Name: r.Key})
		rows[i].Summary[r.Key] = tables.Stats{P50: r.V("p50"), P90: r.V("p90"), P95: r.V("p95"), P99: r.V("p99"),
			MeanMs: r.V("mean_ms"), TELMs: r.V("tel_ms"), Violations: int64(r.V("violations"))}
	}
	return rows, capacity
}

// retitle renumbers the paper's tables for its second dataset: Tables 1–3
// become 4–6 and Figure 5 becomes Figure 7, with the dataset named.
func retitle(ts []report.Table, second bool, name string) {
	for i := range ts {
		t := ts[i].Title
		if second {
			t = strings.NewReplacer("Table 1:", "Table 4:", "Table 2:", "Table 5:", "Table 3:", "Table 6:", "Figure 5:", "Figure 7:").Replace(t)
		}
		ts[i].Title = t + " — " + name
	}
}

func tailLayout(env *Env, grid []Point, recs []Record) (Output, error) {
	s, err := tailParse(env)
	if err != nil {
		return Output{}, err
	}
	ds, err := tailDatasets(env)
	if err != nil {
		return Output{}, err
	}
	if len(ds) == 1 && ds[0] == datasetBirthDeath {
		// The former 'tables tail-latency' output, unchanged.
		rows, c := tailRows(grid, recs, datasetBirthDeath)
		doc := map[string]any{"capacity_tokens": c, "block_size_tokens": s.block, "alpha_ms_per_token": s.model.AlphaMs,
			"beta_ms": s.model.BetaMs, "slo_ms": s.slo, "rows": rows}
		ts := tables.Tables(rows, s.slo)
		if t, bd, ok := tailReachTable(grid, recs, datasetBirthDeath, fmt.Sprintf("C = %d tokens", c)); ok {
			ts = append(ts, t)
			doc["hindsight_bounds"] = bd
		}
		return Output{Doc: doc, Tables: ts}, nil
	}
	var out Output
	var docs []any
	for _, d := range ds {
		rows, c := tailRows(grid, recs, d)
		slo, err := tailSLO(env, d)
		if err != nil {
			return Output{}, err
		}
		ts := tables.Tables(rows, slo)
		name := fmt.Sprintf("Mooncake conversations (real timestamps), C = %d tokens", c)
		if d == datasetBirthDeath {
			name = fmt.Sprintf("birth–death workload (synthetic timestamps), C = %d tokens", c)
		}
		dd := map[string]any{"dataset": d, "capacity_tokens": c, "slo_ms": slo, "rows": rows}
		if t, bd, ok := tailReachTable(grid, recs, d, ""); ok {
			ts = append(ts, t)
			dd["hindsight_bounds"] = bd
		}
		retitle(ts, d == datasetBirthDeath && len(ds) == 2, name)
		out.Tables = append(out.Tables, ts...)
		docs = append(docs, dd)
	}
	out.Doc = map[string]any{"block_size_tokens": s.block, "alpha_ms_per_token": s.model.AlphaMs,
		"beta_ms": s.model.BetaMs, "datasets": docs}
	return out, nil
}

// tailFigures draws Figure 5 (and 7): the TTFT distribution of every
// policy, one figure per dataset and ξ_s, drawn to show the tail (the
// fraction of turns above each TTFT on a log axis, P90/P95/P99 marked:
// plots.TailFigure).
func tailFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	ds, err := tailDatasets(env)
	if err != nil {
		return nil, err
	}
	byPoint := map[int][]Record{}
	for _, r := range recs {
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	var figs []NamedFigure
	for i, p := range grid {
		if p[boundKey] != "" {
			continue
		}
		fig := "Figure 5"
		if p["dataset"] == datasetBirthDeath && len(ds) == 2 {
			fig = "Figure 7"
		}
		data := "Mooncake conversations"
		if p["dataset"] == datasetBirthDeath {
			data = "birth–death workload"
		}
		var names []string
		var xs, cdfs [][]float64
		for _, r := range byPoint[i] {
			var x, q []float64
			for _, l := range cdfLevels() {
				x = append(x, r.V(fmt.Sprintf("cdf_%g", l)))
				q = append(q, l)
			}
			names, xs, cdfs = append(names, r.Key), append(xs, x), append(cdfs, q)
		}
		f := plots.TailFigure(fmt.Sprintf("%s: TTFT tail, %s, C = %s tokens, ξ_s = %s ms", fig, data, p["capacity"], p["xi-ms"]),
			"turns", names, xs, cdfs)
		figs = append(figs, NamedFigure{Stem: fmt.Sprintf("%s-xi%s", p["dataset"], p["xi-ms"]), Figure: f})
	}
	return figs, nil
}

// tailReachRow is one row of the hindsight-bound table in the JSON
// document: a metric at one ξ_s, LRU's and a T-LRU's values (Policy: tlru,
// the paper's, or vllm-tlru, its authors' engine implementation, on the
// Mooncake rows), the optimum's interval (ms for percentiles, turns for SLO
// violations) and Reach in percent.
type tailReachRow struct {
	XiMs       float64 `json:"xi_ms"`
	Objective  string  `json:"objective"`
	Policy     string  `json:"policy"`
	LRU        Num     `json:"lru"`
	TLRU       Num     `json:"tlru"`
	Lower      Num     `json:"optimum_lower"`
	Upper      Num     `json:"optimum_upper"`
	Proven     bool    `json:"proven_optimal"`
	GainPct    Num     `json:"tlru_gain_pct"`
	PossibleLo Num     `json:"possible_gain_lower_pct"`
	PossibleHi Num     `json:"possible_gain_upper_pct"`
	ShareLo    Num     `json:"share_reached_lower_pct"`
	ShareHi    Num     `json:"share_reached_upper_pct"`
}

// tailReachTable is dataset d's table of "T-LRU reaches X of a possible
// Y": for every ξ_s row and every bounded objective, LRU's and T-LRU's
// P-th percentile TTFT (ms) or SLO violations (turns), the hindsight
// optimum's interval and the improvements over LRU. ok is false when the
// run has no bound points for d.
func tailReachTable(grid []Point, recs []Record, d, suffix string) (report.Table, []tailReachRow, bool) {
	type bound struct {
		obj objective.Objective
		r   Record
	}
	var bounds []bound
	pol := map[int]map[string]Record{}
	var xiPoints []int
	for _, r := range recs {
		p := grid[r.Point]
		if p["dataset"] != d {
			continue
		}
		if p[boundKey] != "" {
			o, err := objective.Parse(p[boundKey])
			if err == nil {
				bounds = append(bounds, bound{o, r})
			}
			continue
		}
		if pol[r.Point] == nil {
			pol[r.Point] = map[string]Record{}
			xiPoints = append(xiPoints, r.Point)
		}
		pol[r.Point][r.Key] = r
	}
	if len(bounds) == 0 {
		return report.Table{}, nil, false
	}
	title := "Hindsight bound: T-LRU's improvement over LRU beside the best achievable by any schedule (T-LRU reaches X of a possible Y); percentiles are TTFT (ms), SLO violations are turns"
	var brecs []Record
	for _, b := range bounds {
		brecs = append(brecs, b.r)
	}
	title += boundLimitNote(brecs)
	if suffix != "" {
		title += " — " + suffix
	}
	t := report.Table{Title: title, Header: append([]string{"ξ_s (ms)", "metric"}, reachHeader...)}
	var doc []tailReachRow
	for _, i := range xiPoints {
		x, _ := strconv.ParseFloat(grid[i]["xi-ms"], 64)
		lru := pol[i]["lru"]
		for _, b := range bounds {
			metric, lo, hi, prec := "violations", b.r.V("lo"), b.r.V("hi"), 0
			label := "SLO violations (turns)"
			if b.obj.Kind == objective.Percentile {
				metric, lo, hi, prec = tailPercentileMetric(b.obj), b.r.V("lo_ms"), b.r.V("hi_ms"), 1
				label = strings.ToUpper(metric) + " TTFT (ms)"
			}
			proven := b.r.V("proven") == 1
			// The paper's T-LRU, then (Mooncake rows) its authors' engine
			// implementation in the T-LRU columns, labelled as such.
			for _, name := range []string{"tlru", engineTLRU} {
				q, ok := pol[i][name]
				if !ok {
					continue
				}
				l := label
				if name == engineTLRU {
					l += ", engine T-LRU (vllm-tlru)"
				}
				t.Add(append([]report.Cell{report.CellF(x, 0), report.CellText(l)},
					reachCells(lru.V(metric), q.V(metric), lo, hi, proven, prec)...)...)
				rc := ReachOf(lru.V(metric), q.V(metric), lo, hi)
				doc = append(doc, tailReachRow{XiMs: x, Objective: b.obj.String(), Policy: name, LRU: Num(lru.V(metric)), TLRU: Num(q.V(metric)),
					Lower: Num(lo), Upper: Num(hi), Proven: proven, GainPct: Num(rc.Gain), PossibleLo: Num(rc.PossibleLo),
					PossibleHi: Num(rc.PossibleHi), ShareLo: Num(rc.ShareLo), ShareHi: Num(rc.ShareHi)})
			}
		}
	}
	return t, doc, true
}
