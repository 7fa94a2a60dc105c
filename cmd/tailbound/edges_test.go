package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// edgeTrace is a three-turn canonical trace (B = 16, C = 32 makes lru
// evict).
const edgeTrace = `{"t":0,"conv":"a","prompt":20,"response":12}
{"t":1,"conv":"b","prompt":16,"response":0}
{"t":2,"conv":"a","prompt":8,"response":0}
`

// oneLine asserts a refusal: exit 1, one line on stderr holding want,
// nothing on stdout.
func oneLine(t *testing.T, code int, out, errs, want string) {
	t.Helper()
	if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, one line with %q", code, out, errs, want)
	}
}

// unchanged asserts that path still holds content.
func unchanged(t *testing.T, path, content string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != content {
		t.Errorf("%s now holds %q (%v), want it unchanged", path, b, err)
	}
}

// TestOutputIsInput: an output that is the same file as an input — by
// name or through a symbolic link — is refused in one line and the input
// is left as it was (it was overwritten without a word: issue 26 item 2).
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	os.WriteFile(tr, []byte(edgeTrace), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink("t.jsonl", link)
	mc := filepath.Join(dir, "mc.jsonl")
	const mcLine = `{"timestamp":0,"input_length":100,"output_length":1,"hash_ids":[1]}` + "\n"
	os.WriteFile(mc, []byte(mcLine), 0o644)
	tests := []struct {
		name  string
		args  []string
		input string
		was   string
	}{
		{"emit-schedule onto the trace", []string{"simulate", "--trace", tr, "--capacity", "32", "--policies", "lru", "--emit-schedule", tr}, tr, edgeTrace},
		{"emit-schedule through a link to the trace", []string{"simulate", "--trace", tr, "--capacity", "32", "--policies", "lru", "--emit-schedule", link}, tr, edgeTrace},
		{"block level", []string{"simulate", "--level", "block", "--trace", tr, "--capacity", "32", "--policies", "lru", "--emit-schedule", tr}, tr, edgeTrace},
		{"import onto its input", []string{"import", "mooncake", "--in", mc, "--out", mc}, mc, mcLine},
		{"plot onto the trace", []string{"simulate", "--trace", tr, "--capacity", "32", "--policies", "lru", "--plot", link}, tr, edgeTrace},
		{"solve --schedule onto the trace", []string{"solve", "--trace", tr, "--capacity", "32", "--block-size", "16", "--xi-tokens", "0", "--solver", "flow", "--schedule", tr}, tr, edgeTrace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			oneLine(t, code, out, errs, "would destroy that input")
			unchanged(t, tc.input, tc.was)
		})
	}

	// merge --out onto one of its shard files.
	var shards []string
	for _, sh := range []string{"1/2", "2/2"} {
		f := filepath.Join(dir, "shard-"+sh[:1]+".json")
		if code, _, errs := runCLI("tables", "recompute", "--small", "--shard", sh, "--out", f); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", sh, code, errs)
		}
		shards = append(shards, f)
	}
	before, _ := os.ReadFile(shards[0])
	code, out, errs := runCLI(append([]string{"merge", "--out", shards[0]}, shards...)...)
	if code != 1 || !strings.Contains(errs, "would destroy that input") || strings.Count(errs, "\n") != 1 {
		t.Errorf("merge --out onto a shard: exit %d, stderr %q", code, errs)
	}
	_ = out
	unchanged(t, shards[0], string(before))
}

// TestEmitScheduleTargets: --emit-schedule through a symbolic link writes
// the link's target and keeps the link; onto /dev/null it writes through
// (the device stays a device); onto /dev/full it fails in one line with
// the device's error and leaves it a device (it was replaced by a regular
// file: issue 26 item 1); "-" and two policies whose names give one file
// are refused.
func TestEmitScheduleTargets(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	os.WriteFile(tr, []byte(edgeTrace), 0o644)
	base := []string{"simulate", "--trace", tr, "--capacity", "32", "--format", "csv"}

	target := filepath.Join(dir, "target.jsonl")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "s.jsonl")
	os.Symlink("target.jsonl", link)
	code, _, errs := runCLI(append(base, "--policies", "lru", "--emit-schedule", link)...)
	if code != 0 {
		t.Fatalf("through a link: exit %d: %s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); !bytes.Contains(b, []byte(`"conv"`)) {
		t.Errorf("the link's target holds %q, want the schedule", b)
	}

	if code, _, errs := runCLI(append(base, "--policies", "lru", "--emit-schedule", "/dev/null")...); code != 0 {
		t.Errorf("/dev/null: exit %d: %s", code, errs)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		code, out, errs := runCLI(append(base, "--policies", "lru", "--emit-schedule", "/dev/full")...)
		oneLine(t, code, out, errs, "no space left on device")
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Stat(dev); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device", dev)
		}
	}

	code, out, errs := runCLI(append(base, "--policies", "lru", "--emit-schedule", "-")...)
	oneLine(t, code, out, errs, "standard output carries the report")
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was created`)
	}

	code, out, errs = runCLI(append(base, "--policies", "exec:cat a/b,exec:cat a:b", "--emit-schedule", filepath.Join(dir, "e.jsonl"))...)
	oneLine(t, code, out, errs, "would both write")
}

// TestInterruptedRunPresentsNothing: a run whose context a signal has
// cancelled prints nothing, leaves its --emit-schedule file as it was and
// exits with the signal's status (130 SIGINT, 143 SIGTERM); a short run
// used to print its whole table and replace the file, then exit 130
// (issue 26 item 4).
func TestInterruptedRunPresentsNothing(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		for _, level := range []string{"turn", "block"} {
			dir := t.TempDir()
			tr := filepath.Join(dir, "t.jsonl")
			os.WriteFile(tr, []byte(edgeTrace), 0o644)
			emit := filepath.Join(dir, "s.jsonl")
			os.WriteFile(emit, []byte("old\n"), 0o644)
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(signalError{tc.sig})
			var out, errb bytes.Buffer
			code := runContext(ctx, []string{"simulate", "--level", level, "--trace", tr, "--capacity", "32", "--policies", "lru", "--emit-schedule", emit}, &out, &errb)
			if code != tc.code || out.Len() != 0 || !strings.Contains(errb.String(), "interrupted by") {
				t.Errorf("%v, %s level: exit %d, stdout %q, stderr %q; want %d, nothing, interrupted", tc.sig, level, code, out.String(), errb.String(), tc.code)
			}
			unchanged(t, emit, "old\n")
			if es, _ := os.ReadDir(dir); len(es) != 2 {
				t.Errorf("left behind: %v", es)
			}
		}
	}
}

// tailboundProcess starts this test binary as tailbound (TestMain).
func tailboundProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TAILBOUND_AS_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errb
}

// waitFile waits up to five seconds for path to exist and returns its
// content.
func waitFile(t *testing.T, path string, stderr *bytes.Buffer) string {
	t.Helper()
	for range 250 {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not appear (stderr %q)", path, stderr)
	return ""
}

// alive reports whether process pid still runs (a zombie does not),
// waiting up to two seconds for it to go.
func alive(pid int) bool {
	for range 100 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestSignalWithExecClient: SIGINT or SIGTERM while an exec client (a
// shell with a child of its own, in its own process group) is thinking
// ends the run at once with status 130 or 143: nothing on stdout, the
// client's whole group killed, no temporary --emit-schedule file left
// (the client and its children used to run on under PID 1: issue 26
// item 3).
func TestSignalWithExecClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		tr := filepath.Join(dir, "t.jsonl")
		os.WriteFile(tr, []byte(edgeTrace), 0o644)
		pidFile := filepath.Join(dir, "pids")
		script := filepath.Join(dir, "c.sh")
		os.WriteFile(script, []byte("echo $$ > "+pidFile+".tmp; sleep 300 & echo $! >> "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait\n"), 0o644)
		client := "exec:sh " + script
		cmd, out, errb := tailboundProcess(t, "simulate", "--trace", tr, "--capacity", "32", "--policies", "lru,"+client,
			"--emit-schedule", filepath.Join(dir, "s.jsonl"))
		pids := strings.Fields(waitFile(t, pidFile, errb))
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%v: took %v to stop (the grace period, not the cancellation)", tc.sig, d)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != tc.code {
			t.Errorf("%v: exit %v, want %d", tc.sig, err, tc.code)
		}
		if out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: stdout %q, stderr %q", tc.sig, out.String(), errb.String())
		}
		for _, p := range pids {
			if pid, _ := strconv.Atoi(p); alive(pid) {
				t.Errorf("%v: process %d of the client's group still runs", tc.sig, pid)
			}
		}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if e.Name() != "t.jsonl" && e.Name() != "pids" && e.Name() != "c.sh" {
				t.Errorf("%v: left behind %s", tc.sig, e.Name())
			}
		}
	}
}

// TestSignalImportFromPipe: SIGINT while import reads a named pipe that
// never ends (the read does not notice the context) ends it after the
// grace period with status 130 and no temporary output file (one was
// left: issue 26 item 3).
func TestSignalImportFromPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses; takes the 3 s grace period")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	cmd, out, errb := tailboundProcess(t, "import", "mooncake", "--in", fifo, "--out", filepath.Join(outDir, "f.jsonl"))
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString(`{"timestamp":0,"input_length":100,"output_length":1,"hash_ids":[1]}` + "\n")
	for range 250 { // until the temporary output exists
		if es, _ := os.ReadDir(outDir); len(es) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if es, _ := os.ReadDir(outDir); len(es) == 0 {
		t.Fatal("no temporary output file appeared")
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130 (stderr %q)", err, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
	if es, _ := os.ReadDir(outDir); len(es) != 0 {
		t.Errorf("left behind: %v", es)
	}
}

// TestBOM: a UTF-8 byte-order mark at the start of a trace is dropped (it
// was refused with "invalid character 'ï'"): simulate and import give the
// output of the same file without it; a mark on a later line is refused
// naming the file and line.
func TestBOM(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	bom := filepath.Join(dir, "bom.jsonl")
	os.WriteFile(plain, []byte(edgeTrace), 0o644)
	os.WriteFile(bom, []byte("\xef\xbb\xbf"+edgeTrace), 0o644)
	sim := func(tr string) (int, string, string) {
		return runCLI("simulate", "--trace", tr, "--capacity", "32", "--policies", "lru,tlru", "--format", "csv")
	}
	_, want, _ := sim(plain)
	if code, got, errs := sim(bom); code != 0 || got != strings.ReplaceAll(want, plain, bom) {
		t.Errorf("simulate with a BOM: exit %d (%s), output\n%s\nwant\n%s", code, errs, got, want)
	}
	const mc = `{"timestamp":0,"input_length":600,"output_length":1,"hash_ids":[1,2]}` + "\n"
	os.WriteFile(plain, []byte(mc), 0o644)
	os.WriteFile(bom, []byte("\xef\xbb\xbf"+mc), 0o644)
	_, want, _ = runCLI("import", "mooncake", "--in", plain, "--format", "json")
	if code, got, errs := runCLI("import", "mooncake", "--in", bom, "--format", "json"); code != 0 || got != strings.ReplaceAll(want, plain, bom) {
		t.Errorf("import with a BOM: exit %d (%s), output\n%s\nwant\n%s", code, errs, got, want)
	}
	late := filepath.Join(dir, "late.jsonl")
	lines := strings.SplitAfter(edgeTrace, "\n")
	os.WriteFile(late, []byte(lines[0]+"\xef\xbb\xbf"+lines[1]), 0o644)
	code, out, errs := runCLI("simulate", "--trace", late, "--capacity", "32", "--policies", "lru")
	oneLine(t, code, out, errs, "late.jsonl:2")
}

// TestMergeOnePointMissing: one missing grid point is named in the
// singular ("grid points 1 are in no file" read wrongly).
func TestMergeOnePointMissing(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for k := 1; k <= 7; k++ { // of 8 shards of the 8-point grid: point 7 is in shard 8 only
		f := filepath.Join(dir, "s"+strconv.Itoa(k)+".json")
		if code, _, errs := runCLI("tables", "recompute", "--small", "--shard", strconv.Itoa(k)+"/8", "--out", f); code != 0 {
			t.Fatalf("shard %d: %s", k, errs)
		}
		files = append(files, f)
	}
	code, out, errs := runCLI(append([]string{"merge"}, files...)...)
	oneLine(t, code, out, errs, "grid point 7 is in no file (a shard is missing)")
}

// TestBlockExecAnswerCount: at the block level too, a client answering
// twice is refused in one line naming the policy (the protocol's client,
// execpolicy.Process, is shared by both levels).
func TestBlockExecAnswerCount(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "mc.jsonl")
	var b strings.Builder
	for i := range 3 { // three requests of three 512-token blocks each, all distinct: the third must evict
		b.WriteString(`{"timestamp":` + strconv.Itoa(i) + `,"input_length":1500,"output_length":1,"hash_ids":[` +
			strconv.Itoa(3*i+1) + "," + strconv.Itoa(3*i+2) + "," + strconv.Itoa(3*i+3) + "]}\n")
	}
	os.WriteFile(tr, []byte(b.String()), 0o644)
	client := filepath.Join(dir, "twice.sh")
	os.WriteFile(client, []byte("read h\nwhile read t; do printf '{\"evict\":[]}\\n{\"evict\":[]}\\n'; done\n"), 0o755)
	code, out, errs := runCLI("simulate", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacity", "4096",
		"--policies", "lru,exec:sh "+client)
	oneLine(t, code, out, errs, "exactly one answer line per question")
	if !strings.Contains(errs, "policy exec:sh ") {
		t.Errorf("the error does not name the policy: %q", errs)
	}
}
