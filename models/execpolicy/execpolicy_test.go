package execpolicy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// client returns the path of the reference Python client, or skips when
// python3 is not installed.
func client(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH: the reference client examples/exec_policy.py cannot run (install python3 to run this test)")
	}
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "examples", "exec_policy.py")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("examples/exec_policy.py not found above the working directory")
		}
		dir = up
	}
}

func run(t testing.TB, tr *trace.Trace, o replay.Options, cfg policy.Config, named map[string]policy.Factory, order []string) ([]replay.Result, error) {
	t.Helper()
	var runs []replay.Named
	for _, n := range order {
		p, err := named[n](cfg)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, replay.Named{Name: n, Policy: p})
	}
	res, err := replay.Replay(replay.SliceSource(tr.Turns), runs, o)
	for _, r := range runs {
		if c, ok := r.Policy.(interface{ Close() error }); ok {
			if cerr := c.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	}
	return res, err
}

// TestReferenceClient: the Python LRU and T-LRU of examples/ make the
// decisions of the built-in ones, so every metric, evictions included, is
// equal, on the embedded workload (10 minutes of births), optional and
// forced, with T-LRU's running-mean Q̂ and a fixed one.
func TestReferenceClient(t *testing.T) {
	py := client(t)
	p := birthdeath.Default()
	p.Duration = 600
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		forced bool
		qhat   float64
	}{{false, 0}, {true, 0}, {false, 180}} {
		o := replay.Options{Params: instance.Params{Capacity: 32768, BlockSize: 16, Xi: 1500.5, Forced: c.forced}, Model: latency.Default(), SLOMs: 200}
		cfg := policy.Config{Params: instance.Params{Capacity: o.Capacity, BlockSize: o.BlockSize, Xi: o.Xi, Forced: o.Forced}, QHat: c.qhat, Threshold: 1024}
		named := map[string]policy.Factory{
			"lru": policy.NewLRU, "tlru": policy.NewTLRU,
			"py-lru":  execpolicy.New("python3 "+py+" lru", execpolicy.Options{}),
			"py-tlru": execpolicy.New("python3 "+py+" tlru", execpolicy.Options{}),
		}
		start := time.Now()
		res, err := run(t, tr, o, cfg, named, []string{"lru", "tlru", "py-lru", "py-tlru"})
		if err != nil {
			t.Fatalf("forced=%v: %v", c.forced, err)
		}
		t.Logf("forced=%v qhat=%v: %d turns, both clients in %v", c.forced, c.qhat, len(tr.Turns), time.Since(start))
		for i := 0; i < 2; i++ {
			g, w := res[i+2], res[i]
			if g.Summary != w.Summary || g.Evictions != w.Evictions || g.EvictedTokens != w.EvictedTokens {
				t.Errorf("forced=%v qhat=%v: %s %+v (%d evictions, %d tokens); %s %+v (%d, %d)", c.forced, c.qhat, g.Name, g.Summary,
					g.Evictions, g.EvictedTokens, w.Name, w.Summary, w.Evictions, w.EvictedTokens)
			}
			if w.Evictions == 0 {
				t.Errorf("%s evicts nothing: the comparison is vacuous", w.Name)
			}
		}
		if res[0].Summary == res[1].Summary {
			t.Errorf("lru and tlru agree: the test does not tell them apart")
		}
	}
}

// tiny is the schedule package's worked example: B = 16, C = 32; a's first
// turn may keep 32 tokens, b's 16, and both together exceed C.
func tiny() *trace.Trace {
	tr := &trace.Trace{}
	tr.Append(0, "a", 20, 12)
	tr.Append(1, "b", 16, 0)
	tr.Append(2, "a", 8, 0)
	return tr
}

// TestBadAnswers: every broken rule, a malformed answer, a process that
// dies and one that stalls each stop the replay with one line naming the
// turn and the rule (or what happened). The fake clients are shell
// scripts that answer turn 0 well and turn 1 badly.
func TestBadAnswers(t *testing.T) {
	const turn0 = `read h; read t; echo '{"keep":32}'; read t; `
	cases := []struct {
		name   string
		script string
		forced bool
		want   []string
	}{
		{"whole blocks", turn0 + `echo '{"keep":10}'; cat >/dev/null`, false,
			[]string{"turn 1:", "keep 10 tokens is not a whole number of 16-token blocks", "rule: whole blocks"}},
		{"at most the history", turn0 + `echo '{"keep":32}'; cat >/dev/null`, false,
			[]string{"turn 1:", "keep 32 tokens, more than max_keep 16", "rule: at most the history"}},
		{"no growth", turn0 + `echo '{"keep":16,"shrink":[[0,48]]}'; cat >/dev/null`, false,
			[]string{"turn 1:", "conversation 0 to 48 tokens, but it holds 32", "rule: no growth"}},
		{"not arrived", turn0 + `echo '{"keep":16,"shrink":[[7,0]]}'; cat >/dev/null`, false,
			[]string{"turn 1:", "conversation 7 has not arrived yet"}},
		{"capacity", turn0 + `echo '{"keep":16}'; cat >/dev/null`, false,
			[]string{"turn 1:", "48 tokens are cached, over the capacity 32", "rule: capacity"}},
		{"forced", turn0 + `echo '{"keep":0}'; cat >/dev/null`, true,
			[]string{"turn 1:", "keep 0 tokens, but forced caching keeps max_keep 16", "rule: forced"}},
		{"not json", turn0 + `echo 'keep everything'; cat >/dev/null`, false,
			[]string{"turn 1:", `answer "keep everything" is not {"keep"`}},
		{"no keep", turn0 + `echo '{"shrink":[]}'; cat >/dev/null`, false,
			[]string{"turn 1:", `has no "keep"`}},
		{"unknown field", turn0 + `echo '{"keep":16,"evict":[]}'; cat >/dev/null`, false,
			[]string{"turn 1:", `unknown field "evict"`}},
		{"dies", turn0 + `echo 'giving up' >&2; exit 3`, false,
			[]string{"turn 1:", "the process ended before answering (exit status 3", `"giving up"`}},
		{"stalls", turn0 + `sleep 30`, false,
			[]string{"turn 1:", "no answer within 300ms (the time limit, --exec-timeout); process killed"}},
		{"not found", `no-such-command-tailbound`, false,
			[]string{"turn 0:", "exit status 127", "not found"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cap := int64(32)
			if c.forced {
				cap = 48
			}
			o := replay.Options{Params: instance.Params{Capacity: cap, BlockSize: 16, Forced: c.forced}, Model: latency.Default(), SLOMs: 200}
			cfg := policy.Config{Params: instance.Params{Capacity: cap, BlockSize: 16, Forced: c.forced}}
			named := map[string]policy.Factory{"x": execpolicy.New(c.script, execpolicy.Options{Timeout: 300 * time.Millisecond})}
			start := time.Now()
			_, err := run(t, tiny(), o, cfg, named, []string{"x"})
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v: a stalled process was not killed in time", time.Since(start))
			}
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			for _, w := range append(c.want, "policy x: ") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestExitStatus: a client that answers every turn but exits with a
// failure status is reported when it is closed.
func TestExitStatus(t *testing.T) {
	o := replay.Options{Params: instance.Params{Capacity: 64, BlockSize: 16}, Model: latency.Default(), SLOMs: 200}
	named := map[string]policy.Factory{"ok": execpolicy.New(`read h; read t; echo '{"keep":32}'; read t; echo '{"keep":16}'; read t; echo '{"keep":32}'; cat >/dev/null`, execpolicy.Options{}),
		"bad": execpolicy.New(`read h; read t; echo '{"keep":32}'; read t; echo '{"keep":16}'; read t; echo '{"keep":32}'; cat >/dev/null; exit 4`, execpolicy.Options{})}
	res, err := run(t, tiny(), o, policy.Config{Params: instance.Params{Capacity: 64, BlockSize: 16}}, named, []string{"ok"})
	if err != nil || res[0].Summary.Turns != 3 {
		t.Fatalf("ok: %v", err)
	}
	_, err = run(t, tiny(), o, policy.Config{Params: instance.Params{Capacity: 64, BlockSize: 16}}, named, []string{"bad"})
	if err == nil || !strings.Contains(err.Error(), "after the last turn: exit status 4") {
		t.Errorf("bad: %v", err)
	}
}
