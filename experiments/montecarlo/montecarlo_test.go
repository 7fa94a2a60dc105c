package montecarlo

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
)

func smallConfig(t *testing.T) Config {
	p := birthdeath.Default()
	p.Duration, p.LambdaConv = 150, 1
	entries, err := Policies("lru,tlru,etlru-paper,etlru-bayes", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Model: p, Reps: 4, Seed: 5, Policies: entries, Workers: 2,
		Settings: sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: 4096, BlockSize: 1, Xi: 400}, Model: latency.Default(), SLOMs: 200}}}
}

// TestRun: the reference is added last; the same seed gives the same
// numbers; the confidence interval of LRU's TEL equals one computed by hand
// from replaying each replication's trace directly (t quantile 3.182446 for
// 3 degrees of freedom); at B = 1 with a whole-token ξ Tail-Optimized
// Belady is the hindsight optimum (Theorem 1), so no online policy beats it
// on any replication, and every mean gap is ≥ 0.
func TestRun(t *testing.T) {
	cfg := smallConfig(t)
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(cfg)
	if len(a) != 5 || a[4].Name != Reference || a[2].Name != "etlru-paper" {
		t.Fatalf("policies %v", a)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%s: two runs differ", a[i].Name)
		}
		if i < 4 && a[i].GapToReference.Mean < 0 {
			t.Errorf("%s: mean gap %v < 0 to the hindsight optimum", a[i].Name, a[i].GapToReference.Mean)
		}
	}
	var xs []float64
	for r := 0; r < cfg.Reps; r++ {
		tr, err := birthdeath.Trace(cfg.Model, cfg.Seed*1000003+uint64(r))
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Trace(tr, cfg.Policies[:1], cfg.Settings)
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, res[0].Summary.TELTokens)
	}
	var m, v float64
	for _, x := range xs {
		m += x / 4
	}
	for _, x := range xs {
		v += (x - m) * (x - m) / 3
	}
	half := 3.182446 * math.Sqrt(v/4)
	if got := a[0].TELTokens; math.Abs(got.Mean-m) > 1e-9*m || math.Abs(got.Half-half) > 1e-5*half {
		t.Errorf("LRU TEL %+v, by hand %v ± %v", got, m, half)
	}
}

func TestPoliciesErrors(t *testing.T) {
	p := birthdeath.Default()
	if _, err := Policies("lru,nosuch", p, nil); err == nil {
		t.Error("unknown policy accepted")
	}
	if _, err := Policies("etlru-oracle", p, nil); err == nil {
		t.Error("unknown belief accepted")
	}
	if _, err := Run(Config{Model: p, Reps: 1}); err == nil {
		t.Error("one replication accepted")
	}
	g := birthdeath.Gamma{Shape: 2, MeanRate: 0.05}
	p.Rates = g
	if o := ModelOptions(p); o["gamma"] != "2:0.05" {
		t.Errorf("gamma options %v", o)
	}
}
