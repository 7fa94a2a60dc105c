package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestMDPSolve: the JSON has the optimum first, every policy at or above
// it, and the one-seat instance worked by hand (see mdp/exact's Example):
// 0.25·(2 + 0.25·3) + 0.75·0.25·e^{−0.25}·2 tokens, keeping 2 tokens.
func TestMDPSolve(t *testing.T) {
	code, out, errs := runCLI("mdp", "solve", "--seats", "1:3:0:0", "--mu", "1", "--step", "0.25", "--horizon", "2",
		"--max-turns", "0", "--capacity", "2", "--xi-tokens", "0", "--prompt", "fixed:1", "--response", "fixed:0", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Policies []struct {
			Name     string  `json:"name"`
			Value    float64 `json:"expected_tel_tokens"`
			Gap      float64 `json:"gap_tokens"`
			Decision []int64 `json:"first_decision_tokens"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := 0.25*(2+0.25*3) + 0.75*0.25*math.Exp(-0.25)*2
	if len(doc.Policies) != 5 || doc.Policies[0].Name != "optimum" || math.Abs(doc.Policies[0].Value-want) > 1e-12 || doc.Policies[0].Decision[0] != 2 {
		t.Fatalf("got %+v, want the optimum %v keeping 2", doc.Policies, want)
	}
	for _, p := range doc.Policies {
		if p.Gap < -1e-12 {
			t.Errorf("%s below the optimum by %v", p.Name, -p.Gap)
		}
	}
}

// TestMDPSimulate: a fixed seed gives byte-identical output, with
// to-belady added as the reference.
func TestMDPSimulate(t *testing.T) {
	args := []string{"mdp", "simulate", "--reps", "3", "--duration", "60", "--lambda-conv", "1", "--seed", "4", "--policies", "lru,etlru-bayes", "--format", "csv"}
	code, a, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, b, _ := runCLI(args...)
	if a != b || !strings.Contains(a, "to-belady") || !strings.Contains(a, "etlru-bayes") {
		t.Fatalf("output differs or lacks policies:\n%s", a)
	}
}

func TestMDPBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"mdp", "solve", "--seats", "1:2:3"}, "--seats"},
		{[]string{"mdp", "solve", "--world", "oracle"}, "--world"},
		{[]string{"mdp", "solve", "--prompt", "pmf:1:0.3"}, "--prompt"},
		{[]string{"mdp", "solve", "--step", "5"}, "step"},
		{[]string{"mdp", "solve", "--capacity", "5", "--block-size", "2"}, "capacity"},
		{[]string{"mdp", "solve", "--policies", "lru,belady"}, "--policies"},
		{[]string{"mdp", "solve", "--discount", "0"}, "--discount"},
		{[]string{"mdp", "simulate", "--reps", "1"}, "--reps"},
		{[]string{"mdp", "simulate", "--policies", "etlru-oracle"}, "--policies"},
		{[]string{"mdp", "simulate", "--capacity", "17"}, "--capacity"},
		{[]string{"mdp", "simulate", "--policy-opt", "novalue"}, "--policy-opt"},
		{[]string{"mdp", "nosuch"}, "unknown mdp command"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one error line containing %q", c.args, code, out, errs, c.want)
		}
	}
}
