package suite

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/montecarlo"
	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
)

// bdPolicies are the online policies of the birth–death suite: ET-LRU with
// both beliefs told the model's μ and rates.
const bdPolicies = "tlru,lru,threshold-lru,etlru-paper,etlru-bayes"

// BirthDeath is the tail-latency paper's stochastic model (§5): the online
// policies and ET-LRU with the paper's belief e^{−μs} and the exact
// posterior, by Monte Carlo over seeded replications of the birth–death
// workload (mean ± 95 % Student-t half-width, paired against T-LRU and
// against Tail-Optimized Belady on the same trace), and the exact belief-MDP
// values of the policies and the optimum on the small default instance.
func BirthDeath() *Suite {
	return &Suite{
		Name:     "birth-death",
		Source:   "tail-latency paper (seed 003) §5: ET-LRU and Theorem 2 under the birth–death model",
		Workload: "birth–death model, embedded default parameters (Monte Carlo); mdp/exact default 3-seat instance (exact)",
		Policies: strings.Split(bdPolicies+",to-belady", ","),
		Metrics:  []string{"TEL (10³ tokens, mean ± 95 % CI)", "P99 TTFT (ms)", "TEL vs T-LRU (paired)", "gap to Tail-Optimized Belady", "exact expected TEL (tokens)"},
		Params: []Param{
			{"capacities", "65536,131072,262144", "cache capacities, tokens (small: 65536)"},
			{"reps", "10", "replications per capacity (small: 3)"},
			{"duration", "1800", "seconds of births per replication (small: 300)"},
			{"xi-ms", "200", "TEL threshold ξ_s, ms (1,900 tokens at α = 0.1, β = 10)"},
			{"block-size", "16", "block size B, tokens"},
			{"policies", bdPolicies, "online policies (the first is the paired baseline)"},
			{"fit", "", "fit the model to a trace instead of the embedded defaults: mooncake (the conversations derived from the Mooncake conversation trace) or a canonical trace file"},
			{"fit-laws", "lognormal", "with --fit: prompt and response laws, lognormal (fitted) or empirical (the trace's lengths)"},
			mooncakeParam(),
		},
		Grid:    bdGrid,
		Eval:    bdEval,
		Layout:  bdLayout,
		Figures: bdFigures,
	}
}

func bdGrid(env *Env) ([]Point, error) {
	caps, err := intsParam(env, "capacities")
	if err != nil {
		return nil, err
	}
	if env.Small && env.isDefault(BirthDeath(), "capacities") {
		caps = []int64{65536}
	}
	b, err := intParam(env, "block-size")
	if err != nil {
		return nil, err
	}
	var grid []Point
	for _, c := range caps {
		if err := checkCapacity("capacities", c, b); err != nil {
			return nil, err
		}
		grid = append(grid, Point{"kind": "montecarlo", "capacity": strconv.FormatInt(c, 10)})
	}
	for _, w := range []exact.World{exact.Paper, exact.Bayes} {
		grid = append(grid, Point{"kind": "exact", "world": w.String()})
	}
	return grid, nil
}

// bdSize returns the replications and seconds per replication.
func bdSize(env *Env) (int, float64, error) {
	reps, err := intParam(env, "reps")
	if err != nil {
		return 0, 0, err
	}
	dur, err := floatParam(env, "duration")
	if err != nil {
		return 0, 0, err
	}
	if env.Small {
		if env.isDefault(BirthDeath(), "reps") {
			reps = 3
		}
		if env.isDefault(BirthDeath(), "duration") {
			dur = 300
		}
	}
	return int(reps), dur, nil
}

func bdEval(_ context.Context, env *Env, _ int, p Point) ([]Record, error) {
	if p["kind"] == "exact" {
		w, err := exact.ParseWorld(p["world"])
		if err != nil {
			return nil, err
		}
		return bdExact(bdInstance(env, w))
	}
	c, err := parseInt("capacity", p["capacity"])
	if err != nil {
		return nil, err
	}
	b, err := intParam(env, "block-size")
	if err != nil {
		return nil, err
	}
	xiMs, err := floatParam(env, "xi-ms")
	if err != nil {
		return nil, err
	}
	reps, dur, err := bdSize(env)
	if err != nil {
		return nil, err
	}
	model, err := bdModel(env)
	if err != nil {
		return nil, err
	}
	model.Duration = dur
	entries, err := montecarlo.Policies(env.Param("policies"), model, nil)
	if err != nil {
		return nil, fmt.Errorf("flag --policies: %w", err)
	}
	lat := latency.Default()
	stats, err := montecarlo.Run(montecarlo.Config{Model: model, Reps: reps, Seed: env.Seed, Policies: entries, Workers: 1,
		Settings: sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: c, BlockSize: b, Xi: lat.XiTokens(xiMs)}, Model: lat,
			SLOMs: latency.DefaultSLOMs}}})
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, s := range stats {
		recs = append(recs, Record{Key: s.Name, Values: map[string]Num{
			"tel": Num(s.TELTokens.Mean), "tel_half": Num(s.TELTokens.Half),
			"p99": Num(s.P99.Mean), "p99_half": Num(s.P99.Half),
			"vs_first": Num(s.VsFirst.Mean), "vs_first_half": Num(s.VsFirst.Half),
			"gap": Num(s.GapToReference.Mean), "gap_half": Num(s.GapToReference.Half),
			"turns": Num(s.Turns)}})
	}
	return recs, nil
}

// bdModel returns the embedded default model, or the model fitted to the
// --fit trace.
func bdModel(env *Env) (birthdeath.Params, error) {
	src := env.Param("fit")
	if src == "" {
		return birthdeath.Default(), nil
	}
	v, err := env.Memo("fit:"+src, func() (any, error) {
		if src == "mooncake" {
			tr, err := mooncakeConversations(env, "conversation")
			if err != nil {
				return nil, err
			}
			return birthdeath.Fit(tr)
		}
		tr, err := fileTrace(env, src)
		if err != nil {
			return nil, err
		}
		return birthdeath.Fit(tr)
	})
	if err != nil {
		return birthdeath.Params{}, fmt.Errorf("flag --fit: %w", err)
	}
	f := v.(birthdeath.Fitted)
	switch env.Param("fit-laws") {
	case "lognormal":
		return f.Params, nil
	case "empirical":
		return f.WithEmpirical(), nil
	}
	return birthdeath.Params{}, fmt.Errorf("flag --fit-laws: want lognormal or empirical, got %q", env.Param("fit-laws"))
}

// bdInstance is the exact MDP instance: mdp/exact's 3-seat default in
// world w, or (small) its 2-seat version over 5 steps.
func bdInstance(env *Env, w exact.World) *exact.Instance {
	if env.Small {
		in := exact.Default(2, w)
		in.Horizon = 5
		return in
	}
	return exact.Default(3, w)
}

// bdExact solves the belief MDP in and evaluates LRU, T-LRU (Q̂ the mean
// prompt) and ET-LRU with both beliefs.
func bdExact(in *exact.Instance) ([]Record, error) {
	opt, err := exact.Solve(in)
	if err != nil {
		return nil, err
	}
	var q float64
	for i, v := range in.Prompt.Values {
		q += float64(v) * in.Prompt.Probs[i]
	}
	recs := []Record{{Key: "optimum", Values: map[string]Num{"value": Num(opt.Value)}}}
	for _, d := range []struct {
		name string
		d    exact.Decider
	}{{"lru", exact.LRU{}}, {"tlru", exact.TLRU{QHat: q}}, {"etlru-paper", exact.ETLRU{Belief: exact.Paper}}, {"etlru-bayes", exact.ETLRU{Belief: exact.Bayes}}} {
		r, err := exact.Evaluate(in, d.d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		recs = append(recs, Record{Key: d.name, Values: map[string]Num{"value": Num(r.Value)}})
	}
	return recs, nil
}

func bdLayout(env *Env, grid []Point, recs []Record) (Output, error) {
	reps, dur, err := bdSize(env)
	if err != nil {
		return Output{}, err
	}
	workload := "embedded default parameters"
	if src := env.Param("fit"); src != "" {
		workload = "fitted to " + src + " (" + env.Param("fit-laws") + " lengths)"
	}
	mc := report.Table{Title: fmt.Sprintf("birth–death model, %s, Monte Carlo (%d replications × %g s, seed %d, ξ_s = %s ms): mean ± 95%% half-width", workload, reps, dur, env.Seed, env.Param("xi-ms")),
		Header: []string{"capacity (tokens)", "policy", "TEL (10³ tokens)", "P99 TTFT (ms)", "TEL vs " + strings.Split(env.Param("policies"), ",")[0] + " (paired)", "gap to to-belady"}}
	seats := "3 seats, 15 steps"
	if env.Small {
		seats = "2 seats, 5 steps"
	}
	ex := report.Table{Title: "exact belief MDP (mdp/exact default, " + seats + "): expected TEL (tokens) and excess over the optimum",
		Header: []string{"world", "policy", "expected TEL (tokens)", "over the optimum"}}
	opt := map[int]float64{}
	type doc struct {
		Point  Point          `json:"point"`
		Key    string         `json:"key"`
		Values map[string]Num `json:"values"`
	}
	var docs []doc
	for _, r := range recs {
		p := grid[r.Point]
		docs = append(docs, doc{p, r.Key, r.Values})
		if p["kind"] == "exact" {
			if r.Key == "optimum" {
				opt[r.Point] = r.V("value")
			}
			ex.Add(report.CellText(p["world"]), report.CellText(r.Key), report.CellF(r.V("value"), 6), report.CellPct(r.V("value")/opt[r.Point]-1))
			continue
		}
		mc.Add(report.CellText(p["capacity"]), report.CellText(r.Key), report.CellCI(r.V("tel")/1000, r.V("tel_half")/1000, 1),
			report.CellCI(r.V("p99"), r.V("p99_half"), 0), pctCI(r.V("vs_first"), r.V("vs_first_half")), pctCI(r.V("gap"), r.V("gap_half")))
	}
	return Output{Doc: map[string]any{"reps": reps, "duration_s": dur, "rows": docs}, Tables: []report.Table{mc, ex}}, nil
}

// pctCI is the fraction m ± h shown as signed percentages, written to
// CSV as fractions.
func pctCI(m, h float64) report.Cell {
	c := report.CellCI(m, h, 1)
	c.Text, c.Frac = fmt.Sprintf("%+.1f%% ± %.1f%%", 100*m, 100*h), true
	return c
}

// bdFigures draws mean TEL against capacity per policy, titled with the
// workload and the run's size, as the Monte Carlo table is.
func bdFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	reps, dur, err := bdSize(env)
	if err != nil {
		return nil, err
	}
	workload := "embedded default parameters"
	if src := env.Param("fit"); src != "" {
		workload = "fitted to " + filepath.Base(src)
	}
	f := plots.Figure{Title: fmt.Sprintf("birth–death model (%s): mean TEL against capacity, Monte Carlo, %d replications × %g s, ξ_s = %s ms, B = %s tokens",
		workload, reps, dur, env.Param("xi-ms"), env.Param("block-size")),
		XLabel: "capacity C (tokens)", YLabel: "mean TEL (10³ tokens)", LogX: true}
	idx := map[string]int{}
	for _, r := range recs {
		p := grid[r.Point]
		if p["kind"] != "montecarlo" {
			continue
		}
		i, ok := idx[r.Key]
		if !ok {
			f.Series = append(f.Series, plots.Series{Name: r.Key})
			i = len(f.Series) - 1
			idx[r.Key] = i
		}
		c, _ := strconv.ParseFloat(p["capacity"], 64)
		f.Series[i].X = append(f.Series[i].X, c)
		f.Series[i].Y = append(f.Series[i].Y, r.V("tel")/1000)
	}
	return []NamedFigure{{Stem: "tel", Figure: f}}, nil
}
