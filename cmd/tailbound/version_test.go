package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestVersionFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "tailbound ") || !strings.Contains(out.String(), "go1.") {
		t.Errorf("--version printed %q", out.String())
	}
}

// TestJSONStamped: a JSON result names the version, the command and every
// setting, including those left at their defaults.
func TestJSONStamped(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"simulate", "--trace", "../../examples/fig1.jsonl", "--capacity", "100", "--block-size", "1",
		"--xi-tokens", "150", "--policies", "lru", "--format", "json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		ProducedBy struct {
			Version  string            `json:"version"`
			Command  string            `json:"command"`
			Settings map[string]string `json:"settings"`
		} `json:"produced_by"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.ProducedBy
	if p.Version != version() || p.Command != "simulate" || p.Settings["capacity"] != "100" ||
		p.Settings["xi-tokens"] != "150" || p.Settings["slo-ms"] != "200" {
		t.Errorf("produced_by = %+v", p)
	}
}
