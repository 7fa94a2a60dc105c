package main

import (
	"encoding/json"
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
		{blk("--trace", good, "--capacity", "32", "--no-ideal", "--policies", "lru,tlru"), "flag --no-ideal: policy tlru"},
		{blk("--trace", good, "--capacities", "32,64", "--no-ideal", "--policies", "lru", "--plot", filepath.Join(t.TempDir(), "p.svg")), "flags --no-ideal and --plot"},
		{blk("--trace", good, "--capacity", "32", "--no-ideal", "--policies", "lru", "--block-sizes", "16"), "flags --no-ideal and --block-sizes"},
		{[]string{"simulate", "--trace", good, "--capacity", "32", "--no-ideal"}, "flag --no-ideal: block level only"},
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

// TestSimulateLibCacheSimFormats replays the objects A B A C B A, in
// libCacheSim's csv and oracleGeneral formats, through LRU of 2 blocks:
// by hand only the second A hits (C evicts B, B evicts A, A evicts C).
func TestSimulateLibCacheSimFormats(t *testing.T) {
	var bin []byte
	csv := "1,10,5\n2,20,5\n3,10,5\n4,30,5\n5,20,5\n6,10,5\n"
	for i, id := range []uint64{10, 20, 10, 30, 20, 10} {
		rec := make([]byte, 24)
		rec[0] = byte(i)
		for k := 0; k < 8; k++ {
			rec[4+k] = byte(id >> (8 * k))
			rec[16+k] = 0xff // next access −1
		}
		rec[12] = 5
		bin = append(bin, rec...)
	}
	cases := [][]string{
		{"--trace", writeFile(t, "t.oracleGeneral", string(bin)), "--trace-format", "oracle-general"},
		{"--trace", writeFile(t, "t.csv", csv), "--trace-format", "libcachesim-csv", "--trace-type-params", "time-col=1,obj-id-col=2,obj-size-col=3,obj-id-is-num=1"},
	}
	for _, c := range cases {
		args := append([]string{"simulate", "--level", "block", "--capacity", "2", "--policies", "lru", "--format", "json"}, c...)
		code, out, errs := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, errs)
		}
		var doc struct {
			Policies []struct {
				Hit  int64 `json:"hit_blocks"`
				Refs int64 `json:"ref_blocks"`
			} `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Policies) != 1 {
			t.Fatalf("%v: %v: %s", c, err, out)
		}
		if p := doc.Policies[0]; p.Hit != 1 || p.Refs != 6 {
			t.Errorf("%v: %d of %d blocks hit, want 1 of 6", c, p.Hit, p.Refs)
		}
	}
	if code, _, errs := runCLI("simulate", "--trace-type-params", "obj-id-col=1"); code == 0 || !strings.Contains(errs, "--trace-type-params") {
		t.Errorf("--trace-type-params at turn level: exit %d, %q", code, errs)
	}
}
