package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/sim"
)

// TestScheduleFlags: simulate --emit-schedule then --schedule gives the
// same numbers in the JSON contract; a broken schedule is one error line
// naming its file, line, turn and rule.
func TestScheduleFlags(t *testing.T) {
	dir := t.TempDir()
	em := filepath.Join(dir, "s.jsonl")
	code, _, errs := runCLI("simulate", "--policies", "lru,tlru", "--capacity", "32768", "--xi-tokens", "1500", "--emit-schedule", em, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := runCLI("simulate", "--policies", "lru,tlru", "--capacity", "32768", "--xi-tokens", "1500", "--format", "json",
		"--schedule", filepath.Join(dir, "s.lru.jsonl"), "--schedule", filepath.Join(dir, "s.tlru.jsonl"))
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct{ Policies []sim.PolicyJSON }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Policies) != 4 {
		t.Fatalf("%d results", len(doc.Policies))
	}
	for i := 0; i < 2; i++ {
		p, s := doc.Policies[i], doc.Policies[i+2]
		if p.TELTokens != s.TELTokens || p.TTFTMs["p99"] != s.TTFTMs["p99"] || p.Evictions != s.Evictions || p.HitRatio == nil || s.HitRatio == nil || *p.HitRatio != *s.HitRatio {
			t.Errorf("%s %+v, %s %+v", p.Name, p, s.Name, s)
		}
	}
	bad := writeFile(t, "bad.jsonl", "{\"cached\":0}\n{\"cached\":8}\n")
	tr := writeFile(t, "tr.jsonl", "{\"t\":0,\"conv\":\"a\",\"prompt\":16,\"response\":0}\n{\"t\":1,\"conv\":\"a\",\"prompt\":16,\"response\":0}\n")
	code, out, errs = runCLI("simulate", "--trace", tr, "--capacity", "32", "--schedule", bad)
	if code == 0 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 ||
		!strings.Contains(errs, "bad.jsonl:2: turn 1 (conversation \"a\"): cached 8 tokens") || !strings.Contains(errs, "rule: whole blocks") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestBlockScheduleFlags: simulate --level block --emit-schedule then
// --schedule gives the same figures; a bad block schedule is one line.
func TestBlockScheduleFlags(t *testing.T) {
	em := filepath.Join(t.TempDir(), "b.jsonl")
	var tr strings.Builder
	for i := 0; i < 60; i++ { // conversations a, b, c, d in turn, 40 tokens a turn
		fmt.Fprintf(&tr, "{\"t\":%d,\"conv\":\"%c\",\"prompt\":30,\"response\":10}\n", i, 'a'+i%4)
	}
	path := writeFile(t, "tr.jsonl", tr.String())
	code, out1, errs := runCLI("simulate", "--level", "block", "--trace", path, "--policies", "lru", "--capacity", "160", "--emit-schedule", em, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	code, out2, errs := runCLI("simulate", "--level", "block", "--trace", path, "--schedule", em, "--capacity", "160", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	// run returns a policy's metrics as JSON, without its name and its
	// improvement over a baseline (the schedule runs alone).
	run := func(out, name string) string {
		var doc struct{ Policies []map[string]any }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		for _, p := range doc.Policies {
			if p["name"] == name {
				delete(p, "name")
				delete(p, "improvement_vs_baseline")
				b, _ := json.Marshal(p)
				return string(b)
			}
		}
		return "missing"
	}
	if a, b := run(out1, "lru"), run(out2, "schedule:"+em); a != b || a == "missing" {
		t.Errorf("lru %s, its schedule %s", a, b)
	}
	bad := writeFile(t, "bad.jsonl", "{\"evict\":[5]}\n")
	code, _, errs = runCLI("simulate", "--level", "block", "--trace", path, "--schedule", bad, "--capacity", "160")
	if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 ||
		!strings.Contains(errs, "bad.jsonl:1: request 0: evicts 1 blocks, but the cache needed 0 (blocks are evicted only to make room) (rule: capacity)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestExecFlag: an exec: policy that stalls is killed after --exec-timeout.
func TestExecFlag(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	code, _, errs := runCLI("simulate", "--policies", "exec:sleep 30", "--exec-timeout", "0.2")
	if code == 0 || !strings.Contains(errs, "policy exec:sleep 30: turn 0: conversation 0: no answer within 200ms") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
