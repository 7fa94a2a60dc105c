package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
)

// defaultWorkloadCapacity is the capacity (tokens) used with the embedded
// workload when --capacity is not given: about a third of the tokens its
// live conversations hold at steady state, so that eviction matters.
const defaultWorkloadCapacity = 131072

// simOptions are the flags of simulate.
type simOptions struct {
	lat        latencyFlags
	tracePath  string
	format     string
	traceFmt   string
	level      string
	policies   string
	baseline   string
	capacity   int64
	block      int64
	qhat       string
	threshold  int64
	slo        float64
	forced     bool
	seed       uint64
	plot       string
	capacities string
	typeParams string
	policyOpts []string
	schedules  []string
	emit       string
	execLimit  float64
}

func runSimulate(args []string, stdout, stderr io.Writer) error {
	var o simOptions
	fs := newFlags("simulate", "simulate [--trace FILE] [--policies lru,tlru,...] --capacity TOKENS [flags]", stdout)
	fs.StringVar(&o.tracePath, "trace", "", "canonical trace (JSON Lines; - for stdin); omitted: the embedded seeded birth–death workload")
	fs.StringVar(&o.policies, "policies", "", "comma-separated policies (default: all of "+fmt.Sprint(policies.Names())+")")
	fs.Int64Var(&o.capacity, "capacity", 0, fmt.Sprintf("cache capacity C, tokens, a multiple of --block-size (default %d with the embedded workload)", defaultWorkloadCapacity))
	fs.Int64Var(&o.block, "block-size", 16, "block size B, tokens")
	o.lat.add(fs)
	fs.StringVar(&o.qhat, "qhat", "auto", "T-LRU's next-prompt estimate Q̂: auto (running mean of prompts seen) or tokens")
	fs.Int64Var(&o.threshold, "threshold", policy.DefaultThreshold, "Threshold-LRU's T: cache only histories ≥ T tokens")
	fs.Float64Var(&o.slo, "slo-ms", 200, "SLO for violation counts, ms")
	fs.BoolVar(&o.forced, "forced", false, "forced caching: the served conversation's whole history must be cached")
	fs.StringVar(&o.baseline, "baseline", "lru", "baseline policy of the relative-improvement table (\"\" for none)")
	fs.StringArrayVar(&o.policyOpts, "policy-opt", nil, "policy-specific setting key=value (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the embedded workload")
	fs.StringVar(&o.plot, "plot", "", "also draw the TTFT CDF of each policy to this .svg/.png file")
	fs.StringVar(&o.level, "level", "turn", "turn (conversation cache) or block (prefix cache over block-hash traces)")
	fs.StringVar(&o.traceFmt, "trace-format", "canonical", "trace format: canonical|mooncake|bailian|blocks|libcachesim-csv|oracle-general (all but canonical: block level)")
	fs.StringVar(&o.typeParams, "trace-type-params", "", "libcachesim-csv: libCacheSim's csv options, e.g. \"time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false\"")
	fs.StringVar(&o.capacities, "capacities", "", "block level: capacity sweep, comma-separated tokens (multiples of the block size)")
	fs.StringVar(&o.format, "format", "table", report.FormatHelp)
	fs.StringArrayVar(&o.schedules, "schedule", nil, "score this external schedule (JSON Lines, see README \"Schedules and external policies\"; repeatable); only the schedules run unless --policies is given")
	fs.StringVar(&o.emit, "emit-schedule", "", "write each policy's decisions as a schedule to FILE (several policies: FILE with .POLICY before its extension)")
	fs.Float64Var(&o.execLimit, "exec-timeout", 10, "exec:CMD policies: seconds to wait for one answer before killing the process")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(o.format); err != nil {
		return err
	}
	if len(o.schedules) > 0 && o.policies == "" && !fs.Changed("baseline") {
		o.baseline = ""
	}
	o.baseline = resolveBaseline(o.baseline, o.policies, fs.Changed("baseline"))
	if !(o.execLimit > 0) {
		return fmt.Errorf("flag --exec-timeout: must be > 0 seconds, got %v", o.execLimit)
	}
	switch o.level {
	case "turn":
	case "block":
		return simulateBlock(&o, fs.Changed, stdout, stderr)
	default:
		return fmt.Errorf("flag --level: want turn or block, got %q", o.level)
	}
	if o.traceFmt != "canonical" {
		return fmt.Errorf("flag --trace-format: %s traces are replayed with --level block (or converted with 'tailbound import')", o.traceFmt)
	}
	if o.typeParams != "" {
		return fmt.Errorf("flag --trace-type-params: for --level block --trace-format libcachesim-csv only")
	}
	model, xi, err := o.lat.resolve(fs)
	if err != nil {
		return err
	}
	if o.capacity == 0 && o.tracePath == "" {
		o.capacity = defaultWorkloadCapacity
	}
	if !fs.Changed("capacity") && o.tracePath != "" {
		return fmt.Errorf("flag --capacity: required with --trace (tokens)")
	}
	if err := checkCapacity(o.capacity, o.block); err != nil {
		return err
	}
	qhat, err := parseQHat(o.qhat)
	if err != nil {
		return err
	}
	var entries []policies.Entry
	if o.policies == "" && len(o.schedules) == 0 {
		o.policies = fmt.Sprint(joinNames(policies.Names()))
	}
	if o.policies != "" {
		if entries, err = policies.ParseWith(o.policies, execpolicy.Options{Timeout: seconds(o.execLimit)}); err != nil {
			return fmt.Errorf("flag --policies: %w", err)
		}
	}
	popts, err := parseKV("policy-opt", o.policyOpts)
	if err != nil {
		return err
	}
	s := sim.Settings{
		Options: replay.Options{Params: instance.Params{Capacity: o.capacity, BlockSize: o.block, Xi: xi, Forced: o.forced}, Model: model,
			SLOMs: o.slo, Progress: progressTo(stderr)},
		QHat: qhat, Threshold: o.threshold, PolicyOptions: popts, EmitSchedule: o.emit,
	}
	if o.emit != "" && len(entries) == 0 {
		return fmt.Errorf("flag --emit-schedule: no --policies to emit")
	}
	if s.Schedules, err = schedule.ReadFiles(o.schedules); err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	var results []replay.Result
	if o.tracePath == "" {
		tr, err := birthdeath.Trace(birthdeath.Default(), o.seed)
		if err != nil {
			return err
		}
		results, err = sim.Trace(tr, entries, s)
		if err != nil {
			return err
		}
	} else if results, err = sim.File(o.tracePath, entries, s); err != nil {
		return err
	}
	if o.plot != "" {
		if err := plotCDF(o.plot, results); err != nil {
			return err
		}
	}
	return emitSimulate(stdout, o, s, results)
}

// seconds converts a flag in seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func joinNames(n []string) string {
	out := ""
	for i, s := range n {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}

// simPolicyJSON is one policy's result in simulate's JSON contract.
type simPolicyJSON struct {
	Name                 string             `json:"name"`
	Turns                int64              `json:"turns"`
	TELTokens            float64            `json:"tel_tokens"`
	TELMs                float64            `json:"tel_ms"`
	TTFTMs               map[string]float64 `json:"ttft_ms"`
	SLOViolations        int64              `json:"slo_violations"`
	SLOViolationFraction float64            `json:"slo_violation_fraction"`
	HitRatio             float64            `json:"hit_ratio"`
	HistoryHitRatio      *float64           `json:"history_hit_ratio"`
	MaxUncachedTokens    int64              `json:"max_uncached_tokens"`
	Evictions            int64              `json:"evictions"`
	EvictedTokens        int64              `json:"evicted_tokens"`
	Improvement          map[string]float64 `json:"improvement_vs_baseline,omitempty"`
}

type simJSON struct {
	Units    string          `json:"units"`
	Settings map[string]any  `json:"settings"`
	Baseline string          `json:"baseline,omitempty"`
	Policies []simPolicyJSON `json:"policies"`
}

// improvements returns (baseline − policy)/baseline per metric, the view of
// the tail-latency paper's tables; a zero baseline gives NaN, omitted.
func improvements(base, p replay.Result) map[string]float64 {
	b, q := base.Summary, p.Summary
	pairs := map[string][2]float64{
		"tel": {b.TELTokens, q.TELTokens}, "mean": {b.MeanTTFTMs, q.MeanTTFTMs},
		"p50": {b.P50, q.P50}, "p90": {b.P90, q.P90}, "p95": {b.P95, q.P95}, "p99": {b.P99, q.P99},
		"slo_violations": {float64(b.Violations), float64(q.Violations)},
	}
	out := map[string]float64{}
	for k, v := range pairs {
		if v[0] != 0 {
			out[k] = (v[0] - v[1]) / v[0]
		}
	}
	return out
}

func emitSimulate(w io.Writer, o simOptions, s sim.Settings, results []replay.Result) error {
	var base *replay.Result
	for i := range results {
		if results[i].Name == o.baseline {
			base = &results[i]
		}
	}
	if o.baseline != "" && base == nil {
		return fmt.Errorf("flag --baseline: policy %q is not among --policies", o.baseline)
	}
	doc := simJSON{
		Units: "lengths in tokens, times in ms, ratios in [0,1]; improvement = (baseline − policy)/baseline",
		Settings: map[string]any{"capacity_tokens": s.Capacity, "block_size_tokens": s.BlockSize,
			"xi_tokens": s.Xi, "xi_ms": s.Model.XiMs(s.Xi), "alpha_ms_per_token": s.Model.AlphaMs,
			"beta_ms": s.Model.BetaMs, "slo_ms": s.SLOMs, "forced": s.Forced, "qhat": o.qhat,
			"threshold_tokens": o.threshold, "trace": traceLabel(o)},
		Baseline: o.baseline,
	}
	main := report.Table{
		Title: fmt.Sprintf("%s: C=%d tokens, B=%d tokens, ξ=%.1f tokens (%.1f ms), α=%g ms/token, β=%g ms, SLO %g ms",
			traceLabel(o), s.Capacity, s.BlockSize, s.Xi, s.Model.XiMs(s.Xi), s.Model.AlphaMs, s.Model.BetaMs, s.SLOMs),
		Header: []string{"policy", "TEL (tokens)", "TEL (ms)", "mean TTFT (ms)", "P50 (ms)", "P90 (ms)", "P95 (ms)", "P99 (ms)",
			"SLO viol.", "hit ratio", "max uncached (tokens)", "evictions"},
	}
	impr := report.Table{Title: "relative improvement over " + o.baseline + ": (baseline − policy)/baseline",
		Header: []string{"policy", "TEL", "mean", "P50", "P90", "P95", "P99", "SLO viol."}}
	for _, r := range results {
		m := r.Summary
		pj := simPolicyJSON{Name: r.Name, Turns: m.Turns, TELTokens: m.TELTokens, TELMs: m.TELMs,
			TTFTMs:        map[string]float64{"mean": m.MeanTTFTMs, "p50": m.P50, "p90": m.P90, "p95": m.P95, "p99": m.P99},
			SLOViolations: m.Violations, SLOViolationFraction: m.ViolationPct, HitRatio: m.HitRatio,
			MaxUncachedTokens: m.MaxUncached, Evictions: r.Evictions, EvictedTokens: r.EvictedTokens}
		if !math.IsNaN(m.HistoryHit) {
			h := m.HistoryHit
			pj.HistoryHitRatio = &h
		}
		main.Rows = append(main.Rows, []string{r.Name, report.F(m.TELTokens, 1), report.F(m.TELMs, 1),
			report.F(m.MeanTTFTMs, 2), report.F(m.P50, 2), report.F(m.P90, 2), report.F(m.P95, 2), report.F(m.P99, 2),
			fmt.Sprintf("%d (%s)", m.Violations, report.Pct(m.ViolationPct)), report.F(m.HitRatio, 4),
			report.I(m.MaxUncached), report.I(r.Evictions)})
		if base != nil {
			pj.Improvement = improvements(*base, r)
			row := []string{r.Name}
			for _, k := range []string{"tel", "mean", "p50", "p90", "p95", "p99", "slo_violations"} {
				if v, ok := pj.Improvement[k]; ok {
					row = append(row, report.Pct(v))
				} else {
					row = append(row, "n/a (baseline 0)")
				}
			}
			impr.Rows = append(impr.Rows, row)
		}
		doc.Policies = append(doc.Policies, pj)
	}
	if base == nil {
		return report.Emit(w, o.format, doc, main)
	}
	return report.Emit(w, o.format, doc, main, impr)
}

func traceLabel(o simOptions) string {
	if o.tracePath == "" {
		return fmt.Sprintf("embedded birth–death workload (seed %d)", o.seed)
	}
	return o.tracePath
}

func plotCDF(path string, results []replay.Result) error {
	f := plots.Figure{Title: "TTFT distribution (CDF)", XLabel: "TTFT (ms, log scale)", YLabel: "fraction of turns ≤ TTFT", LogX: true, LegendBottom: true}
	for _, r := range results {
		x, y := r.Metrics.CDF()
		f.Series = append(f.Series, plots.Series{Name: r.Name, X: x, Y: y})
	}
	return f.Save(path)
}

// resolveBaseline drops the default baseline (lru) when --policies names
// other policies only, so that the relative view is shown when it can be
// and an explicit --baseline that is not run is still an error (reported
// after the replay would be too late; emit checks it).
func resolveBaseline(baseline, list string, explicit bool) string {
	if explicit || list == "" {
		return baseline
	}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == baseline {
			return baseline
		}
	}
	return ""
}
