package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/trace"
)

// bailianLines is a small hand-written trace in the Bailian schema: a
// two-turn text conversation (second prompt 64 − 40 − 9 = 15 tokens) and
// a single search request.
const bailianLines = `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 9, "type": "text", "turn": 1, "hash_ids": [1, 2, 3]}
{"chat_id": 2, "parent_chat_id": -1, "timestamp": 1.0, "input_length": 20, "output_length": 5, "type": "search", "turn": 1, "hash_ids": [7, 8]}
{"chat_id": 3, "parent_chat_id": 1, "timestamp": 9.0, "input_length": 64, "output_length": 7, "type": "text", "turn": 2, "hash_ids": [1, 2, 4, 5]}
`

// importFixture writes content to a file name in a fresh temporary directory.
func importFixture(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestImportBailianCanonical(t *testing.T) {
	in := importFixture(t, "b.jsonl", bailianLines)
	code, out, errs := runCLI("import", "bailian", "--in", in, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `{"t":0.5,"conv":"1","prompt":40,"response":9,"category":"text"}
{"t":1,"conv":"2","prompt":20,"response":5,"category":"search"}
{"t":9,"conv":"1","prompt":15,"response":7,"category":"text"}
`
	if out != want {
		t.Errorf("canonical output\n%s\nwant\n%s", out, want)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(errs), &sum); err != nil {
		t.Fatalf("summary on stderr is not JSON: %v: %s", err, errs)
	}
	if sum["requests"] != 3.0 || sum["linked"] != 1.0 || sum["conversations"] != 2.0 || sum["prompt_fallbacks"] != 0.0 {
		t.Errorf("summary %v", sum)
	}
}

func TestImportBlocksToFile(t *testing.T) {
	in := importFixture(t, "b.jsonl", bailianLines)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if code, _, errs := runCLI("import", "bailian", "--in", in, "--to", "blocks", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	src, closer, err := importer.Open(out, "blocks", importer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	s, err := importer.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Requests) != 3 || s.BlockTokens != 16 || s.Requests[2].Conv != 0 || s.Requests[1].Category != "search" {
		t.Errorf("blocks output read back as %+v", s)
	}
}

// TestImportErrors: bad input ends with one line naming file, line and
// field, a non-zero exit, and no output file.
func TestImportErrors(t *testing.T) {
	bad := importFixture(t, "bad.jsonl", bailianLines+`{"chat_id": 4, "parent_chat_id": -1, "timestamp": 9.5, "input_length": -3, "output_length": 0, "type": "text", "turn": 1, "hash_ids": []}`+"\n")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"import", "bailian", "--in", bad, "--out", out}, bad + `:4: field "input_length"`},
		{[]string{"import", "mooncake", "--in", bad}, bad + `:1: field "timestamp": want an integer`},
		{[]string{"import", "csv", "--in", bad}, `trace format "csv"`},
		{[]string{"import", "bailian"}, "flag --in: required"},
		{[]string{"import", "bailian", "--in", filepath.Join(t.TempDir(), "missing.jsonl")}, "no such file"},
		{[]string{"import", "bailian", "--in", bad, "--to", "xml"}, "flag --to"},
		{[]string{"import", "mooncake", "--in", bad, "--chain-length", "round"}, "flag --chain-length"},
		{[]string{"import", "mooncake", "--in", bad, "--min-shared-blocks", "-1"}, "flag --min-shared-blocks"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s", out)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("a failed import left files %v", entries)
	}
}

// TestImportMooncake imports the published conversation trace and checks
// the counts against the importer's own brute-force-checked figures and
// that the canonical trace reads back with one turn per request.
func TestImportMooncake(t *testing.T) {
	path := mooncakeFile(t, "conversation_trace.jsonl")
	code, out, errs := runCLI("import", "mooncake", "--in", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tr, err := trace.ReadAll(strings.NewReader(out), "canonical")
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Requests, Linked, Conversations int
	}
	if err := json.Unmarshal([]byte(errs), &sum); err != nil {
		t.Fatal(err)
	}
	if len(tr.Turns) != 12031 || sum.Requests != 12031 || tr.Conversations() != sum.Conversations ||
		sum.Linked+sum.Conversations != sum.Requests {
		t.Errorf("%d turns, %d conversations; summary %+v", len(tr.Turns), tr.Conversations(), sum)
	}
}

// mooncakeFile finds a published Mooncake file in shared/data above the
// working directory, or skips.
func mooncakeFile(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data", "mooncake", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("shared/data/mooncake not found above the working directory")
		}
		dir = up
	}
}
