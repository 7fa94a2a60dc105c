package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tailbound/tailbound/internal/cleanup"
)

func writeString(ctx context.Context, path, s string) error {
	return Write(ctx, path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

// TestSymlinksAreFollowed: an output through a symbolic link (also a
// chain, a relative one and a dangling one) writes the file at the end of
// the chain and leaves the link a link.
func TestSymlinksAreFollowed(t *testing.T) {
	tests := []struct {
		name   string
		links  [][2]string // link name → target, created in order
		out    string      // path written
		target string      // file that must hold the content
	}{
		{"one link", [][2]string{{"l", "t.txt"}}, "l", "t.txt"},
		{"chain", [][2]string{{"l2", "t.txt"}, {"l1", "l2"}}, "l1", "t.txt"},
		{"into a subdirectory", [][2]string{{"l", "sub/t.txt"}}, "l", "sub/t.txt"},
		{"dangling: creates the target", [][2]string{{"l", "new.txt"}}, "l", "new.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			if !strings.HasPrefix(tc.name, "dangling") {
				os.WriteFile(filepath.Join(dir, tc.target), []byte("old"), 0o644)
			}
			for _, l := range tc.links {
				if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
					t.Fatal(err)
				}
			}
			if err := writeString(context.Background(), filepath.Join(dir, tc.out), "new\n"); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, tc.target)); string(b) != "new\n" {
				t.Errorf("target holds %q, want the new content", b)
			}
			for _, l := range tc.links {
				if fi, err := os.Lstat(filepath.Join(dir, l[0])); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s is no longer a symbolic link (%v)", l[0], err)
				}
			}
		})
	}
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := writeString(context.Background(), loop, "x"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v, want an error about symbolic links", err)
	}
}

// TestDevicesAndPipes: /dev/null and a named pipe are written through
// (they stay what they are, the pipe's reader gets the content), /dev/full
// returns its write error, a directory is refused.
func TestDevicesAndPipes(t *testing.T) {
	if err := writeString(context.Background(), "/dev/null", "x\n"); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", fi, err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := writeString(context.Background(), "/dev/full", "x\n")
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("/dev/full: %v, want no space left on device", err)
		}
		if fi, _ := os.Stat("/dev/full"); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/full replaced: %v", fi.Mode())
		}
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := writeString(context.Background(), fifo, "through the pipe\n"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v", fi.Mode())
	}
	assertOnly(t, dir, "fifo")

	if err := writeString(context.Background(), dir, "x"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v, want refused", err)
	}
}

// TestCancelBeforeCommitKeepsDestination: a context cancelled after the
// content is written but before Commit (a signal at the end of a run)
// leaves the old destination and no temporary file.
func TestCancelBeforeCommitKeepsDestination(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	a, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "new") // buffered: no error yet
	cancel()
	if err := a.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit after cancel: %v, want context.Canceled", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("destination %q, want the old content", b)
	}
	assertOnly(t, dir, "out.txt")
}

// TestCleanupRemovesTemporary: the clean-up set in the context removes
// the temporary file of a write that was never finished (a process ended
// by the signal's grace period); Commit and Abort unregister it.
func TestCleanupRemovesTemporary(t *testing.T) {
	dir := t.TempDir()
	set := cleanup.New()
	ctx := cleanup.With(context.Background(), set)
	done, err := Create(ctx, filepath.Join(dir, "done.txt"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(done, "x")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, filepath.Join(dir, "stuck.txt")); err != nil {
		t.Fatal(err)
	}
	if n := set.Len(); n != 1 {
		t.Errorf("%d clean-up actions registered, want 1 (the unfinished file)", n)
	}
	set.Run()
	assertOnly(t, dir, "done.txt")
}

// TestRefuseInput: an output that is an input — by the same name, another
// spelling, a symbolic link or a hard link — is refused; another file, a
// new file, stdin and /dev/null are not.
func TestRefuseInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(in, []byte("{}\n"), 0o644)
	os.WriteFile(other, []byte("{}\n"), 0o644)
	os.Symlink("in.jsonl", filepath.Join(dir, "link"))
	os.Link(in, filepath.Join(dir, "hard"))
	tests := []struct {
		out, in string
		refuse  bool
	}{
		{in, in, true},
		{filepath.Join(dir, "sub", "..", "in.jsonl"), in, true},
		{filepath.Join(dir, "link"), in, true},
		{in, filepath.Join(dir, "link"), true},
		{filepath.Join(dir, "hard"), in, true},
		{other, in, false},
		{filepath.Join(dir, "new.jsonl"), in, false},
		{in, "-", false},
		{"/dev/null", "/dev/null", false},
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, tc := range tests {
		err := RefuseInput(tc.out, "", tc.in)
		if (err != nil) != tc.refuse {
			t.Errorf("RefuseInput(%s, %s) = %v, want refused %v", tc.out, tc.in, err, tc.refuse)
		}
		if err != nil && !strings.Contains(err.Error(), "would destroy") {
			t.Errorf("message %q does not say why", err)
		}
	}
}

// TestProcMagicLink: a path the kernel resolves through /proc's magic
// links to a pipe (/dev/stdout when standard output is a pipe; here
// /proc/self/fd/N of a pipe's write end) is written through to the pipe.
func TestProcMagicLink(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	err = writeString(context.Background(), path, "to the pipe\n")
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "to the pipe\n" {
		t.Errorf("the pipe got %q", s)
	}
}

// TestDashRefused: "-" is not made a file named "-" (issue 26:
// --emit-schedule - created one; --deaths -, --schedule - and --plot - did
// the same).
func TestDashRefused(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if err := writeString(context.Background(), "-", "x"); err == nil || !strings.Contains(err.Error(), "not a file name here") {
		t.Errorf("err %v, want refused", err)
	}
	assertOnly(t, dir)
}
