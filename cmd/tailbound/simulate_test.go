package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs tailbound with args and returns exit code, stdout, stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInput: each bad input gives a one-line error naming what is wrong
// and a non-zero exit, never a panic or a partial result on stdout.
func TestBadInput(t *testing.T) {
	good := writeFile(t, "good.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n")
	bad := writeFile(t, "bad.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n"+`{"t": 1, "conv": "a", "prompt": -4, "response": 5}`+"\n")
	cases := []struct {
		args []string
		want string // substring of the error line
	}{
		{[]string{"simulate", "--trace", bad, "--capacity", "16"}, "bad.jsonl:2: field \"prompt\""},
		{[]string{"simulate", "--trace", bad, "--capacity", "16", "--policies", "to-belady"}, "bad.jsonl:2: field \"prompt\""},
		{[]string{"simulate", "--trace", good, "--capacity", "100"}, "--capacity"},
		{[]string{"simulate", "--trace", good, "--capacity", "160", "--policies", "lru,nosuch"}, `unknown policy "nosuch"`},
		{[]string{"simulate", "--trace", filepath.Join(t.TempDir(), "missing.jsonl"), "--capacity", "16"}, "missing.jsonl"},
		{[]string{"simulate", "--trace", good}, "--capacity"},
		{[]string{"simulate", "--trace", good, "--capacity", "16", "--qhat", "-3"}, "--qhat"},
		{[]string{"simulate", "--format", "xml"}, "--format"},
		{[]string{"simulate", "--capacity", "abc"}, "--capacity"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"simulate", "--trace", good, "--capacity", "16", "--policies", "tlru", "--baseline", "lru"}, `--baseline: policy "lru"`},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 {
			t.Errorf("%v: exit 0, want non-zero", c.args)
		}
		if out != "" {
			t.Errorf("%v: wrote %q to stdout on error", c.args, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errs, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"simulate", "--help"}} {
		code, out, _ := runCLI(args...)
		if code != 0 || !strings.Contains(out, "Usage") && !strings.Contains(out, "Commands") {
			t.Errorf("%v: exit %d, output %q", args, code, out)
		}
	}
}

// TestSeedDeterminism: the same seed gives byte-identical output in every
// format, and another seed gives another workload.
func TestSeedDeterminism(t *testing.T) {
	for _, f := range []string{"json", "csv", "table", "markdown"} {
		_, a, _ := runCLI("simulate", "--seed", "7", "--format", f)
		_, b, _ := runCLI("simulate", "--seed", "7", "--format", f)
		if a != b || a == "" {
			t.Errorf("format %s: two runs with seed 7 differ or are empty", f)
		}
	}
	_, a, _ := runCLI("simulate", "--seed", "7", "--format", "csv")
	_, c, _ := runCLI("simulate", "--seed", "8", "--format", "csv")
	if a == c {
		t.Error("seeds 7 and 8 give the same output")
	}
}

// TestSimulateJSONContract checks the JSON keys fixed by the spec and a
// value worked by hand: one conversation, two turns of 10-token prompts and
// 6-token responses, C = 32, B = 16, ξ = 5 tokens. LRU caches ⌊16/16⌋ = 1
// block after turn 1, so turn 2 has D = 26, x = 16, b = 10; turn 1 has
// b = 10. TEL = 2·(10 − 5) = 10 tokens; α = 0.1 ms/token gives 1 ms.
func TestSimulateJSONContract(t *testing.T) {
	tr := writeFile(t, "t.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 6}`+"\n"+`{"t": 3, "conv": "a", "prompt": 10, "response": 6}`+"\n")
	code, out, errs := runCLI("simulate", "--trace", tr, "--capacity", "32", "--block-size", "16", "--xi-tokens", "5",
		"--alpha-ms", "0.1", "--beta-ms", "10", "--policies", "lru", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Policies []struct {
			Name      string             `json:"name"`
			TELTokens float64            `json:"tel_tokens"`
			TELMs     float64            `json:"tel_ms"`
			TTFT      map[string]float64 `json:"ttft_ms"`
			SLO       *int64             `json:"slo_violations"`
			Hit       *float64           `json:"hit_ratio"`
			MaxU      int64              `json:"max_uncached_tokens"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Policies[0]
	const eps = 1e-9 // a handful of float operations on small integers
	if p.Name != "lru" || p.TELTokens != 10 || abs(p.TELMs-1) > eps || p.MaxU != 10 || p.SLO == nil || *p.SLO != 0 || p.Hit == nil {
		t.Errorf("got %+v", p)
	}
	// TTFT of both turns = 10 + 0.1·10 = 11 ms; hit ratio = 16/(10+26).
	for _, k := range []string{"mean", "p50", "p90", "p95", "p99"} {
		if abs(p.TTFT[k]-11) > eps {
			t.Errorf("ttft_ms.%s = %v, want 11", k, p.TTFT[k])
		}
	}
	if abs(*p.Hit-16.0/36) > eps {
		t.Errorf("hit_ratio = %v, want %v", *p.Hit, 16.0/36)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestLatencyFit: points on TTFT = 5 + 0.2·b ms exactly; ξ_s = 205 ms is
// then (205 − 5)/0.2 = 1000 tokens.
func TestLatencyFit(t *testing.T) {
	csv := writeFile(t, "m.csv", "uncached_tokens,ttft_ms\n0,5\n100,25\n1000,205\n")
	code, out, errs := runCLI("latency", "fit", "--csv", csv, "--xi-ms", "205", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Alpha float64 `json:"alpha_ms_per_token"`
		Beta  float64 `json:"beta_ms"`
		Xi    float64 `json:"xi_tokens"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	const eps = 1e-9 // exact data
	if abs(doc.Alpha-0.2) > eps || abs(doc.Beta-5) > eps || abs(doc.Xi-1000) > 1e-6 {
		t.Errorf("fit %v", doc)
	}
}

// TestDefaultBaselineDropped: the default baseline (lru) is dropped when
// --policies leaves it out, so the run succeeds without the relative view.
func TestDefaultBaselineDropped(t *testing.T) {
	good := writeFile(t, "good.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n")
	code, out, errs := runCLI("simulate", "--trace", good, "--capacity", "16", "--policies", "tlru", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["baseline"]; ok {
		t.Errorf("baseline %v reported though lru was not run", doc["baseline"])
	}
}
