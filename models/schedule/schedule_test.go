package schedule_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// example is the package documentation's trace: B = 16, C = 32.
func example() *trace.Trace {
	tr := &trace.Trace{}
	tr.Append(0, "a", 20, 12)
	tr.Append(1, "b", 16, 0)
	tr.Append(2, "a", 8, 0)
	return tr
}

func opts(capacity int64, forced bool) replay.Options {
	return replay.Options{Params: instance.Params{Capacity: capacity, BlockSize: 16, Xi: 0, Forced: forced}, Model: latency.Default(), SLOMs: 200}
}

// score replays schedule text on tr and returns the result or the error.
func score(t *testing.T, tr *trace.Trace, text string, o replay.Options) (replay.Result, error) {
	t.Helper()
	s, err := schedule.Read(strings.NewReader(text), "s.jsonl")
	if err != nil {
		return replay.Result{}, err
	}
	p, err := s.Policy(tr)
	if err != nil {
		return replay.Result{}, err
	}
	res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "s", Policy: p}}, o)
	if err != nil {
		return replay.Result{}, err
	}
	return res[0], nil
}

const (
	decisionLRU = `{"turn":0,"conv":"a","cached":0,"keep":32}
{"turn":1,"conv":"b","cached":0,"keep":16,"shrink":[["a",16]]}
{"turn":2,"conv":"a","cached":16,"keep":32,"shrink":[["b",0]]}
`
	arrivalLRU = "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":16}\n"
)

// TestWorkedExample: the recorder writes, for LRU on the documented trace,
// the decision lines worked by hand in the package documentation; both
// forms score TEL (ξ = 0: every uncached token) 20 + 16 + (40 − 16) = 60.
// The decision form has LRU's two evictions (a cut to 16, b to 0); the
// arrival form's least occupancy has one: b is never cached, a holds 16
// tokens from its first turn and drops them after its last.
func TestWorkedExample(t *testing.T) {
	tr := example()
	var buf bytes.Buffer
	p, _ := policy.NewLRU(policy.Config{})
	rec := schedule.NewRecorder(p, func(c int) string { return tr.Names[c] }, &buf)
	if _, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "lru", Policy: rec}}, opts(32, false)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != decisionLRU {
		t.Errorf("recorded:\n%s\nwant:\n%s", buf.String(), decisionLRU)
	}
	for _, c := range []struct {
		name, text string
		evictions  int64
	}{{"decision", decisionLRU, 2}, {"arrival", arrivalLRU, 1}} {
		r, err := score(t, tr, c.text, opts(32, false))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Summary.TELTokens != 60 || r.Evictions != c.evictions {
			t.Errorf("%s: TEL %v, %d evictions; want 60, %d", c.name, r.Summary.TELTokens, r.Evictions, c.evictions)
		}
	}
	// The better arrival schedule of the documentation: a keeps 32.
	r, err := score(t, tr, "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":32}\n", opts(32, false))
	if err != nil || r.Summary.TELTokens != 20+16+8 {
		t.Errorf("a keeps 32: TEL %v, %v; want 44", r.Summary.TELTokens, err)
	}
}

// TestAddressing: lines may name their turn by position, by "turn" in any
// order, or by conv and conv_turn; all three give the same result.
func TestAddressing(t *testing.T) {
	for _, text := range []string{
		arrivalLRU,
		"{\"turn\":2,\"cached\":16}\n{\"turn\":0,\"cached\":0}\n\n{\"turn\":1,\"conv\":\"b\",\"cached\":0}\n",
		"{\"conv\":\"a\",\"conv_turn\":1,\"cached\":16}\n{\"conv\":\"b\",\"conv_turn\":0,\"cached\":0}\n{\"conv\":\"a\",\"conv_turn\":0,\"cached\":0}\n",
	} {
		r, err := score(t, example(), text, opts(32, false))
		if err != nil || r.Summary.TELTokens != 60 {
			t.Errorf("%q: TEL %v, %v; want 60", text, r.Summary.TELTokens, err)
		}
	}
}

// TestForcedArrival: with forced caching b keeps its whole 16 tokens at its
// turn, while a holds what its return finds: finding 32 needs C = 48 at
// step 1, and at C = 32 breaks the capacity at turn 1.
func TestForcedArrival(t *testing.T) {
	tr := example()
	r, err := score(t, tr, "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":32}\n", opts(48, true))
	if err != nil || r.Summary.TELTokens != 20+16+8 {
		t.Errorf("forced, C=48: TEL %v, %v; want 44", r.Summary.TELTokens, err)
	}
	_, err = score(t, tr, "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":32}\n", opts(32, true))
	if err == nil || !strings.Contains(err.Error(), "s.jsonl:2: turn 1") || !strings.Contains(err.Error(), "rule: capacity") {
		t.Errorf("forced, C=32: %v", err)
	}
}

// TestViolations: each rule broken once, and the malformed files; every
// error is one line naming the file and line, and the turn and rule where
// there is one.
func TestViolations(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		forced bool
		cap    int64
		want   []string
	}{
		{"arrival whole blocks", "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":8}\n", false, 32,
			[]string{"s.jsonl:3: turn 2 (conversation \"a\")", "cached 8 tokens", "16-token blocks", "rule: whole blocks"}},
		{"arrival at most the history", "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":48}\n", false, 64,
			[]string{"s.jsonl:3: turn 2", "cached 48 tokens", "history of 32 tokens", "rule: at most the history"}},
		{"arrival first turn", "{\"cached\":0}\n{\"cached\":16}\n{\"cached\":16}\n", false, 32,
			[]string{"s.jsonl:2: turn 1 (conversation \"b\")", "first turn", "rule: at most the history"}},
		{"arrival capacity", "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":32}\n", false, 16,
			[]string{"s.jsonl:3: turn 2", "rule: at most the history"}},
		{"decision capacity", strings.Replace(decisionLRU, `"shrink":[["a",16]]`, `"shrink":[]`, 1), false, 32,
			[]string{"s.jsonl:2: turn 1 (conversation \"b\")", "48 tokens are cached, over the capacity 32", "rule: capacity"}},
		{"decision no growth", strings.Replace(decisionLRU, `"cached":16`, `"cached":32`, 1), false, 32,
			[]string{"s.jsonl:3: turn 2 (conversation \"a\")", "cached 32 tokens, but the earlier lines leave it 16", "rule: no growth"}},
		{"decision shrink grows", strings.Replace(decisionLRU, `["a",16]`, `["a",48]`, 1), false, 32,
			[]string{"s.jsonl:2: turn 1", "conversation \"a\" to 48 tokens, but it holds 32", "rule: no growth"}},
		{"decision whole blocks", strings.Replace(decisionLRU, `"keep":16`, `"keep":10`, 1), false, 32,
			[]string{"s.jsonl:2: turn 1", "keep 10 tokens", "rule: whole blocks"}},
		{"decision at most the history", strings.Replace(decisionLRU, `"keep":16`, `"keep":32`, 1), false, 32,
			[]string{"s.jsonl:2: turn 1", "keep 32 tokens, more than the most it may keep, 16", "rule: at most the history"}},
		{"decision forced", strings.Replace(decisionLRU, `"keep":16`, `"keep":0`, 1), true, 48,
			[]string{"s.jsonl:2: turn 1", "keep 0 tokens, but forced caching keeps 16", "rule: forced"}},
		{"arrival forced", "{\"cached\":0}\n{\"cached\":0}\n{\"cached\":16}\n", true, 64,
			[]string{}}, // a is cut at step 1 (turn 1 is b's): valid
		{"truncated", decisionLRU[:len(decisionLRU)-20], false, 32,
			[]string{"s.jsonl:3: not a schedule line"}},
		{"missing line", "{\"cached\":0}\n{\"cached\":0}\n", false, 32,
			[]string{"s.jsonl: 2 lines for a trace of 3 turns; turn 2 has none (wrong turn count)"}},
		{"extra line", arrivalLRU + "{\"cached\":0}\n", false, 32,
			[]string{"s.jsonl:4: line for turn 3, but the trace has 3 turns (wrong turn count)"}},
		{"duplicate turn", "{\"turn\":0,\"cached\":0}\n{\"turn\":0,\"cached\":0}\n{\"cached\":16}\n", false, 32,
			[]string{"s.jsonl:2: turn 0 already has line 1"}},
		{"wrong conversation", "{\"cached\":0}\n{\"conv\":\"a\",\"cached\":0}\n{\"cached\":16}\n", false, 32,
			[]string{"s.jsonl:2: turn 1: conversation \"a\", but the trace's turn 1 is of \"b\""}},
		{"unknown field", "{\"cachd\":0}\n", false, 32, []string{"s.jsonl:1: not a schedule line", "cachd"}},
		{"mixed forms", "{\"cached\":0,\"keep\":32}\n{\"cached\":0}\n{\"cached\":16}\n", false, 32,
			[]string{"s.jsonl:2: no \"keep\", but line 1 has one"}},
		{"unknown shrink", strings.Replace(decisionLRU, `["a",16]`, `["z",16]`, 1), false, 32,
			[]string{"s.jsonl:2: shrink: conversation \"z\" is not in the trace"}},
	}
	for _, c := range cases {
		_, err := score(t, example(), c.text, opts(c.cap, c.forced))
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", c.name, msg, w)
			}
		}
	}
}
