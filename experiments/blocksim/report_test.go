package blocksim_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Worked by hand (B = 16, capacity 48 tokens, ξ = 20 tokens, α = 0.1
// ms/token, β = 10 ms): turn 1 of a has D = 32 (chain a0 a1), misses: 32
// uncached, TTFT 13.2 ms, excess 12. Turn 2 has D = 48 (a0 a1 a2) and hits
// a0 a1: 16 uncached, TTFT 11.6 ms, no excess. Block hit ratio 2/5, token
// hit ratio 32/80, TEL 12 tokens = 1.2 ms, mean TTFT 12.4 ms. An infinite
// cache does the same; a0 and a1 are live between the turns: 32 tokens.
func TestReportHandWorked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(path, []byte(`{"t":0,"conv":"a","prompt":32,"response":0}`+"\n"+`{"t":1,"conv":"a","prompt":16,"response":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, block, f, err := blocksim.Open(path, "canonical", 16)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, _ := prefixcache.Parse("lru,fifo")
	opt := blocksim.Options{Params: instance.Params{BlockSize: block, Xi: 20}, Model: latency.Model{AlphaMs: 0.1, BetaMs: 10}, SLOMs: 200}
	results, ideal, err := blocksim.Replay(src, blocksim.SweepRuns(entries, []int64{48}), opt)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := blocksim.Report(results, ideal, opt, blocksim.Labels{Trace: path, TraceFormat: "canonical"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ideal struct {
			BlockHitRatio  float64 `json:"block_hit_ratio"`
			CapacityNeeded int64   `json:"capacity_needed_tokens"`
		} `json:"ideal"`
		Policies []struct {
			Name          string             `json:"name"`
			Requests      int64              `json:"requests"`
			Turns         int64              `json:"turns"`
			BlockHitRatio float64            `json:"block_hit_ratio"`
			HitRatio      float64            `json:"hit_ratio"`
			TELTokens     float64            `json:"tel_tokens"`
			TELMs         float64            `json:"tel_ms"`
			TTFTMs        map[string]float64 `json:"ttft_ms"`
			MaxUncached   int64              `json:"max_uncached_tokens"`
			CapacityTok   int64              `json:"capacity_tokens"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if len(doc.Policies) != 2 || !near(doc.Ideal.BlockHitRatio, 0.4) || doc.Ideal.CapacityNeeded != 32 {
		t.Fatalf("doc %+v", doc)
	}
	for _, p := range doc.Policies {
		if p.Requests != 2 || p.Turns != 2 || !near(p.BlockHitRatio, 0.4) || !near(p.HitRatio, 0.4) || !near(p.TELTokens, 12) ||
			!near(p.TELMs, 1.2) || !near(p.TTFTMs["mean"], 12.4) || !near(p.TTFTMs["p99"], 13.2) || p.MaxUncached != 32 || p.CapacityTok != 48 {
			t.Errorf("%+v", p)
		}
	}
}

// TestReportNoInput: a Mooncake request with input_length 0 references no
// block and no token (issue 17: its 0/0 token hit ratio made the JSON fail
// with "unsupported value: NaN"). Every ratio with no value is null; the
// JSON encodes; tables print "—".
func TestReportNoInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 0, "output_length": 5, "hash_ids": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, block, f, err := blocksim.Open(path, "mooncake", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, _ := prefixcache.Parse("lru,fifo")
	opt := blocksim.Options{Params: instance.Params{BlockSize: block, Xi: 20}, Model: latency.Model{AlphaMs: 0.1, BetaMs: 10}, SLOMs: 200}
	results, ideal, err := blocksim.Replay(src, blocksim.SweepRuns(entries, []int64{block * 4}), opt)
	if err != nil {
		t.Fatal(err)
	}
	d, tables, err := blocksim.Report(results, ideal, opt, blocksim.Labels{Trace: path, TraceFormat: "mooncake"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var doc struct {
		Ideal    map[string]any   `json:"ideal"`
		Policies []map[string]any `json:"policies"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"block_hit_ratio", "hit_ratio"} {
		if v, ok := doc.Ideal[k]; !ok || v != nil {
			t.Errorf("ideal %s = %v (present %v), want null", k, v, ok)
		}
		for _, p := range doc.Policies {
			if v, ok := p[k]; !ok || v != nil {
				t.Errorf("%v %s = %v (present %v), want null", p["name"], k, v, ok)
			}
		}
	}
	for _, tb := range tables {
		for _, row := range tb.Rows {
			for _, c := range row {
				if c == "NaN" {
					t.Errorf("table %q prints NaN: %q", tb.Title, row)
				}
			}
		}
	}
}
