package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const splitTrace = `{"t":0,"conv":"a","prompt":2,"response":0}
{"t":1,"conv":"b","prompt":2,"response":0}
{"t":2,"conv":"a","prompt":1,"response":0}
{"t":3,"conv":"b","prompt":1,"response":0}
`

// TestSolveJSONContract: the SPEC §9 keys, on the split-block instance
// worked by hand (optimum 1 token, LP bound 0, fractional, to-belady 1).
func TestSolveJSONContract(t *testing.T) {
	p := writeFile(t, "split.jsonl", splitTrace)
	sched := filepath.Join(t.TempDir(), "sched.csv")
	code, out, errs := runCLI("solve", "--trace", p, "--capacity", "2", "--block-size", "2", "--xi-tokens", "2",
		"--solver", "gonum", "--schedule", sched, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tel_opt_tokens": 1.0, "lp_bound_tokens": 0.0, "integral": false, "belady_tel_tokens": 1.0,
		"status": "optimal", "solver": "gonum", "formulation": "compact"}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	for _, k := range []string{"rows", "cols", "nonzeros", "solve_seconds", "integrality_tolerance_blocks", "conditions", "disagreements"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("key %s missing", k)
		}
	}
	b, err := os.ReadFile(sched)
	if err != nil {
		t.Fatal(err)
	}
	// a's return finds its block (2 tokens) or b's does; one of them.
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 5 || !strings.HasPrefix(lines[0], "turn,conv,") {
		t.Errorf("schedule:\n%s", b)
	}
}

func TestSolveBadInput(t *testing.T) {
	good := writeFile(t, "good.jsonl", splitTrace)
	bad := writeFile(t, "bad.jsonl", `{"t": 0, "conv": "a", "prompt": 0, "response": 5}`+"\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"solve", "--trace", bad, "--capacity", "16", "--xi-tokens", "0"}, `bad.jsonl:1: field "prompt"`},
		{[]string{"solve", "--trace", good, "--capacity", "3", "--block-size", "2", "--xi-tokens", "0"}, "--capacity"},
		{[]string{"solve", "--trace", good, "--capacity", "4", "--block-size", "2", "--formulation", "nope"}, "--formulation"},
		{[]string{"solve", "--trace", good, "--capacity", "4", "--block-size", "2", "--solver", "nope"}, `unknown solver "nope"`},
		{[]string{"solve", "--trace", good, "--capacity", "4", "--block-size", "2", "--solver", "flow", "--relax"}, "flow solves the integer program"},
		{[]string{"solve", "--trace", good, "--capacity", "4", "--block-size", "2", "--forced", "--formulation", "paper-as-written"}, "optional caching only"},
		{[]string{"solve", "--trace", "/nonexistent.jsonl", "--capacity", "4", "--block-size", "2"}, "nonexistent"},
		{[]string{"solve", "--capacity", "4"}, "--capacity"}, // the embedded workload, B = 16
		{[]string{"solve", "--trace", good}, "--capacity"},
		{[]string{"solve", "--trace", good, "--capacity", "4", "--block-size", "2", "--time-limit", "-1"}, "--time-limit"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, errs, c.want)
		}
	}
}

func TestGapCommand(t *testing.T) {
	p := writeFile(t, "split.jsonl", splitTrace)
	code, out, errs := runCLI("gap", "--trace", p, "--policies", "lru,to-belady,threshold-lru", "--capacities", "0,2",
		"--xis", "2,10", "--thresholds", "0,3", "--block-size", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []struct {
			Capacity int64    `json:"capacity_tokens"`
			Xi       float64  `json:"xi_tokens"`
			Policy   string   `json:"policy"`
			Opt      float64  `json:"tel_opt_tokens"`
			TEL      float64  `json:"tel_tokens"`
			Rel      *float64 `json:"rel_gap"`
			OptZero  string   `json:"opt_zero"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 2*2*4 {
		t.Fatalf("%d rows", len(doc.Rows))
	}
	for _, r := range doc.Rows {
		// ξ = 10 tokens exceeds every load (≤ 3): TEL_opt = 0 = every TEL.
		if r.Xi == 10 && (r.Opt != 0 || r.TEL != 0 || r.Rel != nil || r.OptZero != "both zero") {
			t.Errorf("%+v", r)
		}
		// C = 2, ξ = 2 is the split-block instance: optimum 1 token.
		if r.Xi == 2 && r.Capacity == 2 && r.Opt != 1 {
			t.Errorf("%+v", r)
		}
		// C = 0: nothing cached: both returns have excess 1.
		if r.Xi == 2 && r.Capacity == 0 && (r.Opt != 2 || r.TEL != 2) {
			t.Errorf("%+v", r)
		}
	}
	code, _, errs = runCLI("gap", "--trace", p, "--policies", "lru", "--capacities", "3", "--xis", "0", "--block-size", "2")
	if code == 0 || !strings.Contains(errs, "--capacities") {
		t.Errorf("odd capacity: exit %d %q", code, errs)
	}
	code, _, errs = runCLI("gap", "--trace", p, "--policies", "lru", "--capacities", "2", "--xis", "0", "--thresholds", "4", "--block-size", "2")
	if code == 0 || !strings.Contains(errs, "--thresholds") {
		t.Errorf("thresholds without threshold-lru: exit %d %q", code, errs)
	}
}
