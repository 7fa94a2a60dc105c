package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/prefixcache"
)

func TestSimulateBlockBadInput(t *testing.T) {
	good := writeFile(t, "good.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n")
	bad := writeFile(t, "bad.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n"+`{"t": 1, "conv": "a", "prompt": 0, "response": 5}`+"\n")
	blk := func(a ...string) []string { return append([]string{"simulate", "--level", "block"}, a...) }
	cases := []struct {
		args []string
		want string
	}{
		{blk("--trace", good, "--capacity", "100"), "multiple of the trace's block size, 16"},
		{blk("--trace", good, "--capacities", "32,40"), "40 tokens"},
		{blk("--trace", good, "--capacity", "32", "--capacities", "32"), "give one"},
		{blk("--trace", good), "--capacity"},
		{blk("--trace", good, "--capacity", "32", "--policies", "lru,nosuch"), `unknown block policy "nosuch"`},
		{blk("--trace", bad, "--capacity", "32"), "bad.jsonl:2: field \"prompt\""},
		{blk("--trace", filepath.Join(t.TempDir(), "missing.jsonl"), "--capacity", "32"), "missing.jsonl"},
		{blk("--trace", good, "--capacity", "32", "--block-size", "0"), "--block-size"},
		{blk("--trace", good, "--capacity", "32", "--baseline", "tlru", "--policies", "lru"), "--baseline"},
		{blk("--trace", good, "--capacity", "32", "--policy-opt", "wa-window=-1", "--policies", "workload-aware"), "wa-window"},
		{blk("--trace", good, "--capacity", "32", "--xi-ms", "100", "--xi-tokens", "3"), "give one threshold"},
		{blk("--trace", good, "--capacity", "32", "--forced"), "turn level only"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line containing %q", c.args, code, out, errs, c.want)
		}
	}
}

// Runs are byte-identical in every format; the sweep writes its three
// figures.
func TestSimulateBlockDeterminismAndPlots(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, `{"t":%d,"conv":"c%d","prompt":%d,"response":%d,"category":"%s"}`+"\n",
			i, rng.IntN(60), 1+rng.IntN(300), rng.IntN(200), []string{"text", "file"}[rng.IntN(2)])
	}
	tr := writeFile(t, "w.jsonl", sb.String())
	args := []string{"simulate", "--level", "block", "--trace", tr, "--capacities", "1024,8192", "--policies", strings.Join(prefixcache.Names(), ",")}
	for _, f := range []string{"json", "csv", "table", "markdown"} {
		_, a, _ := runCLI(append(args, "--format", f)...)
		_, b, _ := runCLI(append(args, "--format", f)...)
		if a != b || a == "" {
			t.Errorf("format %s: two runs differ or are empty", f)
		}
	}
	plot := filepath.Join(dir, "sweep.svg")
	if code, _, errs := runCLI(append(args, "--plot", plot)...); code != 0 {
		t.Fatal(errs)
	}
	for _, p := range []string{"sweep.svg", "sweep-ttft.svg", "sweep-tel.svg"} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
