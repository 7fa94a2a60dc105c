//go:build coin

package coin

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// captureFD runs f with file descriptor fd redirected into a pipe and
// returns what was written to it, C stdio buffers included.
func captureFD(t *testing.T, fd int, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(w.Fd()), fd); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	f()
	flushCStdio()
	if err := syscall.Dup2(saved, fd); err != nil {
		t.Fatal(err)
	}
	syscall.Close(saved)
	w.Close()
	out := <-got
	r.Close()
	return out
}

// TestQuiet checks that no solve writes to standard output or standard
// error, whatever its outcome, and that the process's SIGINT handler (the
// Go runtime's) is left in place.
func TestQuiet(t *testing.T) {
	var probs []*lp.Problem
	for _, c := range lpCases() {
		probs = append(probs, c.p)
	}
	for _, c := range mipCases() {
		probs = append(probs, c.p)
	}
	handler := sigintHandler()
	if handler == 0 {
		t.Fatal("no SIGINT handler installed before the solves")
	}
	solveAll := func() {
		for _, p := range probs {
			for _, b := range []lp.Backend{CLP{}, CBC{}} {
				for _, relax := range []bool{false, true} {
					b.Solve(context.Background(), p, lp.Options{Relax: relax})
				}
			}
		}
		// A time-limited MIP and LP.
		CBC{}.Solve(context.Background(), marketSplit(3, 24, 1), lp.Options{TimeLimit: 100 * time.Millisecond})
		CLP{}.Solve(context.Background(), intervalLP(5000, 20, 1), lp.Options{TimeLimit: time.Nanosecond})
	}
	var stderr string
	stdout := captureFD(t, 1, func() {
		stderr = captureFD(t, 2, solveAll)
	})
	if stdout != "" {
		t.Errorf("the libraries wrote to stdout:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("the libraries wrote to stderr:\n%s", stderr)
	}
	if got := sigintHandler(); got != handler {
		t.Errorf("SIGINT handler changed from %#x to %#x", handler, got)
	}
}
