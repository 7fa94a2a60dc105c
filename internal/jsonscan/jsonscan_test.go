package jsonscan

import (
	"encoding/json"
	"math"
	"testing"
)

// TestValues checks each reader on hand-written inputs against the values
// a reader of JSON must give (ok = false where the fast path declines).
func TestValues(t *testing.T) {
	ints := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"42,", 42, true}, {"-7}", -7, true},
		{"123456789012345678", 123456789012345678, true},
		{"1234567890123456789", 0, false}, // 19 digits: left to encoding/json
		{"01", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"-", 0, false}, {"1x", 0, false}, {"", 0, false},
	}
	for _, c := range ints {
		var s Scanner
		s.b = []byte(c.in)
		v, ok := s.Int()
		if ok != c.ok || v != c.want {
			t.Errorf("Int(%q) = %d %v, want %d %v", c.in, v, ok, c.want, c.ok)
		}
	}
	floats := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"12.5", 12.5, true}, {"-3", -3, true}, {"1e3", 1000, true}, {"2.5E-1", 0.25, true},
		{"0.1", 0.1, true}, {"1e400", 0, false}, {".5", 0, false}, {"1.", 0, false}, {"1e", 0, false},
		{"00", 0, false}, {"NaN", 0, false}, {"+1", 0, false},
	}
	for _, c := range floats {
		var s Scanner
		s.b = []byte(c.in)
		v, ok := s.Float()
		if ok != c.ok || v != c.want {
			t.Errorf("Float(%q) = %v %v, want %v %v", c.in, v, ok, c.want, c.ok)
		}
	}
	var s Scanner
	s.b = []byte("-0")
	if v, ok := s.Float(); !ok || !math.Signbit(v) {
		t.Errorf("Float(-0) = %v %v, want negative zero", v, ok)
	}
}

// TestObject walks objects key by key and compares what the fast path
// accepts with encoding/json's reading of the same bytes.
func TestObject(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{`{"a": 1, "b": [1, -2, 3], "c": "x"}`, true},
		{` { } `, true},
		{`{"a": 1,}`, false},
		{`{"a": 1} x`, false},
		{`{"a": "\u0041"}`, false},
		{`{"a": null}`, false},
		{`{"a" 1}`, false},
		{`{"a": [1 2]}`, false},
		{`{"a": [1,]}`, false},
		{`[1]`, false},
	}
	for _, c := range cases {
		got := map[string]any{}
		ok := walk(c.in, got)
		if ok != c.ok {
			t.Errorf("%s: fast path ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var ref map[string]any
		if err := json.Unmarshal([]byte(c.in), &ref); err != nil {
			t.Errorf("%s: fast path accepted what encoding/json rejects: %v", c.in, err)
			continue
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(ref)
		if string(a) != string(b) {
			t.Errorf("%s: fast path read %s, encoding/json %s", c.in, a, b)
		}
	}
}

// walk reads an object whose values are numbers, strings or integer arrays.
func walk(in string, out map[string]any) bool {
	var s Scanner
	if !s.Reset([]byte(in)) {
		return false
	}
	for {
		k, end, ok := s.Key()
		if !ok {
			return false
		}
		if end {
			return true
		}
		if s.i >= len(s.b) {
			return false
		}
		switch c := s.b[s.i]; {
		case c == '"':
			v, ok := s.String()
			if !ok {
				return false
			}
			out[string(k)] = string(v)
		case c == '[':
			v, ok := s.Ints([]int64{})
			if !ok {
				return false
			}
			out[string(k)] = v
		default:
			v, ok := s.Float()
			if !ok {
				return false
			}
			out[string(k)] = v
		}
	}
}

// Key returns a key's raw bytes: an escaped key keeps its backslash, so a
// caller that accepts only plain known keys refuses it (and the line goes
// to encoding/json), and an escaped quote ends the raw key early, which
// leaves no colon where one is needed.
func TestKeyRaw(t *testing.T) {
	cases := []struct {
		in, key string
		ok      bool
	}{
		{`{"timestamp": 1}`, "timestamp", true},
		{`{"time\u0073tamp": 1}`, `time\u0073tamp`, true},
		{`{"a\"b": 1}`, "", false},
		{`{"a`, "", false},
	}
	for _, c := range cases {
		var s Scanner
		if !s.Reset([]byte(c.in)) {
			t.Fatalf("%s: Reset refused", c.in)
		}
		k, _, ok := s.Key()
		if ok != c.ok || string(k) != c.key {
			t.Errorf("Key(%s) = %q %v, want %q %v", c.in, k, ok, c.key, c.ok)
		}
	}
}

// Lit consumes exactly its bytes or nothing; End wants '}' and then only
// whitespace.
func TestLitEnd(t *testing.T) {
	var s Scanner
	s.Reset([]byte(`{"a": 1} `))
	if s.Lit(`"b": `) || s.i != 1 {
		t.Fatalf("Lit of other bytes consumed them (at %d)", s.i)
	}
	if !s.Lit(`"a": `) || s.i != 6 {
		t.Fatalf("Lit of the next bytes: at %d, want 6", s.i)
	}
	if v, ok := s.Int(); !ok || v != 1 || !s.End() {
		t.Fatalf("Int then End: %d %v", v, ok)
	}
	for _, in := range []string{`{"a": 1} x`, `{"a": 1`, `{"a": 1]`} {
		s.Reset([]byte(in))
		s.Lit(`"a": `)
		s.Int()
		if s.End() {
			t.Errorf("End accepted %s", in)
		}
	}
	s.Reset([]byte(`{"a`))
	if s.Lit(`"a": `) {
		t.Error("Lit matched past the end of the input")
	}
}
