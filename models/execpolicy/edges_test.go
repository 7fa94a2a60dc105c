package execpolicy_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/internal/cleanup"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// gone waits up to two seconds for the process whose id is in pidFile to
// be gone (or a zombie) and reports whether it is.
func gone(t *testing.T, pidFile string) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestAnswerCount: answers are counted exactly — a client that answers
// twice per turn, or writes a line after its last answer, is an error
// naming the policy (it used to be accepted, the extra answers applied to
// later turns); one answer per turn is accepted.
func TestAnswerCount(t *testing.T) {
	o := replay.Options{Params: instance.Params{Capacity: 64, BlockSize: 16}, Model: latency.Default(), SLOMs: 200}
	cfg := policy.Config{Params: o.Params}
	tests := []struct {
		name, script string
		want         string // "" accepted
	}{
		{"one answer per turn", `read h; for i in 1 2 3; do read t; echo '{"keep":0}'; done; cat >/dev/null`, ""},
		{"two answers per turn", `read h; for i in 1 2 3; do read t; printf '{"keep":0}\n{"keep":0}\n'; done; cat >/dev/null`, "exactly one answer line per question"},
		{"two answers to the last turn only", `read h; for i in 1 2 3; do read t; echo '{"keep":0}'; done; echo '{"keep":0}'; cat >/dev/null`, "wrote 1 line(s) after its last answer"},
		{"output after its input closed", `read h; for i in 1 2 3; do read t; echo '{"keep":0}'; done; cat >/dev/null; echo bye`, `wrote 1 line(s) after its last answer, the first "bye"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			named := map[string]policy.Factory{"exec:x": execpolicy.New(tc.script, execpolicy.Options{Timeout: 5 * time.Second})}
			res, err := run(t, tiny(), o, cfg, named, []string{"exec:x"})
			if tc.want == "" {
				if err != nil || res[0].Summary.Turns != 3 || res[0].Evictions != 0 {
					t.Fatalf("err %v, results %+v", err, res)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: evictions %d", res[0].Evictions)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "policy exec:") || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming the policy with %q", msg, tc.want)
			}
		})
	}
}

// TestGrandchildHoldingOutput: a client that answers every turn and exits,
// leaving a background process that holds its standard output, is a
// success (it used to fail the run after 3 s: "did not exit within …"),
// and that process is killed with the client's group.
func TestGrandchildHoldingOutput(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := `read h; sleep 300 & echo $! > ` + pidFile + `; for i in 1 2 3; do read t; echo '{"keep":0}'; done; cat >/dev/null`
	o := replay.Options{Params: instance.Params{Capacity: 64, BlockSize: 16}, Model: latency.Default(), SLOMs: 200}
	named := map[string]policy.Factory{"exec:x": execpolicy.New(script, execpolicy.Options{Timeout: 3 * time.Second})}
	start := time.Now()
	res, err := run(t, tiny(), o, policy.Config{Params: o.Params}, named, []string{"exec:x"})
	if err != nil || res[0].Summary.Turns != 3 {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("took %v: waited for the grandchild", d)
	}
	if !gone(t, pidFile) {
		t.Error("the grandchild still runs after Close")
	}
}

// TestContextKillsGroup: cancelling the context (a signal) while the
// client is thinking returns the context's error at once and kills the
// whole process group, the shell's child included; so does the clean-up
// set the context carries, for a run ended before it could Close.
func TestContextKillsGroup(t *testing.T) {
	for _, how := range []string{"cancel", "cleanup set"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			set := cleanup.New()
			ctx, cancel := context.WithCancel(cleanup.With(context.Background(), set))
			defer cancel()
			p, err := execpolicy.Start(ctx, `sleep 300 & echo $! > `+pidFile+`; read h; wait`, 10*time.Second, map[string]int{})
			if err != nil {
				t.Fatal(err)
			}
			for range 100 {
				if _, err := os.Stat(pidFile); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if how == "cleanup set" {
				set.Run()
				if !gone(t, pidFile) {
					t.Error("the clean-up set left the group running")
				}
				p.Close()
				return
			}
			errc := make(chan error, 1)
			go func() { _, err := p.Ask([]byte(`{"turn":0}`)); errc <- err }()
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Ask after cancel: %v, want context.Canceled", err)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("Ask did not return after cancel")
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Ask returned %v after cancel", d)
			}
			p.Close()
			if !gone(t, pidFile) {
				t.Error("the shell's child still runs")
			}
			if set.Len() != 0 {
				t.Errorf("%d clean-up actions left registered after Close", set.Len())
			}
		})
	}
}

// TestTimeoutRange: --exec-timeout outside [1 ms, 1 day] is refused (1e10 s
// overflowed a duration and 1e-10 s rounded to 0, both silently becoming
// the 10 s default); values inside are honoured exactly.
func TestTimeoutRange(t *testing.T) {
	tests := []struct {
		seconds float64
		want    time.Duration // 0: refused
	}{
		{1e10, 0}, {1e-10, 0}, {0, 0}, {-1, 0}, {math.NaN(), 0}, {math.Inf(1), 0},
		{0.001, time.Millisecond}, {0.5, 500 * time.Millisecond}, {86400, 24 * time.Hour},
	}
	for _, tc := range tests {
		got, err := execpolicy.Timeout(tc.seconds)
		if tc.want == 0 {
			if err == nil || !strings.Contains(err.Error(), "between 0.001 and 86400 seconds") {
				t.Errorf("Timeout(%v) = %v, %v; want refused", tc.seconds, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Timeout(%v) = %v, %v; want %v", tc.seconds, got, err, tc.want)
		}
	}
}
