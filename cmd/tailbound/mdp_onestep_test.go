package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// runOneStep calls the command directly (the dispatcher's line for it is
// the lead's to add) and returns its output and error.
func runOneStep(args ...string) (string, error) {
	var out bytes.Buffer
	err := runMDPOneStep(args, &out)
	return out.String(), err
}

// TestMDPOneStep: C = 6, B = 2, ξ = 1, Q = 0 or 4 tokens with equal chance;
// A (λ = 1/s, H = 4, fixed at 4) costs 1·E[(−1 + Q)⁺] = 1.5; the one free
// block goes to C (λ = 2/s, H = 2: 2·E[(1 + Q)] = 6 falls to
// 2·E[(−1 + Q)⁺] = 3) rather than B (λ = 0.5/s, H = 6: 3.5 falls to 2.5),
// so both rows keep [4 0 2] at 1.5 + 3.5 + 3 = 8 tokens/s.
func TestMDPOneStep(t *testing.T) {
	out, err := runOneStep("--items", "1:4:4:fixed,0.5:6:6,2:2:2", "--capacity", "6", "--block-size", "2", "--xi-tokens", "1",
		"--prompt", "pmf:0:0.5,4:0.5", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Policies []struct {
			Name      string  `json:"name"`
			Objective float64 `json:"objective_tokens_per_s"`
			Kept      []int64 `json:"kept_tokens"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Policies) != 2 || doc.Policies[0].Name != "etlru" || doc.Policies[1].Name != "optimum" {
		t.Fatalf("rows %+v, want etlru and optimum", doc.Policies)
	}
	for _, p := range doc.Policies {
		if math.Abs(p.Objective-8) > 1e-12 || !slices.Equal(p.Kept, []int64{4, 0, 2}) {
			t.Errorf("%s: objective %v tokens/s keeping %v; want 8 keeping [4 0 2]", p.Name, p.Objective, p.Kept)
		}
	}
	table, err := runOneStep("--items", "1:4:4:fixed,0.5:6:6,2:2:2", "--capacity", "6", "--block-size", "2", "--xi-tokens", "1", "--prompt", "pmf:0:0.5,4:0.5")
	if err != nil || !strings.Contains(table, "objective (tokens/s)") || !strings.Contains(table, "8.000000000") {
		t.Errorf("table (%v):\n%s", err, table)
	}
}

// TestMDPOneStepBadInput: each bad flag gives an error naming it.
func TestMDPOneStepBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--capacity", "2"}, "flag --items: item 0 \"\""},
		{[]string{"--items", "1:3:4", "--capacity", "2"}, "flag --items: item 0 \"1:3:4\": bound"},
		{[]string{"--items", "1:3:2", "--capacity", "3", "--block-size", "2"}, "flag --capacity:"},
		{[]string{"--items", "1:3:3", "--capacity", "4", "--block-size", "2"}, "flags --items and --block-size:"},
		{[]string{"--items", "1:3:2", "--capacity", "2", "--prompt", "online"}, "flag --prompt:"},
		{[]string{"--items", "1:3:2", "--capacity", "2", "--xi-tokens", "NaN"}, "--xi-tokens"},
		{[]string{"--items", "1:3:2", "--capacity", "2", "--format", "xml"}, "flag --format"},
		{[]string{"--items", "1:3:2", "extra"}, "unexpected argument"},
	} {
		if _, err := runOneStep(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
	if help, err := runOneStep("--help"); !errors.Is(err, pflag.ErrHelp) || !strings.Contains(help, "--items") {
		t.Errorf("--help: %v\n%s", err, help)
	}
}
