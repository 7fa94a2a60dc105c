package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new content\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "new content\n" {
		t.Errorf("content %q", got)
	}
	assertOnly(t, dir, "out.txt")
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	boom := errors.New("boom")
	err := Write(context.Background(), path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	assertOnly(t, dir)
}

func TestCancelledWriteStopsAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	ctx, cancel := context.WithCancel(context.Background())
	lines := 0
	err := Write(ctx, path, func(w io.Writer) error {
		for i := 0; ; i++ {
			if i == 1000 {
				cancel() // as SIGINT would, mid-write
			}
			if _, err := fmt.Fprintf(w, "line %d\n", i); err != nil {
				return err
			}
			lines++
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if lines > 1000+(1<<16) {
		t.Errorf("wrote %d lines after cancellation; want a stop within one buffer", lines)
	}
	assertOnly(t, dir)
}

// TestPermissionsFollowUmask: with umask 027 the file is 0640, as a plain
// create would make it (os.CreateTemp alone gives 0600).
func TestPermissionsFollowUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if got := Umask(); got != 0o027 {
		t.Skipf("umask reads %#o, not the 027 just set (no /proc/self/status?)", got)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(context.Background(), path, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %#o, want 0640", fi.Mode().Perm())
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Errorf("directory holds %v, want %v", got, names)
	}
}
