package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// runPrinted runs a counterexample's command line as printed by check:
// either "printf '%s\n' 'LINE' … | tailbound CMD --trace - FLAGS" (the
// lines become a trace file) or "tailbound CMD FLAGS". It returns the JSON
// output.
func runPrinted(t *testing.T, command string) map[string]any {
	t.Helper()
	var args []string
	if head, tail, ok := strings.Cut(command, " | tailbound "); ok {
		lines := regexp.MustCompile(`'(\{[^']*\})'`).FindAllStringSubmatch(head, -1)
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l[1] + "\n")
		}
		path := writeFile(t, "ce.jsonl", b.String())
		args = strings.Fields(strings.Replace(tail, "--trace -", "--trace "+path, 1))
	} else {
		args = strings.Fields(strings.TrimPrefix(command, "tailbound "))
	}
	code, out, errs := runCLI(append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", command, code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCounterexamplesRunnable: the command line printed with a
// counterexample reproduces it — the paper-as-written program's optimum
// and the belief MDP's ET-LRU value come out as the detail says.
func TestCounterexamplesRunnable(t *testing.T) {
	code, out, errs := runCLI("check", "formulation-paper-as-written", "theorem2-bayes", "--instances", "25", "--seed", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Checks []struct {
			Name           string
			Counterexample *struct {
				Detail  string
				Command string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Checks {
		if c.Name != "formulation-paper-as-written" && c.Name != "theorem2-bayes" {
			continue // the family prefix also selects theorem2-bayes-equal-rates
		}
		ce := c.Counterexample
		if ce == nil || ce.Command == "" {
			t.Fatalf("%s: no counterexample with a command at 25 instances (%+v)", c.Name, ce)
		}
		res := runPrinted(t, ce.Command)
		switch c.Name {
		case "formulation-paper-as-written":
			// detail: "paper-as-written IP optimum X tokens, exhaustive optimum Y tokens (…)"
			var ip, ex float64
			if _, err := fmt.Sscanf(ce.Detail, "paper-as-written IP optimum %g tokens, exhaustive optimum %g", &ip, &ex); err != nil {
				t.Fatalf("detail %q: %v", ce.Detail, err)
			}
			if res["tel_opt_tokens"] != ip || res["flow_tel_tokens"] != ex {
				t.Errorf("%s: solve gives optimum %v and flow %v; the counterexample says %v and %v", ce.Command, res["tel_opt_tokens"], res["flow_tel_tokens"], ip, ex)
			}
		case "theorem2-bayes":
			// detail: "ET-LRU (bayes belief) expects X tokens of TEL (…), the optimum Y (…)…",
			// X and Y printed to 6 significant digits.
			var et, opt float64
			if _, err := fmt.Sscanf(ce.Detail, "ET-LRU (bayes belief) expects %g tokens", &et); err != nil {
				t.Fatalf("detail %q: %v", ce.Detail, err)
			}
			_, rest, _ := strings.Cut(ce.Detail, "the optimum ")
			if _, err := fmt.Sscanf(rest, "%g", &opt); err != nil {
				t.Fatalf("detail %q: %v", ce.Detail, err)
			}
			got := map[string]float64{}
			for _, p := range res["policies"].([]any) {
				m := p.(map[string]any)
				got[m["name"].(string)] = m["expected_tel_tokens"].(float64)
			}
			if fmt.Sprintf("%.6g", got["etlru-bayes"]) != fmt.Sprintf("%.6g", et) || fmt.Sprintf("%.6g", got["optimum"]) != fmt.Sprintf("%.6g", opt) {
				t.Errorf("%s: mdp solve gives ET-LRU %v, optimum %v; the counterexample says %v, %v", ce.Command, got["etlru-bayes"], got["optimum"], et, opt)
			}
		}
	}
}
