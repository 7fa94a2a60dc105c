package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// genTrace writes a birth–death trace of turns turns to a file in dir.
func genTrace(t *testing.T, dir string, turns int) string {
	t.Helper()
	path := filepath.Join(dir, "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errb bytes.Buffer
	if code := run([]string{"gen", "birth-death", "--turns", fmt.Sprint(turns), "--duration", "1000000", "--seed", "3"}, f, &errb); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errb.String())
	}
	return path
}

// TestProgressNotInFiles: solve --solver flow with standard error
// redirected to a file writes no carriage return (nor any progress) there,
// while --progress=true, the override, writes its progress lines even to
// the file — so the check could fail.
func TestProgressNotInFiles(t *testing.T) {
	dir := t.TempDir()
	tr := genTrace(t, dir, 5000)
	for _, c := range []struct {
		flag string
		want bool // carriage returns expected
	}{{"", false}, {"--progress=false", false}, {"--progress=true", true}, {"--progress", true}} {
		args := []string{"solve", "--trace", tr, "--solver", "flow", "--capacity", "4096", "--xi-tokens", "300"}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		_, b := runStderrFile(t, dir, args)
		if got := bytes.Contains(b, []byte("\r")); got != c.want {
			t.Errorf("flag %q: carriage returns in the redirected stderr: %v, want %v (%q)", c.flag, got, c.want, b)
		}
		if c.want && !bytes.Contains(b, []byte("windows: 1/")) {
			t.Errorf("flag %q: no windows count in %q", c.flag, b)
		}
	}
	var errb bytes.Buffer
	if code := run([]string{"solve", "--progress=maybe"}, &bytes.Buffer{}, &errb); code != 2 || !strings.Contains(errb.String(), "--progress") {
		t.Errorf("--progress=maybe: exit %d, %q; want 2 and a message naming the flag", code, errb.String())
	}
}

// progressLine is a progress line with a count out of a total, a
// percentage and the time left.
var progressLine = regexp.MustCompile(`\d+/\d+ \(\d+%\).* left`)

// TestProgressInTmux: in a 100-column tmux pane, solve --solver flow on a
// 10^6-turn trace shows a line with done/total, a percentage and the time
// left within 10 s of starting, on one line no wider than the pane.
func TestProgressInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (scripts/test-all installs it)")
	}
	if testing.Short() {
		t.Skip("-short: the 10^6-turn solve is long")
	}
	dir := t.TempDir()
	tr := genTrace(t, dir, 1_000_000)
	sock := filepath.Join(dir, "tmux.sock")
	cmd := fmt.Sprintf("TAILBOUND_AS_MAIN=1 %q solve --trace %q --solver flow --capacity 131072 --xi-tokens 300 >/dev/null; sleep 600", os.Args[0], tr)
	if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-x", "100", "-y", "10", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })
	start := time.Now()
	var pane string
	for time.Since(start) < 10*time.Second {
		time.Sleep(250 * time.Millisecond)
		out, err := exec.Command(tmux, "-S", sock, "capture-pane", "-p").Output()
		if err != nil {
			t.Fatalf("tmux capture-pane: %v", err)
		}
		pane = string(out)
		for _, line := range strings.Split(pane, "\n") {
			if progressLine.MatchString(line) {
				if n := len([]rune(line)); n > 99 {
					t.Errorf("progress line of %d columns in a 100-column pane: %q", n, line)
				}
				t.Logf("after %v: %s", time.Since(start).Round(time.Millisecond), line)
				return
			}
		}
	}
	t.Fatalf("no progress line with done/total, percent and time left within 10 s; the pane:\n%s", pane)
}
