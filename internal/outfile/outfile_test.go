package outfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	if err := Write(ctx, "out", Stdout, &b, func(w io.Writer) error { _, err := io.WriteString(w, "a\nb"); return err }); err != nil {
		t.Fatal(err)
	}
	// Standard output gets whole lines; the unterminated tail is written
	// at the end of a successful write.
	if b.String() != "a\nb" {
		t.Errorf("stdout %q", b.String())
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(ctx, "out", p, nil, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "x\n" {
		t.Errorf("file %q", got)
	}
	failed := errors.New("input broken")
	if err := Write(ctx, "out", filepath.Join(dir, "g"), nil, func(io.Writer) error { return failed }); err != failed {
		t.Errorf("write error %v, want it unchanged", err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("a failed write left %v", es)
	}
	err := Write(ctx, "out", filepath.Join(dir, "no", "such"), nil, func(io.Writer) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "flag --out: ") {
		t.Errorf("bad path: %v", err)
	}
}

// TestWriteRefusesInput: a path that is one of the inputs is refused with
// the flag's name before write runs, and the input keeps its content.
func TestWriteRefusesInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte("input\n"), 0o644)
	ran := false
	err := Write(context.Background(), "out", in, nil, func(w io.Writer) error { ran = true; return nil }, "other.jsonl", in)
	if err == nil || !strings.HasPrefix(err.Error(), "flag --out: ") || !strings.Contains(err.Error(), "would destroy") || ran {
		t.Errorf("err %v, write ran %v; want refused before writing", err, ran)
	}
	if b, _ := os.ReadFile(in); string(b) != "input\n" {
		t.Errorf("input now %q", b)
	}
}
