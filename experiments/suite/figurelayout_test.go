package suite

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
)

// TestEveryFigureLaysOut draws every figure of every suite (reduced grids,
// both datasets where a suite has two, the Mooncake traces when the shared
// data is there) to PNG and to SVG. plots.Figure.Save refuses a figure in
// which a string leaves the canvas or runs into another (a legend cut at
// the edge, "90k100k"), so a figure that would not print as it is fails
// here. The tail bounds are left out: they add no text of their own (their
// band's legend entry is drawn in TestSave's figures) and take minutes.
func TestEveryFigureLaysOut(t *testing.T) {
	if testing.Short() {
		t.Skip("draws every suite's figures (about a minute); not with -short")
	}
	mooncake := ""
	if d := shareddata.Dir(); d != "" {
		mooncake = filepath.Join(d, "mooncake")
	}
	for _, s := range All() {
		params := map[string]string{}
		for _, p := range s.Params {
			switch p.Name {
			case "dataset":
				params[p.Name] = "both"
			case "tail-bounds":
				params[p.Name] = "none"
			case "mooncake-dir":
				if mooncake == "" {
					t.Logf("%s: shared/data not found: its Mooncake figures are not drawn", s.Name)
				}
				params[p.Name] = mooncake
			}
		}
		for _, ext := range []string{"png", "svg"} {
			var out bytes.Buffer
			dir := t.TempDir()
			err := Plot(context.Background(), s, PlotOptions{Run: Options{Small: true, Workers: 2, Seed: 1, Params: params}, Dir: dir, Ext: ext}, &out)
			if err != nil {
				t.Errorf("%s (%s): %v", s.Name, ext, err)
				continue
			}
			if n := len(strings.Fields(out.String())); n == 0 {
				t.Errorf("%s (%s): no figure drawn", s.Name, ext)
			}
		}
	}
}
