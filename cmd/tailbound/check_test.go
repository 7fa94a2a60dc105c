package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The check command: the first figure holds (the hand-worked values are
// asserted in proofs-check), output is a function of the seed, and bad
// arguments give a one-line error and a non-zero exit.
func TestCheckCommand(t *testing.T) {
	code, out, errs := runCLI("check", "figure1", "theorem1", "--instances", "30", "--seed", "4", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Checks []struct {
			Name                       string
			Instances, Passed          int
			Failed, Exhaustive, Random int
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range doc.Checks {
		names[c.Name] = true
		if c.Passed+c.Failed != c.Instances {
			t.Errorf("%s: %d passed + %d failed ≠ %d instances", c.Name, c.Passed, c.Failed, c.Instances)
		}
		if c.Name == "figure1" && (c.Instances != 1 || c.Passed != 1) {
			t.Errorf("figure1: %+v", c)
		}
		// theorem1's enumeration: 1,170 traces (counted in closed form
		// in proofs-check) × 2 capacities × 4 values of ξ.
		if c.Name == "theorem1" && (c.Random != 30 || c.Exhaustive != 9360 || c.Instances != 9390) {
			t.Errorf("theorem1 ran %d instances (%d enumerated, %d random), want 9360 + 30", c.Instances, c.Exhaustive, c.Random)
		}
	}
	// "theorem1" is a family: all five Theorem 1 scopes, plus figure1.
	if len(doc.Checks) != 6 || !names["figure1"] || !names["theorem1-blocks-forced"] {
		t.Errorf("claims run: %v", names)
	}
	if _, again, _ := runCLI("check", "figure1", "theorem1", "--instances", "30", "--seed", "4", "--format", "json"); again != out {
		t.Error("same seed, different output")
	}

	for _, args := range [][]string{
		{"check", "no-such-claim"},
		{"check", "--instances", "0"},
		{"check", "--format", "xml"},
	} {
		code, _, errs := runCLI(args...)
		if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	if _, help, _ := runCLI("check", "--help"); !strings.Contains(help, "roofline-live (only when named") || !strings.Contains(help, "theorem2-paper") {
		t.Errorf("help does not list the claims:\n%s", help)
	}
}
