package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// TestGenBirthDeath: a fixed seed gives byte-identical output, the trace
// reads back, and the hidden deaths agree with it: every conversation's
// turns lie between its birth and its death, and their count matches.
func TestGenBirthDeath(t *testing.T) {
	deaths := filepath.Join(t.TempDir(), "deaths.jsonl")
	args := []string{"gen", "birth-death", "--duration", "200", "--lambda-conv", "0.5", "--seed", "7", "--prompt", "geometric:30", "--response", "fixed:4"}
	code, out1, errs := runCLI(append(args, "--deaths", deaths)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, out2, _ := runCLI(args...)
	if out1 != out2 || out1 == "" {
		t.Fatal("same seed, different output")
	}
	tr, err := trace.ReadAll(strings.NewReader(out1), "gen")
	if err != nil {
		t.Fatal(err)
	}
	type hidden struct {
		Conv  string  `json:"conv"`
		Birth float64 `json:"birth_s"`
		Death float64 `json:"death_s"`
		Turns int     `json:"turns"`
	}
	hs := map[string]hidden{}
	f, err := os.Open(deaths)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h hidden
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		hs[h.Conv] = h
	}
	count := map[string]int{}
	for _, u := range tr.Turns {
		name := tr.Names[u.Conv]
		h := hs[name]
		if u.Time < h.Birth || u.Time >= h.Death {
			t.Fatalf("%s: turn at %v s outside its life [%v, %v)", name, u.Time, h.Birth, h.Death)
		}
		if u.Response != 4 {
			t.Fatalf("response %d, want the fixed 4 tokens", u.Response)
		}
		count[name]++
	}
	if len(hs) != tr.Conversations() {
		t.Fatalf("%d conversations in the deaths file, %d in the trace", len(hs), tr.Conversations())
	}
	for name, h := range hs {
		if count[name] != h.Turns {
			t.Errorf("%s: %d turns in the trace, %d in the deaths file", name, count[name], h.Turns)
		}
	}
}

// TestGenTimestamps: turns keep their order within each conversation.
func TestGenTimestamps(t *testing.T) {
	in := writeFile(t, "in.jsonl", `{"t":0,"conv":"a","prompt":1,"response":0}
{"t":0,"conv":"b","prompt":2,"response":0}
{"t":0,"conv":"a","prompt":3,"response":0}
{"t":0,"conv":"a","prompt":4,"response":0}
`)
	code, out, errs := runCLI("gen", "timestamps", "--trace", in, "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tr, err := trace.ReadAll(strings.NewReader(out), "out")
	if err != nil {
		t.Fatal(err)
	}
	var a []int64
	for _, u := range tr.Turns {
		if tr.Names[u.Conv] == "a" {
			a = append(a, u.Prompt)
		}
	}
	if len(tr.Turns) != 4 || len(a) != 3 || a[0] != 1 || a[1] != 3 || a[2] != 4 {
		t.Fatalf("turns of a out of order: %v", a)
	}
}

// TestGenTimestampsWithoutT: a trace without "t" gets the same synthetic
// times as the same turns with times (they are replaced, file order kept).
func TestGenTimestampsWithoutT(t *testing.T) {
	timed := writeFile(t, "timed.jsonl", `{"t":0,"conv":"a","prompt":1,"response":0}
{"t":1,"conv":"b","prompt":2,"response":0}
{"t":2,"conv":"a","prompt":3,"response":0}
`)
	untimed := writeFile(t, "untimed.jsonl", `{"conv":"a","prompt":1,"response":0}
{"conv":"b","prompt":2,"response":0}
{"conv":"a","prompt":3,"response":0}
`)
	_, want, errs := runCLI("gen", "timestamps", "--trace", timed, "--seed", "5")
	code, got, errs2 := runCLI("gen", "timestamps", "--trace", untimed, "--seed", "5")
	if code != 0 || want == "" || got != want {
		t.Fatalf("exit %d (%s %s): without t\n%s\nwith t\n%s", code, errs, errs2, got, want)
	}
	// simulate still requires t.
	if code, _, errs := runCLI("simulate", "--trace", untimed, "--capacity", "64"); code == 0 || !strings.Contains(errs, `field "t"`) {
		t.Errorf("simulate on a trace without t: exit %d, %q", code, errs)
	}
}

func TestGenBadInput(t *testing.T) {
	bad := writeFile(t, "bad.jsonl", `{"t": 0, "conv": "a", "prompt": 0, "response": 5}`+"\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"gen", "birth-death", "--prompt", "fixed:0"}, "--prompt"},
		{[]string{"gen", "birth-death", "--response", "lognormal:1"}, "--response"},
		{[]string{"gen", "birth-death", "--rates", "0.1:-1"}, "--rates"},
		{[]string{"gen", "birth-death", "--gamma", "2"}, "--gamma"},
		{[]string{"gen", "birth-death", "--mu", "0"}, "mu"},
		{[]string{"gen", "birth-death", "--duration", "0"}, "duration"},
		{[]string{"gen", "birth-death", "--prompt", "empirical:" + bad}, "bad.jsonl:1"},
		{[]string{"gen", "timestamps"}, "--trace"},
		{[]string{"gen", "timestamps", "--trace", bad}, "bad.jsonl:1: field \"prompt\""},
		{[]string{"gen", "nosuch"}, "unknown generator"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one error line containing %q", c.args, code, out, errs, c.want)
		}
	}
}
