package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// probeLine is a τ probe's progress line: the percentile's interval still
// open, tokens.
var probeLine = regexp.MustCompile(`τ probes: P90 in \[(\d+), (\d+)\] tokens`)

// TestSolvePhasesProgress: the solves that had no progress of their own —
// the τ probes of a percentile (lp/slo), the windows of solve --windows
// (TEL and SLO) — write their phase line with --progress=true, even to a
// file, and nothing (no carriage return) to a file by default. Every τ
// line's interval must contain the interval the solve ends with: the
// search only narrows it, so a line showing anything else is wrong.
func TestSolvePhasesProgress(t *testing.T) {
	dir := t.TempDir()
	tr := genTrace(t, dir, 400)
	base := []string{"solve", "--trace", tr, "--capacity", "4096", "--xi-tokens", "300", "--format", "json"}
	for _, c := range []struct {
		name string
		args []string
		line string // in the progress, with --progress=true
	}{
		{"percentile", []string{"--objective", "p90", "--solver", "flow"}, "τ probes: P90 in ["},
		{"windows", []string{"--windows", "4"}, "windows: 4/4 (100%)"},
		{"windows slo", []string{"--windows", "4", "--objective", "slo", "--slo-tokens", "1000"}, "windows: 4/4 (100%)"},
	} {
		for _, shown := range []bool{false, true} {
			args := append(append([]string{}, base...), c.args...)
			if shown {
				args = append(args, "--progress=true")
			}
			out, b := runStderrFile(t, dir, args)
			if !shown {
				if len(b) != 0 {
					t.Errorf("%s: stderr redirected to a file holds %q, want nothing", c.name, b)
				}
				continue
			}
			if !bytes.Contains(b, []byte("\r")) || !strings.Contains(string(b), c.line) {
				t.Errorf("%s: --progress=true wrote %q, want carriage returns and %q", c.name, b, c.line)
			}
			if c.name != "percentile" {
				continue
			}
			var rep struct {
				Lower *int64 `json:"lower_bound"`
				Upper *int64 `json:"upper_bound"`
			}
			if err := json.Unmarshal(out, &rep); err != nil || rep.Lower == nil || rep.Upper == nil {
				t.Fatalf("percentile: no lower_bound and upper_bound in %s (%v)", out, err)
			}
			ms := probeLine.FindAllStringSubmatch(string(b), -1)
			if len(ms) == 0 {
				t.Fatalf("percentile: no τ line in %q", b)
			}
			for _, m := range ms {
				lo, _ := strconv.ParseInt(m[1], 10, 64)
				hi, _ := strconv.ParseInt(m[2], 10, 64)
				if lo > *rep.Lower || hi < *rep.Upper {
					t.Errorf("percentile: line %q does not contain the final interval [%d, %d]", m[0], *rep.Lower, *rep.Upper)
				}
			}
		}
	}
}

// TestGenPrefixProgress: gen prefix, the head of the cluster-day
// pipeline, counts its requests of --requests with --progress=true (every
// 2^18 requests: 262144 of 300000) and writes nothing to a redirected
// stderr by default; the trace is byte-identical either way.
func TestGenPrefixProgress(t *testing.T) {
	dir := t.TempDir()
	var traces [2][]byte
	for i, shown := range []bool{false, true} {
		args := []string{"gen", "prefix", "--requests", "300000", "--seed", "2"}
		if shown {
			args = append(args, "--progress=true")
		}
		var b []byte
		traces[i], b = runStderrFile(t, dir, args)
		switch {
		case !shown && len(b) != 0:
			t.Errorf("stderr redirected to a file holds %q, want nothing", b)
		case shown && (!bytes.Contains(b, []byte("\r")) || !bytes.Contains(b, []byte("requests: 262144/300000 (87%)"))):
			t.Errorf("--progress=true wrote %q, want carriage returns and requests: 262144/300000 (87%%)", b)
		}
	}
	if !bytes.Equal(traces[0], traces[1]) || bytes.Count(traces[0], []byte("\n")) != 300000 {
		t.Errorf("the trace differs with progress shown, or is not 300000 lines")
	}
}

// runStderrFile runs the command line args with its standard error
// redirected to a file in dir, as a user's 2>file is, fails the test on a
// non-zero exit, and returns what it wrote to standard output and to the
// file.
func runStderrFile(t *testing.T, dir string, args []string) (stdout, stderr []byte) {
	t.Helper()
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run(args, &out, errf)
	errf.Close()
	b, err := os.ReadFile(errf.Name())
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, b)
	}
	return out.Bytes(), b
}
