package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecomputeBadInput(t *testing.T) {
	badCSV := writeFile(t, "m.csv", "tier,r,ttft_s\nnvme,0.2,0.5\nnvme,0.4,oops\n")
	csv := writeFile(t, "ok.csv", "tier,r,ttft_s\nnvme,0.2,0.5\nnvme,0.5,0.3\nnvme,0.9,0.6\n")
	badJSON := writeFile(t, "m.json", "{\n\"layers\": 2,\n\"kv_heads\": -1, \"head_dim\": 4, \"bytes_per_value\": 2}")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"recompute", "search", "--csv", badCSV}, `m.csv:3: field "ttft_s"`},
		{[]string{"recompute", "profile", "--csv", badCSV}, `m.csv:3: field "ttft_s"`},
		{[]string{"recompute", "search", "--csv", filepath.Join(t.TempDir(), "none.csv")}, "none.csv"},
		{[]string{"recompute", "search"}, "exactly one of --csv FILE and --live"},
		{[]string{"recompute", "search", "--csv", csv, "--live"}, "exactly one"},
		{[]string{"recompute", "search", "--csv", csv, "--variant", "golden"}, `unknown search variant "golden"`},
		{[]string{"recompute", "search", "--csv", csv, "--r-min", "0.6", "--r-max", "0.5"}, "--r-min/--r-max"},
		{[]string{"recompute", "search", "--csv", csv, "--r-min", "0.95"}, "nothing of [r_min, r_max]"},
		{[]string{"recompute", "roofline", "--model", "gpt-9"}, `flag --model: unknown model "gpt-9"`},
		{[]string{"recompute", "roofline", "--model-json", badJSON}, `field "kv_heads"`},
		{[]string{"recompute", "roofline", "--tiers", "nvme,floppy"}, `unknown storage tier "floppy"`},
		{[]string{"recompute", "roofline", "--tiers", "nvme", "--bandwidth", "hdd=0.1"}, "not selected"},
		{[]string{"recompute", "roofline", "--tokens", "0"}, "--tokens"},
		{[]string{"recompute", "roofline", "--mfu", "2"}, "--mfu"},
		{[]string{"recompute", "cake", "--chunk", "0"}, "--chunk"},
		{[]string{"recompute", "cake", "--format", "xml"}, "--format"},
		{[]string{"recompute", "measure", "--tiers", "tape"}, `unknown measured tier "tape"`},
		{[]string{"recompute", "measure", "--reps", "0"}, "--reps"},
		{[]string{"recompute", "warp"}, "unknown sub-command"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a non-zero exit and one line containing %q", c.args, code, out, errs, c.want)
		}
	}
}

// A small live measurement runs end to end, saves its runs in the CSV
// format search reads, and deletes its KV file. At 64 tokens and one
// repetition the timings could not resolve either per-token cost in 3 of
// 30 runs (measure then refuses, rightly); 512 tokens and three
// repetitions (about 0.4 s) failed in none of 60.
func TestRecomputeMeasureSmoke(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "runs.csv")
	code, out, errs := runCLI("recompute", "measure", "--tokens", "512", "--layers", "2", "--reps", "3", "--profile-steps", "3",
		"--grid", "2", "--eps", "0.3", "--tiers", "page-cache", "--dir", dir, "--save", save, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Results []struct {
			Analyses []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 || len(doc.Results[0].Analyses) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	if code, _, errs := runCLI("recompute", "search", "--csv", save, "--r0", "0.5"); code != 0 {
		t.Errorf("search on the saved runs: %s", errs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "tailbound-kv-*"))
	if len(left) != 0 {
		t.Errorf("KV files left behind: %v", left)
	}
}
