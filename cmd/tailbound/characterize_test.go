package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCharacterizeMooncake checks the JSON contract on the published
// conversation trace: the ideal hit ratio of shared/data/README.md (0.366)
// and identical output on a second run.
func TestCharacterizeMooncake(t *testing.T) {
	path := mooncakeFile(t, "conversation_trace.jsonl")
	dir := t.TempDir()
	code, out, errs := runCLI("characterize", path, "--trace-format", "mooncake", "--format", "json", "--plot-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Requests      int64   `json:"requests"`
		Ideal         float64 `json:"ideal_block_hit_ratio"`
		Refs          int64   `json:"ref_blocks"`
		Distinct      int64   `json:"distinct_blocks"`
		Conversations int64   `json:"conversations"`
		GiB           float64 `json:"peak_live_gib"`
		Capacity      struct {
			Blocks int64 `json:"peak_live_blocks"`
			Tokens int64 `json:"peak_live_tokens"`
		} `json:"capacity_for_ideal"`
		Categories []struct {
			Name string `json:"name"`
		} `json:"categories"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Requests != 12031 || fmt.Sprintf("%.3f", doc.Ideal) != "0.366" || doc.Refs != 288500 || doc.Distinct != 182790 ||
		doc.Capacity.Tokens != 512*doc.Capacity.Blocks || len(doc.Categories) != 5 ||
		// Qwen2-7B: 2 × 28 layers × 4 KV heads × 128 × 2 bytes = 57,344 bytes per token.
		doc.GiB != float64(doc.Capacity.Tokens)*57344/(1<<30) || doc.Categories[0].Name != "turn-1" {
		t.Errorf("document %+v", doc)
	}
	for _, f := range []string{"conversation_trace-reuse.svg", "conversation_trace-lifespan.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	_, again, _ := runCLI("characterize", path, "--trace-format", "mooncake", "--format", "json", "--plot-dir", dir)
	if again != out {
		t.Error("second run differs")
	}
	for _, f := range []string{"table", "markdown", "csv"} {
		if code, out, errs := runCLI("characterize", path, "--trace-format", "mooncake", "--format", f); code != 0 || !strings.Contains(out, "P50 (s)") {
			t.Errorf("--format %s: exit %d %s", f, code, errs)
		}
	}
}

// TestCharacterizeBlocks characterizes the blocks output of import, which
// states its block size per line.
func TestCharacterizeBlocks(t *testing.T) {
	in := importFixture(t, "b.jsonl", bailianLines)
	blocks := filepath.Join(t.TempDir(), "b.blocks.jsonl")
	if code, _, errs := runCLI("import", "bailian", "--in", in, "--to", "blocks", "--out", blocks); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := runCLI("characterize", blocks, "--trace-format", "blocks", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Block    int     `json:"block_tokens"`
		Ideal    float64 `json:"ideal_block_hit_ratio"`
		Capacity struct {
			Blocks int64 `json:"peak_live_blocks"`
			Tokens int64 `json:"peak_live_tokens"`
		} `json:"capacity_for_ideal"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// Chains [1 2 3], [7 8], [1 2 4 5]: 9 uses of 7 blocks; blocks 1 and
	// 2 live between the first and the third request.
	if doc.Block != 16 || doc.Ideal != 1-7.0/9 || doc.Capacity.Blocks != 2 || doc.Capacity.Tokens != 32 {
		t.Errorf("document %+v", doc)
	}
}

func TestCharacterizeErrors(t *testing.T) {
	bad := importFixture(t, "bad.jsonl", `{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [1]}`+"\n")
	empty := importFixture(t, "empty.jsonl", "\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"characterize", bad, "--trace-format", "mooncake"}, bad + `:1: field "hash_ids"`},
		{[]string{"characterize", bad}, "flag --trace-format: required"},
		{[]string{"characterize", bad, "--trace-format", "csv"}, `trace format "csv"`},
		{[]string{"characterize", "--trace-format", "mooncake"}, "exactly one TRACE"},
		{[]string{"characterize", empty, "--trace-format", "mooncake"}, "no requests"},
		{[]string{"characterize", bad, "--trace-format", "mooncake", "--plot-dir", bad}, "flag --plot-dir"},
		{[]string{"characterize", bad, "--trace-format", "mooncake", "--format", "xml"}, "flag --format"},
		{[]string{"characterize", bad, "--trace-format", "mooncake", "--max-turn", "0"}, "flag --max-turn"},
		{[]string{"characterize", bad, "--trace-format", "mooncake", "--kv-model", "gpt-9"}, "flag --kv-model"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", c.args, code, errs, c.want)
		}
	}
}

// TestCharacterizeCanonical: a canonical trace (once refused) gets its turn
// and token distributions; --window, --spatial and --gpu add their sections.
func TestCharacterizeCanonical(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hand.jsonl")
	// Conversation a: (p, r) = (10, 5), (4, 2); b: (3, 0).
	if err := os.WriteFile(path, []byte(`{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 1, "conv": "b", "prompt": 3, "response": 0}
{"t": 2, "conv": "a", "prompt": 4, "response": 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("characterize", path, "--trace-format", "canonical", "--block-size", "4", "--window", "2",
		"--spatial", "--gpu", "a100-80gb", "--format", "json", "--plot-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Requests int64 `json:"requests"`
		Linked   int64 `json:"linked_requests"`
		Turns    struct {
			Per     struct{ Mean float64 } `json:"turns_per_conversation"`
			History struct{ Max float64 }  `json:"history_tokens"`
		} `json:"turns"`
		Series []struct {
			Requests int64 `json:"requests"`
		} `json:"series"`
		Spatial []struct{} `json:"spatial_locality"`
		KV      struct {
			GPUs struct {
				N int `json:"gpus"`
			} `json:"hbm"`
		} `json:"kv"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// 3 turns, 1 linked; 1.5 turns per conversation; a's second turn
	// carries H = 15; windows [0, 2) and [2, 4) hold 2 and 1 requests.
	if doc.Requests != 3 || doc.Linked != 1 || doc.Turns.Per.Mean != 1.5 || doc.Turns.History.Max != 15 ||
		len(doc.Series) != 2 || doc.Series[0].Requests != 2 || doc.Series[1].Requests != 1 ||
		len(doc.Spatial) != 55 || doc.KV.GPUs.N != 1 {
		t.Errorf("document %+v", doc)
	}
	for _, f := range []string{"hand-turns.svg", "hand-tokens.svg", "hand-rate.svg", "hand-spatial.svg", "hand-kvsize.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--block-size", "0"}, "--block-size"},
		{[]string{"--gpu", "tpu"}, "--gpu"},
		{[]string{"--gpu", "a100-40gb", "--kv-model", "llama-3-70b", "--gpus", "1"}, "no HBM for KV"},
	} {
		code, _, errs := runCLI(append([]string{"characterize", path, "--trace-format", "canonical"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line error naming %s", c.args, code, errs, c.want)
		}
	}
}
