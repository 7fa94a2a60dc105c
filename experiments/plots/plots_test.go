package plots

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSave draws one figure in each format and checks the file's magic
// bytes; a failed save (a missing directory) leaves nothing behind.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	f := Figure{Title: "t", XLabel: "x (tokens)", YLabel: "y (ms)",
		Series: []Series{{Name: "a", X: []float64{0, 1, 2}, Y: []float64{1, 3, 2}}}}
	for ext, magic := range map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"} {
		path := filepath.Join(dir, "f"+ext)
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s: %v, starts %q", ext, err, b[:min(len(b), 8)])
		}
	}
	if err := f.Save(filepath.Join(dir, "f.gif")); err == nil {
		t.Error(".gif accepted")
	}
	if err := f.Save(filepath.Join(dir, "missing", "f.svg")); err == nil {
		t.Error("save into a missing directory succeeded")
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 3 {
		t.Errorf("directory holds %d entries, want the 3 figures", len(es))
	}
}
