package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// TestSolveEmbedded: solve with no --trace solves the embedded workload
// (seed 1). At capacity 0 nothing can be carried, so the optimum is the
// closed form Σ_k max(D_k − ξ, 0), D_k = H_k + p_k, summed here from the
// generator's trace.
func TestSolveEmbedded(t *testing.T) {
	code, out, errs := runCLI("solve", "--capacity", "0", "--xi-tokens", "1900", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		TELOpt   float64        `json:"tel_opt_tokens"`
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	hist := map[int]float64{}
	var want float64
	for _, k := range tr.Turns {
		want += math.Max(hist[k.Conv]+float64(k.Prompt)-1900, 0)
		hist[k.Conv] += float64(k.Prompt + k.Response)
	}
	if doc.TELOpt != want || want == 0 {
		t.Errorf("TEL_opt %v tokens, want Σ max(D − ξ, 0) = %v", doc.TELOpt, want)
	}
	if lbl, _ := doc.Settings["trace"].(string); !strings.HasPrefix(lbl, "embedded birth–death workload (seed 1)") {
		t.Errorf("trace label %q", lbl)
	}
}

// TestGapEmbedded: gap with no --trace, --capacities or --xis measures the
// embedded workload at simulate's defaults (C = 131072, ξ = 1900 tokens),
// and a policy's TEL there is simulate's.
func TestGapEmbedded(t *testing.T) {
	code, out, errs := runCLI("gap", "--duration", "300", "--policies", "lru", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var g struct {
		Rows []struct {
			Capacity int64   `json:"capacity_tokens"`
			Xi       float64 `json:"xi_tokens"`
			TEL      float64 `json:"tel_tokens"`
			TELOpt   float64 `json:"tel_opt_tokens"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI("simulate", "--duration", "300", "--policies", "lru", "--format", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var s struct {
		Policies []struct {
			TEL float64 `json:"tel_tokens"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(g.Rows) != 1 || g.Rows[0].Capacity != 131072 || g.Rows[0].Xi != 1900 || len(s.Policies) != 1 ||
		g.Rows[0].TEL != s.Policies[0].TEL || g.Rows[0].TELOpt > g.Rows[0].TEL {
		t.Errorf("gap rows %+v, simulate %+v", g.Rows, s.Policies)
	}
}

// TestMainJobOptimum: simulate on the embedded workload ends with the
// hindsight optimum and each policy's TEL as a multiple of it; the
// optimum is gap's (another command, its own replay and solve) and the
// multiples are TEL/TEL_opt from gap's rows. The JSON output has no such
// table (it is simulate's document, unchanged).
func TestMainJobOptimum(t *testing.T) {
	code, out, errs := runCLI("gap", "--duration", "300", "--policies", "lru,to-belady", "--format", "json")
	if code != 0 {
		t.Fatalf("gap: exit %d: %s", code, errs)
	}
	var g struct {
		Rows []struct {
			Policy string  `json:"policy"`
			TEL    float64 `json:"tel_tokens"`
			TELOpt float64 `json:"tel_opt_tokens"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil || len(g.Rows) != 2 {
		t.Fatalf("gap rows %v: %v", g.Rows, err)
	}
	code, out, errs = runCLI("simulate", "--duration", "300", "--policies", "lru,to-belady", "--format", "markdown")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	want := fmt.Sprintf("TEL_opt = %.0f tokens", g.Rows[0].TELOpt)
	if !strings.Contains(out, want) {
		t.Errorf("simulate's output lacks %q:\n%s", want, out)
	}
	for _, r := range g.Rows {
		row := fmt.Sprintf("| %s | %.0f | %.2f× |", r.Policy, r.TEL, r.TEL/r.TELOpt)
		if !strings.Contains(out, row) {
			t.Errorf("simulate's output lacks the row %q:\n%s", row, out)
		}
	}
	_, js, _ := runCLI("simulate", "--duration", "300", "--policies", "lru,to-belady", "--format", "json")
	if strings.Contains(js, "TEL_opt") || strings.Contains(js, "tel_opt") {
		t.Error("simulate's JSON document changed: it has the optimum")
	}
}
