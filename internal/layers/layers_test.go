// Package layers holds the architecture test: no package of tailbound, test
// files included, imports a package of a higher layer.
package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tailbound/tailbound/"

// layer of each top-level folder, lowest first (../shared/SPEC.md §1 and the
// project's house rules): models → belady, mdp, lp → experiments,
// proofs-check → cmd. internal holds helpers any layer may use, so it sits
// at the bottom and may import nothing above it; scripts are programs, at
// the top.
var layer = map[string]int{
	"internal":     0,
	"models":       0,
	"belady":       1,
	"mdp":          1,
	"lp":           1,
	"experiments":  2,
	"proofs-check": 2,
	"cmd":          3,
	"scripts":      3,
}

// TestNoUpwardImports parses every Go file of the module (tests included)
// and fails for each import of a package whose top-level folder has a
// higher layer than the importing file's.
func TestNoUpwardImports(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		from := topFolder(filepath.ToSlash(rel))
		lf, ok := layer[from]
		if !ok {
			t.Errorf("%s: top-level folder %q has no layer; add it to the table in this test", rel, from)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			to := topFolder(strings.TrimPrefix(p, module))
			if lt, ok := layer[to]; ok && lt > lf {
				t.Errorf("%s (layer %d, %s) imports %s (layer %d, %s): an import pointing up a layer", rel, lf, from, p, lt, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("parsed only %d Go files under %s; the walk is not seeing the module", files, root)
	}
}

func topFolder(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}
