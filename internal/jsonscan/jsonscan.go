// Package jsonscan is a fast path for reading flat JSON objects of known
// keys, the shape of one line of tailbound's trace formats. It reads a
// line's bytes in place and recognises only the plain forms of JSON
// values: integers without fraction or exponent, numbers, strings of
// printable ASCII without escapes, arrays of integers. Anything else —
// escapes, null, nested values, a key it was not asked about, a duplicate
// key, malformed JSON — makes it report "not recognised" (ok = false), and
// the caller then decodes the line with encoding/json, which either gives
// the same values or the error message the user sees. A value the scanner
// does return is the value encoding/json gives for that line; the callers'
// fuzz tests check this.
package jsonscan

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// Scanner reads one JSON object from a byte slice. The zero value is not
// usable; call Reset.
type Scanner struct {
	b []byte
	i int
	// first is true before the object's first key.
	first bool
}

// Reset starts reading the object in b (leading and trailing JSON
// whitespace allowed). It reports false when b does not start with '{'.
func (s *Scanner) Reset(b []byte) bool {
	s.b, s.i, s.first = b, 0, true
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	return true
}

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Key returns the next key of the object, its colon consumed. At the
// closing brace it returns end = true and requires that only whitespace
// follows it. ok is false when the bytes are not a plain continuation of
// the object.
//
// The key is the raw bytes between its quotes, not checked for escapes or
// control characters (the scan to the closing quote is then one
// IndexByte): a caller must accept only the keys it knows, all plain
// ASCII, so that a key written with an escape (its raw bytes then hold a
// backslash) is refused as an unknown key and decoded by the fallback.
func (s *Scanner) Key() (key []byte, end, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return nil, false, false
	}
	switch c := s.b[s.i]; {
	case c == '}':
		s.i++
		s.ws()
		return nil, true, s.i == len(s.b)
	case s.first:
		s.first = false
	case c != ',':
		return nil, false, false
	default:
		s.i++
		s.ws()
	}
	key, ok = s.rawString()
	if !ok {
		return nil, false, false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false, false
	}
	s.i++
	s.ws()
	return key, false, true
}

// String reads a string of printable ASCII without escapes and returns its
// bytes (aliasing the input).
func (s *Scanner) String() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		if c == '"' {
			s.i = j + 1
			return s.b[start:j], true
		}
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return nil, false
		}
	}
	return nil, false
}

// Lit consumes the bytes lit if the input continues with exactly them and
// reports whether it did. A caller that knows the layout its files are
// usually written in matches the punctuation and keys between values in
// one comparison each (for example `, "input_length": `) and falls back
// to Key for any other layout; lit must then be what Key would accept
// there.
func (s *Scanner) Lit(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	s.first = false
	return true
}

// End reports whether the object closes here: a '}' followed by nothing
// but whitespace.
func (s *Scanner) End() bool {
	if s.i >= len(s.b) || s.b[s.i] != '}' {
		return false
	}
	s.i++
	s.ws()
	return s.i == len(s.b)
}

// rawString reads a string up to the first '"' and returns its raw bytes
// (aliasing the input), escapes and all; see Key for why that is safe
// for keys.
func (s *Scanner) rawString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	n := bytes.IndexByte(s.b[start:], '"')
	if n < 0 {
		return nil, false
	}
	s.i = start + n + 1
	return s.b[start : start+n], true
}

// delim reports whether the byte at j may follow a value.
func (s *Scanner) delim(j int) bool {
	if j >= len(s.b) {
		return true // the caller's next step decides
	}
	switch s.b[j] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// Int reads a JSON integer (no fraction, no exponent) of at most 18
// digits, which fits an int64.
func (s *Scanner) Int() (int64, bool) {
	j, n, neg, d, ok := s.integer()
	if !ok || d > 18 || !s.delim(j) {
		return 0, false
	}
	s.i = j
	if neg {
		n = -n
	}
	return n, true
}

// integer scans a JSON number's sign and integer part at s.i: it returns
// the position after them, their value (exact for up to 18 digits), the
// sign and the digit count; ok is false without digits or with a leading
// zero before other digits. s.i is not moved.
func (s *Scanner) integer() (j int, n int64, neg bool, d int, ok bool) {
	j = s.i
	if j < len(s.b) && s.b[j] == '-' {
		neg = true
		j++
	}
	start := j
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		n = n*10 + int64(s.b[j]-'0')
		j++
	}
	d = j - start
	return j, n, neg, d, d > 0 && !(d > 1 && s.b[start] == '0')
}

// Float reads a JSON number as encoding/json does into a float64.
func (s *Scanner) Float() (float64, bool) {
	j, n, neg, d, ok := s.integer()
	if !ok {
		return 0, false
	}
	simple := d <= 15 // exactly representable: float64(n) is the parse
	if j < len(s.b) && s.b[j] == '.' {
		simple = false
		j++
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		if j == k {
			return 0, false
		}
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		simple = false
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		if j == k {
			return 0, false
		}
	}
	if !s.delim(j) {
		return 0, false
	}
	var f float64
	if simple {
		f = float64(n)
		if neg {
			f = -f
		}
	} else {
		lit := s.b[s.i:j]
		// The string does not outlive the call: on error it is dropped.
		v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(lit), len(lit)), 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, false
		}
		f = v
	}
	s.i = j
	return f, true
}

// Ints reads an array of JSON integers, appending them to dst[:0]. An
// empty array gives a non-nil empty slice when dst is non-nil.
func (s *Scanner) Ints(dst []int64) ([]int64, bool) {
	dst = dst[:0]
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil, false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return dst, true
	}
	for {
		v, ok := s.Int()
		if !ok {
			return nil, false
		}
		dst = append(dst, v)
		s.ws()
		if s.i >= len(s.b) {
			return nil, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return dst, true
		default:
			return nil, false
		}
	}
}
