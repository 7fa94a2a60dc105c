package characterize

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// bailianLines: a two-turn text conversation (second prompt 64 − 40 − 9 =
// 15 tokens) and a single search request.
const bailianLines = `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 9, "type": "text", "turn": 1, "hash_ids": [1, 2, 3]}
{"chat_id": 2, "parent_chat_id": -1, "timestamp": 1.0, "input_length": 20, "output_length": 5, "type": "search", "turn": 1, "hash_ids": [7, 8]}
{"chat_id": 3, "parent_chat_id": 1, "timestamp": 9.0, "input_length": 64, "output_length": 7, "type": "text", "turn": 2, "hash_ids": [1, 2, 4, 5]}
`

func fixture(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importOptions are import's flag defaults for one input file.
func importOptions(args []string, in string) ImportOptions {
	return ImportOptions{Args: args, In: in, To: "canonical", Out: "-", Format: "table",
		Importer: importer.Settings{Chain: "ceil", MinSharedBlocks: importer.DefaultMinSharedBlocks}}
}

func TestImportCanonical(t *testing.T) {
	in := fixture(t, "b.jsonl", bailianLines)
	var out bytes.Buffer
	doc, tab, err := Import(context.Background(), importOptions([]string{"bailian"}, in), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":0.5,"conv":"1","prompt":40,"response":9,"category":"text"}
{"t":1,"conv":"2","prompt":20,"response":5,"category":"search"}
{"t":9,"conv":"1","prompt":15,"response":7,"category":"text"}
`
	if out.String() != want {
		t.Errorf("canonical output\n%s\nwant\n%s", out.String(), want)
	}
	if doc["requests"] != int64(3) || doc["linked"] != int64(1) || doc["conversations"] != int64(2) || tab.Title != "import summary" {
		t.Errorf("summary %v", doc)
	}
}

func TestImportBlocksFile(t *testing.T) {
	in := fixture(t, "b.jsonl", bailianLines)
	o := importOptions([]string{"bailian"}, in)
	o.To, o.Out = "blocks", filepath.Join(t.TempDir(), "out.jsonl")
	var stdout bytes.Buffer
	if _, _, err := Import(context.Background(), o, &stdout); err != nil || stdout.Len() != 0 {
		t.Fatalf("%v, %d bytes on stdout", err, stdout.Len())
	}
	src, closer, err := importer.Open(o.Out, "blocks", importer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	s, err := importer.ReadAll(src)
	if err != nil || len(s.Requests) != 3 || s.BlockTokens != 16 || s.Requests[1].Category != "search" {
		t.Errorf("read back %+v, %v", s, err)
	}
}

// TestImportRefused: the arguments and flags in the order the command
// checks them; a failed import leaves no output file.
func TestImportRefused(t *testing.T) {
	in := fixture(t, "b.jsonl", bailianLines)
	empty := fixture(t, "e.jsonl", "\n")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	with := func(args []string, f func(*ImportOptions)) ImportOptions {
		o := importOptions(args, in)
		f(&o)
		return o
	}
	for _, c := range []struct {
		o    ImportOptions
		want string
	}{
		{with(nil, func(*ImportOptions) {}), "want exactly one trace format argument, mooncake or bailian (see --help)"},
		{with([]string{"csv"}, func(*ImportOptions) {}), `trace format "csv": want mooncake or bailian`},
		{with([]string{"bailian"}, func(o *ImportOptions) { o.To, o.Format = "xml", "xml" }), `flag --to: "xml", want canonical or blocks`},
		{with([]string{"bailian"}, func(o *ImportOptions) { o.Format = "xml" }), `flag --format: unknown format "xml" (want table|markdown|csv|json)`},
		{with([]string{"bailian"}, func(o *ImportOptions) { o.In = "" }), "flag --in: required (the trace file)"},
		{with([]string{"mooncake"}, func(o *ImportOptions) { o.Importer.MinSharedBlocks = -1 }), "flag --min-shared-blocks: -1 must be ≥ 0 blocks"},
		{with([]string{"bailian"}, func(o *ImportOptions) { o.In, o.Out = empty, out }), empty + ": no requests (the trace is empty)"},
		{with([]string{"bailian"}, func(o *ImportOptions) { o.Out = filepath.Join(out, "x", "y") }), "flag --out: "},
	} {
		_, _, err := Import(context.Background(), c.o, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s", out)
	}
}
