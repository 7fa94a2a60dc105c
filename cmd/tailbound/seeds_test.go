package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// TestSimulateSeedsAgainstReplay: each cell of simulate --seeds 3 is the
// mean and 95% Student-t interval (t₂ = 4.3027) of LRU's P90 and TEL as
// replayed directly through models/replay on each seed's trace.
func TestSimulateSeedsAgainstReplay(t *testing.T) {
	code, out, errs := runCLI("simulate", "--seeds", "3", "--policies", "lru", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Seeds   []uint64 `json:"seeds"`
		Summary struct {
			Policies []struct {
				TELTokens struct{ Mean, Low, High float64 } `json:"tel_tokens"`
				TTFT      map[string]struct {
					Mean float64 `json:"mean"`
					Low  float64 `json:"ci95_low"`
					High float64 `json:"ci95_high"`
				} `json:"ttft_ms"`
			} `json:"policies"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var p90, tel []float64
	for seed := uint64(1); seed <= 3; seed++ {
		tr, err := birthdeath.Trace(birthdeath.Default(), seed)
		if err != nil {
			t.Fatal(err)
		}
		m := latency.Default()
		p, _ := policy.NewLRU(policy.Config{})
		res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "lru", Policy: p}},
			replay.Options{Params: instance.Params{Capacity: defaultWorkloadCapacity, BlockSize: 16, Xi: m.XiTokens(200)}, Model: m, SLOMs: 200})
		if err != nil {
			t.Fatal(err)
		}
		p90 = append(p90, res[0].Summary.P90)
		tel = append(tel, res[0].Summary.TELTokens)
	}
	ci := func(xs []float64) (float64, float64) {
		m := (xs[0] + xs[1] + xs[2]) / 3
		var ss float64
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return m, 4.302653 * math.Sqrt(ss/2) / math.Sqrt(3)
	}
	got := doc.Summary.Policies[0].TTFT["p90"]
	m, h := ci(p90)
	if math.Abs(got.Mean-m) > 1e-9*m || math.Abs(got.High-(m+h)) > 1e-6*m || math.Abs(got.Low-(m-h)) > 1e-6*m {
		t.Errorf("P90: got %+v, want %v ± %v", got, m, h)
	}
	if mt, _ := ci(tel); math.Abs(doc.Summary.Policies[0].TELTokens.Mean-mt) > 1e-9*mt {
		t.Errorf("TEL mean: got %v, want %v", doc.Summary.Policies[0].TELTokens.Mean, mt)
	}
}

// TestSeedsOneIsSingleRun: --seeds 1 prints exactly the single-seed run, in
// every format.
func TestSeedsOneIsSingleRun(t *testing.T) {
	for _, f := range []string{"table", "markdown", "csv", "json"} {
		_, a, _ := runCLI("simulate", "--seed", "4", "--policies", "lru,tlru", "--format", f)
		_, b, errs := runCLI("simulate", "--seed", "4", "--seeds", "1", "--policies", "lru,tlru", "--format", f)
		if f == "json" { // the stamp records the flags given
			a, b = dropLine(a, `"seeds": ""`), dropLine(b, `"seeds": "1"`)
		}
		if a != b || a == "" {
			t.Errorf("%s: --seeds 1 differs from the single run (%s)", f, errs)
		}
	}
}

func dropLine(s, sub string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestSeedsDeterministic: a fixed seed set gives byte-identical output.
func TestSeedsDeterministic(t *testing.T) {
	for _, f := range []string{"table", "csv", "json"} {
		_, a, _ := runCLI("simulate", "--seeds", "2-4", "--policies", "lru,tlru", "--format", f)
		_, b, _ := runCLI("simulate", "--seeds", "2-4", "--policies", "lru,tlru", "--format", f)
		if a != b || a == "" {
			t.Errorf("%s: two runs differ", f)
		}
	}
}

// TestTablesSeeds: tables --seeds 1 is the single run; --seeds 3 prints
// intervals and is reproducible.
func TestTablesSeeds(t *testing.T) {
	_, a, _ := runCLI("tables", "tail-latency", "--small", "--seed", "2")
	_, b, errs := runCLI("tables", "tail-latency", "--small", "--seed", "2", "--seeds", "1")
	if a != b || a == "" {
		t.Errorf("--seeds 1 differs from the single run (%s)", errs)
	}
	_, c, errs := runCLI("tables", "tail-latency", "--small", "--seeds", "3", "--format", "markdown")
	_, d, _ := runCLI("tables", "tail-latency", "--small", "--seeds", "3", "--format", "markdown")
	if c != d || !strings.Contains(c, " ± ") || !strings.Contains(c, "Student-t") {
		t.Errorf("--seeds 3: not reproducible or no interval (%s):\n%s", errs, c)
	}
}

// TestGapSeeds: gap --seeds 2-3 reports, per cell, the mean of the two
// single-seed runs' TEL_opt and TEL.
func TestGapSeeds(t *testing.T) {
	args := []string{"gap", "--capacities", "65536", "--xis", "1900", "--policies", "lru", "--format", "json"}
	single := func(seed string) (opt, tel float64) {
		code, out, errs := runCLI(append(args, "--seed", seed)...)
		if code != 0 {
			t.Fatal(errs)
		}
		var d struct {
			Rows []struct {
				Opt float64 `json:"tel_opt_tokens"`
				TEL float64 `json:"tel_tokens"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Rows) != 1 {
			t.Fatalf("%v: %s", err, out)
		}
		return d.Rows[0].Opt, d.Rows[0].TEL
	}
	o2, t2 := single("2")
	o3, t3 := single("3")
	code, out, errs := runCLI(append(args, "--seeds", "2-3")...)
	if code != 0 {
		t.Fatal(errs)
	}
	var d struct {
		Summary struct {
			Rows []struct {
				Opt struct{ Mean float64 } `json:"tel_opt_tokens"`
				TEL struct{ Mean float64 } `json:"tel_tokens"`
			} `json:"rows"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Summary.Rows) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	if r := d.Summary.Rows[0]; r.Opt.Mean != (o2+o3)/2 || r.TEL.Mean != (t2+t3)/2 {
		t.Errorf("means %v, %v; want %v, %v", r.Opt.Mean, r.TEL.Mean, (o2+o3)/2, (t2+t3)/2)
	}
}

// TestSeedsRefusals: --seeds names itself when it cannot apply.
func TestSeedsRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--trace", "../../examples/fig1.jsonl", "--capacity", "100", "--block-size", "1", "--seeds", "3"},
		{"gap", "--trace", "../../examples/fig1.jsonl", "--capacities", "100", "--xis", "150", "--seeds", "2"},
		{"simulate", "--seeds", "0"},
		{"simulate", "--seeds", "5-2"},
		{"simulate", "--seeds", "3", "--plot", "x.svg"},
		{"tables", "tail-latency", "--seeds", "2", "--shard", "1/2"},
	} {
		code, out, errs := runCLI(args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--seeds") {
			t.Errorf("%v: exit %d, stderr %q, want one line naming --seeds", args, code, errs)
		}
	}
}

// TestSeedsGenParameters: simulate --seeds with gen birth-death's model
// flags averages the runs of the traces gen writes for the same
// parameters and seeds.
func TestSeedsGenParameters(t *testing.T) {
	model := []string{"--duration", "300", "--lambda-conv", "1", "--prompt", "geometric:150"}
	var tel []float64
	for _, seed := range []string{"2", "3"} {
		code, tr, errs := runCLI(append([]string{"gen", "birth-death", "--seed", seed}, model...)...)
		if code != 0 {
			t.Fatal(errs)
		}
		path := writeFile(t, "bd"+seed+".jsonl", tr)
		code, out, errs := runCLI("simulate", "--trace", path, "--capacity", "16384", "--policies", "tlru", "--format", "json")
		if code != 0 {
			t.Fatal(errs)
		}
		var d struct {
			Policies []struct {
				TEL float64 `json:"tel_tokens"`
			} `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		tel = append(tel, d.Policies[0].TEL)
	}
	code, out, errs := runCLI(append([]string{"simulate", "--seeds", "2-3", "--capacity", "16384", "--policies", "tlru", "--format", "json"}, model...)...)
	if code != 0 {
		t.Fatal(errs)
	}
	var d struct {
		Summary struct {
			Policies []struct {
				TEL struct{ Mean float64 } `json:"tel_tokens"`
			} `json:"policies"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Summary.Policies[0].TEL.Mean, (tel[0]+tel[1])/2; got != want {
		t.Errorf("TEL mean %v, want %v (per seed %v)", got, want, tel)
	}
	if code, _, errs := runCLI("simulate", "--trace", "../../examples/fig1.jsonl", "--capacity", "100", "--mu", "0.1"); code == 0 || !strings.Contains(errs, "--mu") {
		t.Errorf("--mu with --trace: exit %d, %q", code, errs)
	}
}
