package importer

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// readWith drains format from data with the fast path on or off and returns
// the requests, the summary and the final error (nil at io.EOF).
func readWith(format string, data []byte, slow bool) ([]blocktrace.Request, Summary, error) {
	opt := DefaultOptions()
	opt.Chain = ChainAny // let lines through to the fields the fuzzer mutates
	src, err := New(bytes.NewReader(data), "in.jsonl", format, opt)
	if err != nil {
		return nil, Summary{}, err
	}
	switch s := src.(type) {
	case *Mooncake:
		s.in.slow = slow
	case *Bailian:
		s.in.slow = slow
	case *Blocks:
		s.in.slow = slow
	}
	var out []blocktrace.Request
	for {
		r, err := src.Next()
		if err == io.EOF {
			return out, src.Summary(), nil
		}
		if err != nil {
			return out, src.Summary(), err
		}
		out = append(out, r)
	}
}

// FuzzFastPaths checks that each format's fast path and encoding/json read
// every input alike: the same requests (hash slices included, nil or not),
// the same summary and the same error message. The input's first byte
// picks the format.
func FuzzFastPaths(f *testing.F) {
	seeds := map[byte][]string{
		0: {`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}`,
			`{"timestamp": 5, "input_length": 0, "output_length": 0, "hash_ids": []}`,
			`{"timestamp": 5, "input_length": 1, "output_length": 0, "hash_ids": [1], "hash_ids": null}`,
			`{"Timestamp": 5.0, "input_length": 1, "output_length": 0, "hash_ids": [-1, 9223372036854775807]}`,
			`{"time\u0073tamp": 5, "input_length": 512, "output_length": 0, "hash_\u0069ds": [7]}`,
			`{"timestamp": 5, "input_length": 512, "output_length": 0, "hash_ids\"": [7]}`,
			`{"timestamp": 5, "input_length": 512, "output_length": 0, "hash_ids": [7], "extra": 1}`,
			`{"timestamp": 5,  "input_length": 512, "output_length": 0, "hash_ids": [7]} `},
		1: {`{"chat_id": 7, "parent_chat_id": -1, "timestamp": 12.5, "input_length": 40, "output_length": 9, "type": "text", "turn": 1, "hash_ids": [3, 4, 5]}`,
			`{"chat_id": 8, "parent_chat_id": 7, "timestamp": 1e1, "input_length": 40, "output_length": 9, "type": "tex\u0074", "turn": 2, "hash_ids": [3]}`},
		2: {`{"t": 0.5, "conv": 0, "input": 600, "output": 20, "block": 512, "hashes": [0, 1]}`,
			`{"t":0,"conv":0,"input":1,"output":0,"block":1,"category":"search","hashes":[7]}`,
			`{"t":0,"conv":0,"input":1,"output":0,"block":1,"category":null,"hashes":[7],"x":{}}`},
	}
	for k, ls := range seeds {
		for _, s := range ls {
			f.Add(append([]byte{k}, s+"\n"+s...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		format := formats[int(data[0])%len(formats)]
		data = data[1:]
		fast, fs, ferr := readWith(format, data, false)
		slow, ss, serr := readWith(format, data, true)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("%s: errors differ: fast %v, encoding/json %v", format, ferr, serr)
		}
		if fs != ss || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: fast path read %+v (%+v), encoding/json %+v (%+v)", format, fast, fs, slow, ss)
		}
		for i := range fast {
			if math.Signbit(fast[i].Time) != math.Signbit(slow[i].Time) {
				t.Fatalf("%s: request %d: time %v against %v", format, i, fast[i].Time, slow[i].Time)
			}
		}
	})
}

// TestLineRuns stores first lines with gaps (a linked request or a blank
// line between conversations) and reads every one back.
func TestLineRuns(t *testing.T) {
	lines := []int{1, 2, 3, 5, 6, 9, 10, 11, 20}
	var r lineRuns
	for _, l := range lines {
		r.add(l)
	}
	for c, want := range lines {
		if got := r.at(c); got != want {
			t.Errorf("conversation %d: line %d, want %d", c, got, want)
		}
	}
	if len(r.conv) != 4 {
		t.Errorf("%d runs, want 4 (1–3, 5–6, 9–11, 20)", len(r.conv))
	}
}

// The hash arrays carved from the slab are each the request's own: their
// capacity is their length, so appending to one reallocates instead of
// writing over the next request's, and writing into one leaves the others.
func TestHashesDisjoint(t *testing.T) {
	data := []byte(`{"timestamp": 0, "input_length": 1024, "output_length": 0, "hash_ids": [1, 2]}
{"timestamp": 1, "input_length": 512, "output_length": 0, "hash_ids": [3]}
{"timestamp": 2, "input_length": 1024, "output_length": 0, "hash_ids": [4, 5]}
`)
	rs, _, err := readWith("mooncake", data, false)
	if err != nil || len(rs) != 3 {
		t.Fatalf("read %d requests, %v", len(rs), err)
	}
	for i, r := range rs {
		if cap(r.Hashes) != len(r.Hashes) {
			t.Fatalf("request %d: capacity %d for %d hashes", i, cap(r.Hashes), len(r.Hashes))
		}
	}
	_ = append(rs[0].Hashes, 99)
	rs[2].Hashes[0] = 77
	if rs[1].Hashes[0] != 3 || rs[0].Hashes[1] != 2 || rs[2].Hashes[1] != 5 {
		t.Fatalf("requests share memory: %v %v %v", rs[0].Hashes, rs[1].Hashes, rs[2].Hashes)
	}
}
