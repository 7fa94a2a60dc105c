package importer

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// bailianSample is a hand-written trace in the published Bailian schema
// (16-token blocks); the comments give the expected conversation and
// canonical prompt worked by hand.
const bailianSample = `{"chat_id": 10, "parent_chat_id": -1, "timestamp": 0.0, "input_length": 40, "output_length": 9, "type": "text", "turn": 1, "hash_ids": [1, 2, 3]}
{"chat_id": 11, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 20, "output_length": 5, "type": "search", "turn": 1, "hash_ids": [7, 8]}

{"chat_id": 12, "parent_chat_id": 10, "timestamp": 3.0, "input_length": 64, "output_length": 7, "type": "text", "turn": 2, "hash_ids": [1, 2, 4, 5]}
{"chat_id": 13, "parent_chat_id": 99, "timestamp": 4.0, "input_length": 33, "output_length": 1, "type": "file", "turn": 3, "hash_ids": [9, 10, 11]}
{"chat_id": 14, "parent_chat_id": 10, "timestamp": 5.0, "input_length": 50, "output_length": 2, "type": "text", "turn": 2, "hash_ids": [1, 2, 12, 13]}
{"chat_id": 15, "parent_chat_id": 12, "timestamp": 6.0, "input_length": 70, "output_length": 2, "type": "text", "turn": 3, "hash_ids": [1, 2, 4, 14, 15], "user_id": "ignored"}
{"chat_id": 16, "parent_chat_id": 11, "timestamp": 6.0, "input_length": 28, "output_length": 4, "type": "search", "turn": 5, "hash_ids": [7, 16]}
{"chat_id": 17, "parent_chat_id": -1, "timestamp": 7.25, "input_length": 0, "output_length": 3, "type": "image", "turn": 1, "hash_ids": []}
{"chat_id": 18, "parent_chat_id": -1, "timestamp": 8, "input_length": 16, "output_length": 0, "type": "text", "turn": 2, "hash_ids": [17]}
`

func TestBailianHandWorked(t *testing.T) {
	src := NewBailian(strings.NewReader(bailianSample), "in.jsonl", DefaultOptions())
	var buf bytes.Buffer
	c, err := WriteCanonical(&buf, src)
	if err != nil {
		t.Fatal(err)
	}
	// Line 3 continues 10 (prompt 64−40−9 = 15); 13's parent is absent
	// (orphan); 14's parent 10 already has a later turn (fork); 15
	// continues 12 but re-sends 70 < 40+9+15+7 = 71 tokens (fallback,
	// prompt 1, excess 71+1−70 = 2); 16 continues 11 (28−20−5 = 3) with
	// turn 5 instead of 2; 17 has an input of 0 (fallback, excess 1); 18
	// is a first turn numbered 2.
	want := []trace.Record{
		{T: 0, Conv: "10", Prompt: 40, Response: 9, Category: "text"},
		{T: 0.5, Conv: "11", Prompt: 20, Response: 5, Category: "search"},
		{T: 3, Conv: "10", Prompt: 15, Response: 7, Category: "text"},
		{T: 4, Conv: "13", Prompt: 33, Response: 1, Category: "file"},
		{T: 5, Conv: "14", Prompt: 50, Response: 2, Category: "text"},
		{T: 6, Conv: "10", Prompt: 1, Response: 2, Category: "text"},
		{T: 6, Conv: "11", Prompt: 3, Response: 4, Category: "search"},
		{T: 7.25, Conv: "17", Prompt: 1, Response: 3, Category: "image"},
		{T: 8, Conv: "18", Prompt: 16, Response: 0, Category: "text"},
	}
	got, err := trace.ReadAll(&buf, "out")
	if err != nil {
		t.Fatalf("canonical output does not read back: %v", err)
	}
	if len(got.Turns) != len(want) {
		t.Fatalf("%d turns, want %d", len(got.Turns), len(want))
	}
	for i, w := range want {
		u := got.Turns[i]
		r := trace.Record{T: u.Time, Conv: got.Names[u.Conv], Prompt: u.Prompt, Response: u.Response, Category: u.Category}
		if r != w {
			t.Errorf("turn %d: %+v, want %+v", i, r, w)
		}
	}
	wantSum := Summary{Requests: 9, Linked: 3, Conversations: 6, Orphans: 1, Forks: 1, TurnMismatches: 2}
	if s := src.Summary(); s != wantSum {
		t.Errorf("summary %+v, want %+v", s, wantSum)
	}
	if c.Fallbacks != 2 || c.FallbackFollowUps != 1 || c.FollowUps != 3 || c.ExcessTokens != 3 || c.PairShort != 1 {
		t.Errorf("canonicalizer %+v, want 2 fallbacks (1 follow-up) of 3 follow-ups, 3 excess tokens", *c)
	}
}

func TestBailianStream(t *testing.T) {
	s, err := ReadAll(NewBailian(strings.NewReader(bailianSample), "in.jsonl", DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	var convs []int
	for _, r := range s.Requests {
		convs = append(convs, r.Conv)
	}
	if want := []int{0, 1, 0, 2, 3, 0, 1, 4, 5}; !slices.Equal(convs, want) {
		t.Errorf("conversations %v, want %v", convs, want)
	}
	if s.BlockTokens != 16 || !slices.Equal(s.Requests[5].Hashes, []int64{1, 2, 4, 14, 15}) || s.Requests[7].Time != 7.25 {
		t.Errorf("stream %+v", s)
	}
}

func TestBailianErrors(t *testing.T) {
	line := func(kv ...string) string {
		fields := map[string]string{"chat_id": "1", "parent_chat_id": "-1", "timestamp": "2.5", "input_length": "20",
			"output_length": "3", "type": `"text"`, "turn": "1", "hash_ids": "[4, 5]"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(fields, kv[i])
			} else {
				fields[kv[i]] = kv[i+1]
			}
		}
		var parts []string
		for _, k := range []string{"chat_id", "parent_chat_id", "timestamp", "input_length", "output_length", "type", "turn", "hash_ids"} {
			if v, ok := fields[k]; ok {
				parts = append(parts, `"`+k+`": `+v)
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	ok := line()
	cases := []struct {
		name, input, field string
		line               int
	}{
		{"not json", ok + "\n{", "", 2},
		{"missing chat_id", line("chat_id", ""), "chat_id", 1},
		{"missing parent", line("parent_chat_id", ""), "parent_chat_id", 1},
		{"missing timestamp", line("timestamp", ""), "timestamp", 1},
		{"missing input", line("input_length", ""), "input_length", 1},
		{"missing output", line("output_length", ""), "output_length", 1},
		{"missing type", line("type", ""), "type", 1},
		{"missing turn", line("turn", ""), "turn", 1},
		{"missing hash_ids", line("hash_ids", ""), "hash_ids", 1},
		{"string chat_id", line("chat_id", `"abc"`), "chat_id", 1},
		{"negative chat_id", line("chat_id", "-1"), "chat_id", 1},
		{"parent -2", line("parent_chat_id", "-2"), "parent_chat_id", 1},
		{"own parent", line("parent_chat_id", "1"), "parent_chat_id", 1},
		{"duplicate chat_id", ok + "\n" + line("timestamp", "3"), "chat_id", 2},
		{"negative timestamp", line("timestamp", "-0.5"), "timestamp", 1},
		{"string timestamp", line("timestamp", `"2025-01-01"`), "timestamp", 1},
		{"time backwards", ok + "\n" + line("chat_id", "2", "timestamp", "2.25"), "timestamp", 2},
		{"negative input", line("input_length", "-20", "hash_ids", "[]"), "input_length", 1},
		{"negative output", line("output_length", "-1"), "output_length", 1},
		{"unknown type", line("type", `"api"`), "type", 1},
		{"type not a string", line("type", "3"), "type", 1},
		{"turn 0", line("turn", "0"), "turn", 1},
		{"fractional turn", line("turn", "1.5"), "turn", 1},
		{"chain too short", line("input_length", "33"), "hash_ids", 1},
		{"chain too long", line("input_length", "16"), "hash_ids", 1},
		{"id not an integer", line("hash_ids", "[4, 5e0]"), "hash_ids", 1},
		{"hash_ids not an array", line("hash_ids", `"4,5"`), "hash_ids", 1},
	}
	for _, c := range cases {
		_, err := readString("bailian", c.input, DefaultOptions())
		wantParseError(t, c.name, err, c.line, c.field)
	}
	if _, err := readString("bailian", line("type", `"api"`), Options{ExtraTypes: []string{"api"}}); err != nil {
		t.Errorf("extra type api: %v", err)
	}
}

// FuzzBailian checks the reader's invariants on arbitrary input.
func FuzzBailian(f *testing.F) {
	f.Add([]byte(bailianSample))
	f.Add([]byte(`{"chat_id": 1, "parent_chat_id": 1, "timestamp": 1e308, "input_length": 1, "output_length": 0, "type": "text", "turn": 1, "hash_ids": [1]}`))
	f.Add([]byte(`{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0, "input_length": 17, "output_length": 0, "type": "", "turn": 9999999999, "hash_ids": [1, -2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, data, "bailian")
	})
}
