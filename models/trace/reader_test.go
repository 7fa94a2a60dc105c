package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

func TestReaderErrors(t *testing.T) {
	cases := []struct {
		name, input, field string
		line               int
	}{
		{"not json", `{"t": 0, "conv": "a", "prompt": 1, "response": 0}` + "\nhello\n", "", 2},
		{"truncated", `{"t": 0, "conv": "a", "prompt": 1`, "", 1},
		{"negative response", `{"t": 0, "conv": "a", "prompt": 1, "response": -3}`, "response", 1},
		{"zero prompt", `{"t": 0, "conv": "a", "prompt": 0, "response": 3}`, "prompt", 1},
		{"non-numeric prompt", `{"t": 0, "conv": "a", "prompt": "ten", "response": 3}`, "prompt", 1},
		{"fractional prompt", `{"t": 0, "conv": "a", "prompt": 1.5, "response": 3}`, "prompt", 1},
		{"missing conv", `{"t": 0, "prompt": 1, "response": 3}`, "conv", 1},
		{"missing t", `{"conv": "a", "prompt": 1, "response": 3}`, "t", 1},
		{"missing response", `{"t": 1, "conv": "a", "prompt": 1}`, "response", 1},
		{"time backwards", "{\"t\": 5, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n\n{\"t\": 4, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}", "t", 3},
		{"negative time", `{"t": -1, "conv": "a", "prompt": 1, "response": 0}`, "t", 1},
		{"conv not a string", `{"t": 0, "conv": 7, "prompt": 1, "response": 0}`, "conv", 1},
		// encoding/json matches keys case-insensitively and keeps the last
		// of two; the format does neither (issue 35, item 12)
		{"key in upper case", `{"t": 0, "conv": "a", "PROMPT": 1, "response": 0}`, "PROMPT", 1},
		{"key in mixed case", `{"T": 0, "conv": "a", "prompt": 1, "response": 0}`, "T", 1},
		{"duplicate key", `{"t": 0, "conv": "a", "prompt": 1, "prompt": 2, "response": 0}`, "prompt", 1},
		{"duplicate optional key", `{"t": 0, "conv": "a", "prompt": 1, "response": 0, "user": "u", "user": "v"}`, "user", 1},
		{"case variant of an optional key", `{"t": 0, "conv": "a", "prompt": 1, "response": 0, "Category": "x"}`, "Category", 1},
	}
	for _, c := range cases {
		_, err := ReadAll(strings.NewReader(c.input), "x.jsonl")
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a ParseError", c.name, err)
			continue
		}
		if pe.Line != c.line || pe.Field != c.field || pe.File != "x.jsonl" {
			t.Errorf("%s: error at %s:%d field %q, want line %d field %q", c.name, pe.File, pe.Line, pe.Field, c.line, c.field)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	in := &Trace{}
	in.Append(0, "a", 120, 300)
	in.Append(1.5, "b", 7, 0)
	in.Append(12.25, "a", 50, 9)
	in.Turns[1].Category = "search"
	var buf bytes.Buffer
	if err := WriteTrace(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadAll(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Turns) != 3 || out.Names[0] != "a" || out.Names[1] != "b" {
		t.Fatalf("round trip: %+v", out)
	}
	for i := range in.Turns {
		if in.Turns[i] != out.Turns[i] {
			t.Errorf("turn %d: wrote %+v, read %+v", i, in.Turns[i], out.Turns[i])
		}
	}
}

func TestHindsight(t *testing.T) {
	tr := &Trace{}
	for _, c := range []string{"a", "b", "a", "c", "b", "a"} {
		tr.Append(0, c, 1, 0)
	}
	tr.Turns[2].Prompt = 9
	h := NewHindsight(tr.Turns, tr.Conversations())
	want := []int{2, 4, 5, -1, -1, -1}
	for k, w := range want {
		if h.Next[k] != w {
			t.Errorf("next of turn %d = %d, want %d", k, h.Next[k], w)
		}
	}
	if q, ok := h.NextPrompt(0); !ok || q != 9 {
		t.Errorf("next prompt of turn 0 = %d %v, want 9 true", q, ok)
	}
}

// FuzzReader checks that no input makes the reader panic, that every error
// is a one-line ParseError naming a line inside the input, and that what it
// accepts satisfies the format's rules.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"t": 12.5, "conv": "a", "prompt": 120, "response": 300}`))
	f.Add([]byte("{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0, \"category\": \"x\"}\n{\"t\": 0}"))
	f.Add([]byte(`{"t": 1e400, "conv": "", "prompt": -1}`))
	f.Add([]byte("\n\n\x00{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		last := -1.0
		for {
			turn, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is not a ParseError", err)
				}
				if pe.Line < 1 || pe.Line > bytes.Count(data, []byte("\n"))+1 || strings.Contains(err.Error(), "\n") {
					t.Fatalf("bad error %q", err)
				}
				return
			}
			if turn.Prompt < 1 || turn.Response < 0 || turn.Time < last {
				t.Fatalf("accepted an invalid turn %+v", turn)
			}
			last = turn.Time
		}
	})
}

// TestLengthBounds: lengths past 2^40 tokens per turn, or a trace whose
// total prefill load passes 2^60 tokens, are refused at their line and
// field (two 5·10^18-token prompts once overflowed the engines' sums).
func TestLengthBounds(t *testing.T) {
	big := int64(1) << 40
	cases := []struct {
		in, want string
	}{
		{`{"t":0,"conv":"a","prompt":5000000000000000000,"response":0}`, `x:1: field "prompt": 5000000000000000000 tokens exceeds`},
		{`{"t":0,"conv":"a","prompt":1,"response":1099511627777}`, `x:1: field "response": 1099511627777 tokens exceeds`},
		{fmt.Sprintf(`{"t":0,"conv":"a","prompt":%d,"response":0}`, big), ""},
	}
	for _, c := range cases {
		_, err := ReadAll(strings.NewReader(c.in+"\n"), "x")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v, want accepted (exactly at the bound)", c.in, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want prefix %q", c.in, err, c.want)
		}
	}
	// Turns of one conversation, each 2^40 prompt tokens: turn k's load is
	// D_k = k·2^40, so k turns sum to 2^40·k(k+1)/2, which passes 2^60 at
	// the first k with k(k+1)/2 > 2^20 = 1,048,576: 1447·1448/2 =
	// 1,047,628 is below, 1448·1449/2 = 1,049,076 above, so line 1448.
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, `{"t":%d,"conv":"a","prompt":%d,"response":0}`+"\n", i, big)
	}
	_, err := ReadAll(strings.NewReader(sb.String()), "x")
	if err == nil || !strings.HasPrefix(err.Error(), `x:1448: field "prompt": the trace's total prefill load`) {
		t.Errorf("load bound: %v, want it at line 1448", err)
	}
}

// TestNoTurns: an empty or blank-only trace is an error naming the file,
// not a trace of zero turns whose metrics would print as zeros.
func TestNoTurns(t *testing.T) {
	for _, in := range []string{"", "\n\n  \n"} {
		_, err := ReadAll(strings.NewReader(in), "e.jsonl")
		if !errors.Is(err, ErrNoTurns) || !strings.HasPrefix(err.Error(), "e.jsonl") {
			t.Errorf("%q: error %v, want ErrNoTurns naming e.jsonl", in, err)
		}
	}
}

// TestOptionalTime: with OptionalTime a line without t takes the previous
// turn's time (0 first); a present t is still checked.
func TestOptionalTime(t *testing.T) {
	in := `{"conv": "a", "prompt": 1, "response": 0}
{"t": 2.5, "conv": "b", "prompt": 1, "response": 0}
{"conv": "a", "prompt": 1, "response": 0}
{"t": 1, "conv": "a", "prompt": 1, "response": 0}
`
	rd := NewReader(strings.NewReader(in), "x")
	rd.OptionalTime = true
	for i, want := range []float64{0, 2.5, 2.5} {
		turn, err := rd.Next()
		if err != nil || turn.Time != want {
			t.Fatalf("turn %d: time %v, %v; want %v", i, turn.Time, err, want)
		}
	}
	if _, err := rd.Next(); err == nil || !strings.Contains(err.Error(), `x:4: field "t"`) {
		t.Errorf("time going back: %v", err)
	}
}

// drain drains a reader with the fast path on or off, returning its turns
// and its final error (nil at io.EOF).
func drain(data []byte, slow bool) ([]Turn, []string, error) {
	r := NewReader(bytes.NewReader(data), "fuzz")
	r.slow = slow
	var out []Turn
	for {
		t, err := r.Next()
		if err == io.EOF {
			return out, r.names, nil
		}
		if err != nil {
			return out, r.names, err
		}
		out = append(out, t)
	}
}

// FuzzFastPath checks that the hand-written fast path and encoding/json
// read every input alike: the same turns, the same conversation names and
// the same error (message included).
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{
		`{"t": 12.5, "conv": "a", "prompt": 120, "response": 300}`,
		`{"t":0,"conv":"x","prompt":1,"response":0,"category":"search","user":"u7"}`,
		`{"t": 1e3, "conv": "a", "prompt": 1, "response": 0, "extra": [1, {"a": null}]}`,
		`{"T": 1, "Conv": "a", "prompt": 1, "response": 0}`,
		`{"t": 1, "conv": "a", "prompt": 1, "response": 0, "t": 2}`,
		`{"t": -0, "conv": "\u00e9", "prompt": 10, "response": 0e5}`,
		`{"t": 1.5, "conv": "a", "prompt": 1.0, "response": 00}`,
		`{"t": 1, "conv": "a", "prompt": 99999999999999999999, "response": 1} x`,
		`{"t": null, "conv": "a", "prompt": 1, "response": 1, "category": null}`,
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n{\"t\": 2.9999999999999999999, \"conv\": \"b\", \"prompt\": 1, \"response\": 1}",
		// The Writer's layout (Reader.canonical), and lines that leave it
		// late: a duplicate key, a trailing byte, a leading zero.
		"{\"t\":0.5386830305870847,\"conv\":\"c0\",\"prompt\":18,\"response\":229}\n{\"t\":2.5,\"conv\":\"c0\",\"prompt\":1,\"response\":0}",
		`{"t":1,"conv":"a","prompt":1,"response":1,"t":2}`,
		`{"t":1,"conv":"a","prompt":1,"response":1}x`,
		`{"t":1,"conv":"a","prompt":01,"response":1}`,
		`{"t":1,"conv":"a","prompt":1,"response":-1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fn, ferr := drain(data, false)
		slow, sn, serr := drain(data, true)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("errors differ: fast %v, encoding/json %v", ferr, serr)
		}
		if len(fast) != len(slow) || len(fn) != len(sn) {
			t.Fatalf("fast path read %d turns of %d conversations, encoding/json %d of %d", len(fast), len(fn), len(slow), len(sn))
		}
		for i := range fast {
			a, b := fast[i], slow[i]
			if a != b && !(math.IsNaN(a.Time) && math.IsNaN(b.Time)) || math.Signbit(a.Time) != math.Signbit(b.Time) {
				t.Fatalf("turn %d: fast %+v, encoding/json %+v", i, a, b)
			}
		}
		for i := range fn {
			if fn[i] != sn[i] {
				t.Fatalf("conversation %d: fast %q, encoding/json %q", i, fn[i], sn[i])
			}
		}
	})
}

// TestUnknownKeysIgnored: keys that are no field's in any case are still
// ignored, so strictKeys refuses only what encoding/json would misread.
func TestUnknownKeysIgnored(t *testing.T) {
	tr, err := ReadAll(strings.NewReader(`{"t": 0, "conv": "a", "prompt": 3, "response": 1, "extra": {"prompt": 9}, "promptx": 2}`), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Turns[0].Prompt; got != 3 {
		t.Errorf("prompt %d, want 3", got)
	}
}
