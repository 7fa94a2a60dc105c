package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTablesList names every suite with its source.
func TestTablesList(t *testing.T) {
	code, out, errs := runCLI("tables", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"tail-latency", "optimality-gap", "birth-death", "block-policies", "recompute", "seed 003", "seed 004"} {
		if !strings.Contains(out, s) {
			t.Errorf("tables --list lacks %q:\n%s", s, out)
		}
	}
}

// TestTablesShardMergeCLI: through the command line, three shard files
// merged print exactly the unsharded run, and a Slurm script names the
// shards and the merge.
func TestTablesShardMergeCLI(t *testing.T) {
	dir := t.TempDir()
	base := []string{"tables", "recompute", "--small", "--format", "latex"}
	code, whole, errs := runCLI(base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(whole, `\toprule`) || !strings.Contains(whole, `\bottomrule`) {
		t.Errorf("latex output lacks booktabs rules:\n%s", whole)
	}
	var files []string
	for _, sh := range []string{"1/3", "2/3", "3/3"} {
		f := filepath.Join(dir, "shard-"+sh[:1]+".json")
		if code, _, errs := runCLI("tables", "recompute", "--small", "--shard", sh, "--out", f); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", sh, code, errs)
		}
		files = append(files, f)
	}
	code, merged, errs := runCLI(append([]string{"merge", "--format", "latex"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	if merged != whole {
		t.Errorf("merged shards differ from the unsharded run:\n%s\n---\n%s", whole, merged)
	}
	if code, _, _ := runCLI("merge", files[0], files[1]); code == 0 {
		t.Error("merge of two of three shards succeeded")
	}
	code, script, errs := runCLI("tables", "recompute", "--small", "--slurm", "3")
	if code != 0 {
		t.Fatalf("slurm: exit %d: %s", code, errs)
	}
	for _, s := range []string{"#SBATCH --array=1-3", `--shard "$I/3"`, " merge ", "--small=true"} {
		if !strings.Contains(script, s) {
			t.Errorf("slurm script lacks %q:\n%s", s, script)
		}
	}
}

// TestPlotFormats: plot writes one figure per file in each format, chosen
// by extension.
func TestPlotFormats(t *testing.T) {
	dir := t.TempDir()
	magic := map[string]string{"svg": "<?xml", "png": "\x89PNG", "pdf": "%PDF"}
	for ext, m := range magic {
		code, out, errs := runCLI("plot", "recompute", "--small", "--dir", dir, "--ext", ext)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, errs)
		}
		paths := strings.Fields(out)
		if len(paths) == 0 {
			t.Fatalf("%s: no figure written", ext)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), m) {
				t.Errorf("%s does not start with %q", p, m)
			}
		}
	}
}

// TestSuiteBadArguments: unknown suites, formats and shards are one-line
// errors.
func TestSuiteBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"tables", "nosuch"},
		{"tables", "recompute", "--format", "html"},
		{"tables", "recompute", "--shard", "4/3"},
		{"tables", "recompute", "--out", "x.json"},
		{"tables", "tail-latency", "--dataset", "wildchat"},
		{"plot", "recompute", "--ext", "gif"},
		{"merge"},
	} {
		code, _, errs := runCLI(args...)
		if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestGenFit: gen birth-death --fit on a generated trace writes a twin
// trace and reports the fitted rates and KS distances.
func TestGenFit(t *testing.T) {
	code, tr, errs := runCLI("gen", "birth-death", "--duration", "600", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	p := filepath.Join(t.TempDir(), "bd.jsonl")
	if err := os.WriteFile(p, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	code, twin, report := runCLI("gen", "birth-death", "--fit", p, "--seed", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, report)
	}
	if twin == "" || !strings.Contains(report, "KS distance, inter-turn gap") || !strings.Contains(report, "λ_conv") {
		t.Errorf("twin %d bytes, report:\n%s", len(twin), report)
	}
	if code, _, _ := runCLI("gen", "birth-death", "--fit", p, "--mu", "0.1"); code == 0 {
		t.Error("--fit with --mu succeeded")
	}
}
