package importer

import (
	"bytes"
	"github.com/tailbound/tailbound/internal/shareddata"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestBlocksRoundTrip writes streams in the blocks format and reads them
// back: the hand-written Bailian sample and, when present, the Mooncake
// conversation trace.
func TestBlocksRoundTrip(t *testing.T) {
	inputs := map[string]func() (Source, error){
		"bailian sample": func() (Source, error) {
			return NewBailian(strings.NewReader(bailianSample), "in.jsonl", DefaultOptions()), nil
		},
	}
	if d := shareddata.Dir(); d != "" {
		inputs["mooncake"] = func() (Source, error) {
			f, err := os.ReadFile(shareddata.Mooncake(t, "conversation_trace.jsonl"))
			return NewMooncake(bytes.NewReader(f), "conversation_trace.jsonl", DefaultOptions()), err
		}
	}
	for name, open := range inputs {
		src, err := open()
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadAll(src)
		if err != nil {
			t.Fatal(err)
		}
		src, _ = open()
		var buf bytes.Buffer
		if err := WriteBlocks(&buf, src); err != nil {
			t.Fatal(err)
		}
		back := NewBlocks(&buf, "blocks.jsonl", DefaultOptions())
		got, err := ReadAll(back)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: round trip differs", name)
		}
		if back.Summary().Conversations != src.Summary().Conversations || back.Summary().Linked != src.Summary().Linked {
			t.Errorf("%s: summary %+v, source %+v", name, back.Summary(), src.Summary())
		}
	}
}

func TestBlocksErrors(t *testing.T) {
	ok := `{"t": 1.5, "conv": 0, "input": 20, "output": 3, "block": 16, "hashes": [4, 5]}`
	cases := []struct {
		name, input, field string
		line               int
	}{
		{"not json", "nope", "", 1},
		{"missing t", `{"conv": 0, "input": 20, "output": 3, "block": 16, "hashes": [4, 5]}`, "t", 1},
		{"missing conv", `{"t": 1, "input": 20, "output": 3, "block": 16, "hashes": [4, 5]}`, "conv", 1},
		{"missing block", `{"t": 1, "conv": 0, "input": 20, "output": 3, "hashes": [4, 5]}`, "block", 1},
		{"missing hashes", `{"t": 1, "conv": 0, "input": 20, "output": 3, "block": 16}`, "hashes", 1},
		{"conv skips", `{"t": 1, "conv": 1, "input": 20, "output": 3, "block": 16, "hashes": [4, 5]}`, "conv", 1},
		{"block 0", `{"t": 1, "conv": 0, "input": 0, "output": 3, "block": 0, "hashes": []}`, "block", 1},
		{"block changes", ok + "\n" + strings.Replace(ok, `"block": 16, "hashes": [4, 5]`, `"block": 32, "hashes": [4]`, 1), "block", 2},
		{"chain length", `{"t": 1, "conv": 0, "input": 40, "output": 3, "block": 16, "hashes": [4, 5]}`, "hashes", 1},
		{"time backwards", ok + "\n" + strings.Replace(ok, `"t": 1.5`, `"t": 1`, 1), "t", 2},
		{"negative input", `{"t": 1, "conv": 0, "input": -1, "output": 3, "block": 16, "hashes": []}`, "input", 1},
		{"category not a string", `{"t": 1, "conv": 0, "input": 20, "output": 3, "block": 16, "category": 5, "hashes": [4, 5]}`, "category", 1},
	}
	for _, c := range cases {
		_, err := readString("blocks", c.input, DefaultOptions())
		wantParseError(t, c.name, err, c.line, c.field)
	}
}

// FuzzBlocks checks the blocks reader's invariants on arbitrary input.
func FuzzBlocks(f *testing.F) {
	f.Add([]byte(`{"t": 1.5, "conv": 0, "input": 20, "output": 3, "block": 16, "category": "x", "hashes": [4, 5]}` + "\n" +
		`{"t": 2, "conv": 1, "input": 0, "output": 3, "block": 16, "hashes": []}`))
	f.Add([]byte(`{"t": 1, "conv": 0, "input": 1, "output": 0, "block": 1073741824, "hashes": [0]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, data, "blocks")
	})
}
