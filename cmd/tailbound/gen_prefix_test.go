package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenPrefixBadFlags: every bad setting stops with exit 1 and one line
// on stderr naming the flag (or the file and field), nothing on stdout.
func TestGenPrefixBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"sessions_per_s": 1, "categories": [{"name": "a", "weight": 1, "first_tokens": {"mu": 3, "min": 1}, "next_turn": [1.5]}]}`), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"sessions_per_s": 1, "colour": "red"}`), 0o644)
	trace := filepath.Join(dir, "t.jsonl")
	os.WriteFile(trace, []byte("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, 1]}\n{\"timestamp\": -5, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, 2]}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--requests", "-1"}, "flag --requests"},
		{[]string{"--duration", "-3"}, "flag --duration"},
		{[]string{"--preset", "nope", "--requests", "5"}, "flag --preset"},
		{[]string{"--preset", "cluster"}, "flag --requests"},
		{[]string{"--preset", "cluster", "--fit", trace, "--trace-format", "mooncake"}, "flag --fit"},
		{[]string{"--requests", "5", "--trace-format", "mooncake"}, "flag --trace-format"},
		{[]string{"--fit", trace, "--trace-format", "csv"}, "flag --trace-format"},
		{[]string{"--fit", trace, "--trace-format", "mooncake"}, "t.jsonl:2: field \"timestamp\""},
		{[]string{"--model", bad, "--requests", "5"}, "next_turn[0]"},
		{[]string{"--model", unknown, "--requests", "5"}, "unknown field \"colour\""},
		{[]string{"--model", filepath.Join(dir, "none.json"), "--requests", "5"}, "flag --model"},
		{[]string{"--requests", "x"}, "--requests"},
		{[]string{"--fit", "-", "--trace-format", "mooncake"}, "flag --fit"},
		{[]string{"--fit", trace, "--trace-format", "mooncake", "--length-law", "gamma"}, "flag --length-law"},
		{[]string{"--gap-law", "gamma", "--fit", trace, "--trace-format", "mooncake"}, "flag --gap-law"},
	} {
		code, out, errs := runCLI(append([]string{"gen", "prefix"}, c.args...)...)
		line := strings.TrimSuffix(errs, "\n")
		if code != 1 || out != "" || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1, one line with %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestGenPrefixSeed: the command's output is byte-identical for a seed,
// and the model it writes with --model-out generates the same trace.
func TestGenPrefixSeed(t *testing.T) {
	js := filepath.Join(t.TempDir(), "m.json")
	args := []string{"gen", "prefix", "--preset", "agentic", "--requests", "2000", "--seed", "5"}
	c1, a, e := runCLI(append(args, "--model-out", js)...)
	_, b, _ := runCLI(args...)
	if c1 != 0 || a == "" || a != b {
		t.Fatalf("exit %d (%s); same seed gives the same output: %v", c1, e, a == b)
	}
	_, c, _ := runCLI("gen", "prefix", "--model", js, "--requests", "2000", "--seed", "5")
	if c != a {
		t.Error("the model written by --model-out generates another trace")
	}
	if n := strings.Count(a, "\n"); n != 2000 {
		t.Errorf("%d lines, want 2000", n)
	}
}
