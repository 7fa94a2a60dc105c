package windows_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
)

// shards runs c as n shards and returns their result files' paths.
func shards(t *testing.T, c windows.Command, n int) []string {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		sh := c
		sh.Shard, sh.Out = fmt.Sprintf("%d/%d", i, n), filepath.Join(t.TempDir(), "shard.json")
		if _, _, err := sh.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		files = append(files, sh.Out)
	}
	return files
}

// runMD runs c in one process and returns its document and its output
// as Markdown (titles included).
func runMD(t *testing.T, c windows.Command) (any, string) {
	t.Helper()
	doc, tables, err := c.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Emit(&b, "markdown", doc, tables...); err != nil {
		t.Fatal(err)
	}
	return doc, b.String()
}

// mergedMD merges result files with merge's checks and renders them as
// runMD does.
func mergedMD(t *testing.T, files []string) string {
	t.Helper()
	f, err := suite.ReadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := windows.Render(&b, f, "markdown"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSLOUpperShards: --objective slo under --slo-upper lp and greedy as
// three shards merges to exactly the one-process run's output, which
// names the mode and has the default's lower bound; the default's shard
// files carry no setting of the mode (files written before the modes
// merge with them), the others carry slo_upper or slo_lns_windows, and
// merge refuses shards of different modes or budgets, naming the key.
func TestSLOUpperShards(t *testing.T) {
	path, _ := writeTrace(t, 600, 4)
	c := base(path)
	s := int64(300)
	c.SLO, c.LowerOverlap = &s, 0
	def, _ := runMD(t, c)
	defFiles := shards(t, c, 3)
	for _, name := range defFiles {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("slo_upper")) || bytes.Contains(b, []byte("slo_lns_windows")) {
			t.Fatalf("the default's shard file names the upper ends' mode:\n%s", b)
		}
	}
	files := map[string][]string{"full": defFiles}
	for _, m := range []window.SLOUpper{window.UpperLP, window.UpperGreedy} {
		o := c
		o.Upper = m
		doc, want := runMD(t, o)
		b := doc.(*windows.SLOReport).SLOBounds
		if d := def.(*windows.SLOReport).SLOBounds; b.Lower != d.Lower || b.UpperMode != m.String() {
			t.Fatalf("%v: lower %d (default's %d), mode %q", m, b.Lower, d.Lower, b.UpperMode)
		}
		if !strings.Contains(want, "upper ends "+m.String()) {
			t.Fatalf("%v: the output does not name the mode:\n%s", m, want)
		}
		files[m.String()] = shards(t, o, 3)
		if got := mergedMD(t, files[m.String()]); got != want {
			t.Fatalf("%v: merged:\n%s\none process:\n%s", m, got, want)
		}
	}
	budget := c
	budget.LNSWindows = 50
	files["budget"] = shards(t, budget, 3)
	for _, mix := range []struct {
		a, b, key string
	}{
		{"full", "lp", "slo_upper"},
		{"lp", "greedy", "slo_upper"},
		{"full", "budget", "slo_lns_windows"},
	} {
		_, err := suite.ReadFiles([]string{files[mix.a][0], files[mix.a][1], files[mix.b][2]})
		if err == nil || !strings.Contains(err.Error(), mix.key) {
			t.Errorf("merge of %s with %s: %v", mix.a, mix.b, err)
		}
	}
}

// TestGridUpperShards: --objective pQ on a grid of thresholds under
// --slo-upper greedy as two shards merges to the one-process run's
// output; its interval contains the optimum found by enumeration; a
// shard of the default mode is refused, naming slo_upper.
func TestGridUpperShards(t *testing.T) {
	path, tr := writeTrace(t, 8, 6)
	p := instance.Params{Capacity: 64, BlockSize: 16} // 4 blocks, few enough schedules to enumerate
	c := base(path)
	c.Percentile, c.LowerOverlap, c.Windows, c.SeamTurns, c.Capacity = p99(), 0, 3, 2, p.Capacity
	want := exhaustive.MinPercentile(tr, p, c.Percentile.Rank(len(tr.Turns)))
	c.Taus = []int64{want / 2, want - 1, want, want + 1, 2 * want}
	g := c
	g.Upper = window.UpperGreedy
	doc, one := runMD(t, g)
	b := doc.(*window.GridBounds)
	if b.Lower > want || b.Upper < want || b.UpperMode != "greedy" {
		t.Fatalf("grid %v, greedy: [%d, %d] (mode %q) misses %d", c.Taus, b.Lower, b.Upper, b.UpperMode, want)
	}
	gf := shards(t, g, 2)
	if got := mergedMD(t, gf); got != one {
		t.Fatalf("merged:\n%s\none process:\n%s", got, one)
	}
	df := shards(t, c, 2)
	if _, err := suite.ReadFiles([]string{gf[0], df[1]}); err == nil || !strings.Contains(err.Error(), "slo_upper") {
		t.Fatalf("merge of greedy with full: %v", err)
	}
}

// TestSLOUpperSlurm: the Slurm script of a run under --slo-upper passes
// the flag on to every shard.
func TestSLOUpperSlurm(t *testing.T) {
	path, _ := writeTrace(t, 60, 4)
	c := base(path)
	s := int64(300)
	c.SLO, c.Upper, c.Slurm = &s, window.UpperLP, 2
	c.Given = []string{"--trace=" + path, "--objective=slo", "--slo-tokens=300", "--windows=5", "--slo-upper=lp", "--slurm=2"}
	var b bytes.Buffer
	if _, _, err := c.Run(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--slo-upper=lp") || strings.Contains(b.String(), "--slurm") {
		t.Fatalf("Slurm script:\n%s", b.String())
	}
}
