package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestInterrupt runs the program itself (this test binary, re-entered as
// tailbound through TAILBOUND_AS_MAIN) and sends SIGINT while gen writes
// a long trace and its deaths file: stdout must hold only whole lines,
// the exit status is 130, and neither the deaths file nor a temporary one
// is left. Without --deaths to a bad path, nothing reaches stdout at all.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "gen", "birth-death", "--duration", "1000000", "--deaths", filepath.Join(dir, "d.jsonl"))
	cmd.Env = append(os.Environ(), "TAILBOUND_AS_MAIN=1")
	outPath := filepath.Join(t.TempDir(), "out.jsonl")
	outFile, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd.Stdout = outFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for { // wait until it is well into the trace
		if fi, err := outFile.Stat(); err == nil && fi.Size() > 1<<16 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130", err)
	}
	b, _ := os.ReadFile(outPath)
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		t.Errorf("stdout ends mid-line: …%q", s[len(s)-40:])
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("left behind: %v", es)
	}

	bad := exec.Command(os.Args[0], "gen", "birth-death", "--duration", "60", "--deaths", "/nonexistent-dir/d.jsonl")
	bad.Env = cmd.Env
	got, _ := bad.Output()
	if len(got) != 0 {
		t.Errorf("a bad --deaths path still wrote %d bytes of trace to stdout", len(got))
	}
}

// TestMain lets TestInterrupt run this binary as the tailbound command, and
// installs it as the tailbound command of TestDocs' scripts.
func TestMain(m *testing.M) {
	if os.Getenv("TAILBOUND_AS_MAIN") == "1" {
		main()
	}
	testscript.Main(m, map[string]func(){"tailbound": main})
}
