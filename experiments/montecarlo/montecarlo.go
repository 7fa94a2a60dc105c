// Package montecarlo runs the online policies side by side on sampled
// traces of the birth–death conversation model, each replication against
// Tail-Optimized Belady on the same realized trace, and summarizes TEL and
// TTFT over replications with confidence intervals.
package montecarlo

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// Config is one Monte Carlo study.
type Config struct {
	// Model is the birth–death workload; replication r uses seed
	// Seed·1000003 + r.
	Model birthdeath.Params
	Reps  int
	Seed  uint64
	// Policies are the online policies; the hindsight reference
	// (to-belady) is added when missing.
	Policies []policies.Entry
	// Settings are the cache, latency and policy settings.
	Settings sim.Settings
	// Workers run replications in parallel (2 on this machine).
	Workers int
}

// Reference is the hindsight policy every replication is compared with.
const Reference = "to-belady"

// Interval is a mean over replications with the half-width of its 95%
// Student-t confidence interval. Both are NaN when fewer than two
// replications give the figure a value (a ratio to a zero TEL has none);
// JSON writes them as null.
type Interval struct {
	Mean float64 `json:"mean"`
	Half float64 `json:"ci95_half_width"`
}

// MarshalJSON writes v with null for a value that is NaN.
func (v Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mean *float64 `json:"mean"`
		Half *float64 `json:"ci95_half_width"`
	}{report.Value(v.Mean), report.Value(v.Half)})
}

// Stats are one policy's results over the replications.
type Stats struct {
	Name string `json:"name"`
	// TELTokens is the TEL per replication, tokens; TELMs the same in ms.
	TELTokens Interval `json:"tel_tokens"`
	TELMs     Interval `json:"tel_ms"`
	// TELPerTurn is TEL per turn, tokens.
	TELPerTurn Interval `json:"tel_per_turn_tokens"`
	// MeanTTFT and the tail percentiles of TTFT, ms.
	MeanTTFT Interval `json:"mean_ttft_ms"`
	P90      Interval `json:"p90_ttft_ms"`
	P95      Interval `json:"p95_ttft_ms"`
	P99      Interval `json:"p99_ttft_ms"`
	// GapToReference is (TEL − TEL_to-belady)/TEL_to-belady per replication
	// (a ratio; replications with a zero reference TEL are skipped).
	GapToReference Interval `json:"gap_to_to_belady"`
	// VsFirst is (TEL − TEL_first)/TEL_first per replication, where first
	// is the first policy of the study: a paired comparison, whose interval
	// is much narrower than the difference of two unpaired intervals.
	VsFirst Interval `json:"tel_vs_first_policy"`
	// Turns is the mean number of turns per replication.
	Turns float64 `json:"turns"`
}

// Run performs the study. Results are in the order of cfg.Policies, the
// reference last if it was added; the same seed gives the same numbers.
func Run(cfg Config) ([]Stats, error) {
	if cfg.Reps < 2 {
		return nil, fmt.Errorf("montecarlo: need at least 2 replications for a confidence interval, got %d", cfg.Reps)
	}
	if err := cfg.Model.Validate(); err != nil {
		return nil, err
	}
	entries := append([]policies.Entry(nil), cfg.Policies...)
	ref := -1
	for i, e := range entries {
		if e.Name == Reference {
			ref = i
		}
	}
	if ref < 0 {
		all, err := policies.Parse(Reference)
		if err != nil {
			return nil, err
		}
		entries = append(entries, all[0])
		ref = len(entries) - 1
	}
	workers := max(cfg.Workers, 1)
	results := make([][]replay.Result, cfg.Reps)
	errs := make([]error, cfg.Reps)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				tr, err := birthdeath.Trace(cfg.Model, cfg.Seed*1000003+uint64(r))
				if err != nil {
					errs[r] = err
					continue
				}
				s := cfg.Settings
				s.Progress = nil
				results[r], errs[r] = sim.Trace(tr, entries, s)
			}
		}()
	}
	for r := 0; r < cfg.Reps; r++ {
		work <- r
	}
	close(work)
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("replication %d: %w", r, err)
		}
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(cfg.Reps - 1)}.Quantile(0.975)
	interval := func(xs []float64) Interval {
		if len(xs) < 2 {
			return Interval{Mean: math.NaN(), Half: math.NaN()}
		}
		m, sd := stat.MeanStdDev(xs, nil)
		return Interval{Mean: m, Half: tq * sd / math.Sqrt(float64(len(xs)))}
	}
	out := make([]Stats, len(entries))
	for i, e := range entries {
		var tel, telMs, perTurn, mean, p90, p95, p99, gap, vs []float64
		var turns float64
		for r := range results {
			m := results[r][i].Summary
			tel, telMs = append(tel, m.TELTokens), append(telMs, m.TELMs)
			perTurn = append(perTurn, m.TELTokens/math.Max(float64(m.Turns), 1))
			mean, p90, p95, p99 = append(mean, m.MeanTTFTMs), append(p90, m.P90), append(p95, m.P95), append(p99, m.P99)
			if b := results[r][ref].Summary.TELTokens; b > 0 {
				gap = append(gap, (m.TELTokens-b)/b)
			}
			if f := results[r][0].Summary.TELTokens; f > 0 {
				vs = append(vs, (m.TELTokens-f)/f)
			}
			turns += float64(m.Turns)
		}
		out[i] = Stats{Name: e.Name, TELTokens: interval(tel), TELMs: interval(telMs), TELPerTurn: interval(perTurn),
			MeanTTFT: interval(mean), P90: interval(p90), P95: interval(p95), P99: interval(p99),
			GapToReference: interval(gap), VsFirst: interval(vs), Turns: turns / float64(cfg.Reps)}
	}
	return out, nil
}

// Policies resolves a comma-separated list of policy names: registered
// names, plus etlru-paper and etlru-bayes, which are ET-LRU with that
// belief told the model's μ and rate distribution (options in extra, e.g.
// prompt=…, override them).
func Policies(list string, model birthdeath.Params, extra map[string]string) ([]policies.Entry, error) {
	var out []policies.Entry
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		b, ok := strings.CutPrefix(name, "etlru-")
		if !ok || (b != "paper" && b != "bayes") {
			e, err := policies.Parse(name)
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
			continue
		}
		base, err := policies.Parse("etlru")
		if err != nil {
			return nil, err
		}
		opts := ModelOptions(model)
		opts["belief"] = b
		for k, v := range extra {
			opts[k] = v
		}
		f := base[0].New
		out = append(out, policies.Entry{Name: name, Doc: "ET-LRU with the " + b + " belief and the model's μ and rates",
			New: func(cfg policy.Config) (policy.Policy, error) { cfg.Options = opts; return f(cfg) }})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no policy named")
	}
	return out, nil
}

// ModelOptions returns ET-LRU's options for the model's μ and rate
// distribution.
func ModelOptions(p birthdeath.Params) map[string]string {
	o := map[string]string{"mu": strconv.FormatFloat(p.Mu, 'g', -1, 64)}
	if g, ok := p.Rates.(birthdeath.Gamma); ok {
		o["gamma"] = strconv.FormatFloat(g.Shape, 'g', -1, 64) + ":" + strconv.FormatFloat(g.MeanRate, 'g', -1, 64)
		return o
	}
	classes := p.Classes
	if c, ok := p.Rates.(birthdeath.ClassDist); ok {
		classes = c
	}
	var parts []string
	for _, c := range classes {
		parts = append(parts, strconv.FormatFloat(c.Rate, 'g', -1, 64)+":"+strconv.FormatFloat(c.Weight, 'g', -1, 64))
	}
	o["rates"] = strings.Join(parts, ",")
	return o
}
