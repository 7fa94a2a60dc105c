package main

import (
	"strings"
	"testing"
)

func TestGapBlockFlags(t *testing.T) {
	tr := writeFile(t, "m.jsonl", `{"timestamp": 0, "input_length": 512, "output_length": 1, "hash_ids": [1]}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--forced"}, "turn level only"},
		{[]string{"--xis", "1,2"}, "one threshold"},
		{[]string{"--level", "cache"}, "want turn or block"},
	} {
		args := append([]string{"gap", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacities", "512"}, c.args...)
		code, _, errs := runCLI(args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", c.args, code, errs, c.want)
		}
	}
	code, _, errs := runCLI("gap", "--trace", tr, "--capacities", "512", "--xis", "1", "--ip-solver", "cbc")
	if code == 0 || !strings.Contains(errs, "block level only") {
		t.Errorf("turn level with --ip-solver: exit %d, %q", code, errs)
	}
}
