package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// studyTrace: a (p, r) = (10, 5), (4, 2), (1, 1); b (3, 0), all at t = 0.
func studyTrace(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hand.jsonl")
	if err := os.WriteFile(path, []byte(`{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 0, "conv": "b", "prompt": 3, "response": 0}
{"t": 0, "conv": "a", "prompt": 4, "response": 2}
{"t": 0, "conv": "a", "prompt": 1, "response": 1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --queue on the hand trace in 4-token blocks with a large LRU cache,
// TTFT = 10 + 1·b ms: loads 10, 3, 19, 22 tokens with hits 0, 0, 8, 16
// give services 20, 13, 21, 16 ms; all arrive at 0, so QTTFTs are 20, 33,
// 54, 70 (mean 44.25) on one server; on two, r2 takes the server free at
// 13 ms (13–34) and r3 the one free at 20 ms (20–36): 20, 13, 34, 36
// (mean 25.75).
func TestSimulateBlockQueue(t *testing.T) {
	path := studyTrace(t)
	for _, c := range []struct {
		servers string
		mean    float64
	}{{"1", 44.25}, {"2", 25.75}} {
		code, out, errs := runCLI("simulate", "--level", "block", "--trace", path, "--block-size", "4", "--capacity", "1024",
			"--policies", "lru", "--alpha-ms", "1", "--beta-ms", "10", "--queue", "--queue-servers", c.servers, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc struct {
			Policies []struct {
				Queued struct {
					Mean float64 `json:"mean_ms"`
				} `json:"queued_ttft"`
			} `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Policies) != 1 || doc.Policies[0].Queued.Mean != c.mean {
			t.Errorf("%s servers: %+v, want mean QTTFT %g ms", c.servers, doc.Policies, c.mean)
		}
	}
}

// --mix of a trace with itself doubles the requests and the distinct
// blocks (ids disjoint); --block-sizes 4,8 finds 15 and 9 block
// references; --ablation runs its six policies.
func TestSimulateBlockStudies(t *testing.T) {
	path := studyTrace(t)
	code, out, errs := runCLI("simulate", "--level", "block", "--trace", path, "--block-size", "4", "--capacity", "1024",
		"--policies", "lru", "--mix", path, "--format", "json")
	var doc struct {
		Ideal struct {
			Requests int64 `json:"requests"`
			Distinct int64 `json:"distinct_blocks"`
		} `json:"ideal"`
		Policies []struct {
			Name string `json:"name"`
		} `json:"policies"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Ideal.Requests != 8 || doc.Ideal.Distinct != 18 {
		t.Errorf("--mix: exit %d %s; ideal %+v, want 8 requests, 18 distinct blocks", code, errs, doc.Ideal)
	}
	code, out, errs = runCLI("simulate", "--level", "block", "--trace", path, "--capacity", "1024",
		"--policies", "lru", "--block-sizes", "4,8", "--format", "json")
	var sweep struct {
		Runs []struct {
			B    int64   `json:"block_size_tokens"`
			Hit  float64 `json:"block_hit_ratio"`
			Hits float64 `json:"hit_ratio"`
		} `json:"runs"`
	}
	// B = 4: 6 of 15 blocks hit; B = 8: 3 of 9.
	if code != 0 || json.Unmarshal([]byte(out), &sweep) != nil || len(sweep.Runs) != 2 || sweep.Runs[0].B != 4 ||
		sweep.Runs[0].Hit != 6.0/15 || sweep.Runs[1].Hit != 3.0/9 {
		t.Errorf("--block-sizes: exit %d %s; %+v", code, errs, sweep)
	}
	code, out, errs = runCLI("simulate", "--level", "block", "--trace", path, "--block-size", "4", "--capacity", "1024",
		"--ablation", "--format", "json")
	doc.Policies = nil
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Policies) != 6 || doc.Policies[1].Name != "wa" {
		t.Errorf("--ablation: exit %d %s; %+v", code, errs, doc.Policies)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ablation", "--policies", "lru"}, "--ablation and --policies"},
		{[]string{"--queue", "--queue-servers", "0"}, "--queue-servers"},
		{[]string{"--block-sizes", "8", "--capacity", "12"}, "--block-sizes"},
		{[]string{"--mix", "/nonexistent"}, "--mix"},
	} {
		args := append([]string{"simulate", "--level", "block", "--trace", path, "--capacity", "1024"}, c.args...)
		code, _, errs := runCLI(args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line error naming %s", c.args, code, errs, c.want)
		}
	}
}

// TestLatencyFitPlot: --plot draws the points and the line (Figure 3); a
// bad extension is a one-line error.
func TestLatencyFitPlot(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(csv, []byte("uncached_tokens,ttft_ms\n0,5\n100,25\n1000,205\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "fit.svg")
	if code, _, errs := runCLI("latency", "fit", "--csv", csv, "--plot", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("%s: %v", svg, err)
	}
	if code, _, errs := runCLI("latency", "fit", "--csv", csv, "--plot", filepath.Join(dir, "fit.txt")); code == 0 || !strings.Contains(errs, "--plot") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
