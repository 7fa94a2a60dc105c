package suite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsFiguresCurrent: the recompute suite's figures in docs/figures
// (drawn by scripts/figures, in well under a second) are the ones the
// program draws now, byte for byte, at the grid the README lists for them
// (full, or --small), so a change to the plots or the model that is not
// carried into the docs fails here. The other suites' figures take
// minutes; scripts/figures redraws them.
func TestDocsFiguresCurrent(t *testing.T) {
	docs := filepath.Join("..", "..", "docs", "figures")
	readme, err := os.ReadFile(filepath.Join(docs, "README.md"))
	if err != nil {
		t.Skipf("no docs/figures/README.md: %v", err)
	}
	small := false
	found := false
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.Contains(l, "`tailbound plot recompute") {
			found, small = true, strings.Contains(l, "--small")
		}
	}
	if !found {
		t.Fatal("docs/figures/README.md lists no recompute figure")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Plot(context.Background(), Recompute(), PlotOptions{Run: Options{Small: small, Workers: 1, Seed: 1}, Dir: dir, Ext: "svg"}, &out); err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(out.String())
	if len(paths) == 0 {
		t.Fatal("no figures drawn")
	}
	for _, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(docs, filepath.Base(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/figures/%s is stale or missing (%v): run scripts/figures", filepath.Base(p), err)
		}
	}
}
