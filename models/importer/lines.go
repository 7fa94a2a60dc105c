package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tailbound/tailbound/internal/jsonscan"
)

// defaultMaxLine bounds one line (bytes) unless Options.MaxLineBytes says
// otherwise: a 1M-token prompt in 16-token blocks is about 0.7 MB of ids.
const defaultMaxLine = 64 << 20

// lines yields the non-blank lines of a JSONL file with their numbers.
type lines struct {
	name string
	sc   *bufio.Scanner
	max  int
	line int
	// js and ids are the fast path's scanner and hash scratch, slab the
	// store the short hash arrays handed out are carved from (fast.go).
	js   jsonscan.Scanner
	ids  []int64
	slab []int64
	// slow turns the fast path off, so that tests can compare the two.
	slow bool
}

func newLines(r io.Reader, name string, max int) *lines {
	if max <= 0 {
		max = defaultMaxLine
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), max)
	return &lines{name: name, sc: sc, max: max}
}

// next returns the next non-blank line (trimmed), io.EOF at the end, or an
// error naming the line.
func (l *lines) next() ([]byte, error) {
	for l.sc.Scan() {
		l.line++
		b := bytes.TrimSpace(jsonscan.StripBOM(l.sc.Bytes(), l.line))
		if len(b) > 0 {
			return b, nil
		}
	}
	if err := l.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{File: l.name, Line: l.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", l.max)}
		}
		return nil, fmt.Errorf("%s: line %d: %w", l.name, l.line+1, err)
	}
	return nil, io.EOF
}

// fail returns a ParseError at the current line.
func (l *lines) fail(field, format string, a ...any) error {
	return &ParseError{File: l.name, Line: l.line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// decode unmarshals one line into v (a struct of pointer fields), turning
// JSON errors into ParseErrors that name the field.
func (l *lines) decode(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field, _, _ := strings.Cut(te.Field, ".")
		if field == "" {
			return l.fail("", "not a JSON object (got JSON %s)", te.Value)
		}
		return l.fail(field, "want %s, got JSON %s", typeName(te.Type.String()), te.Value)
	}
	return l.fail("", "not a JSON object: %v", oneLine(err.Error()))
}

// typeName says what a Go type means in the trace formats.
func typeName(t string) string {
	switch t {
	case "int64", "int":
		return "an integer"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "[]int64":
		return "an array of integers"
	}
	return t
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// finite reports whether x is a finite float.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkChain validates the length of the chain in field, n blocks long, for
// input tokens.
func (l *lines) checkChain(field string, rule ChainRule, input int64, n, block int) error {
	want, ok := rule.want(input, block)
	if ok && int64(n) != want {
		// Not "see --chain-length": only import and characterize have it,
		// and simulate, gap and solve read such traces too (issue 35 item 8).
		return l.fail(field, "%d blocks for an input of %d tokens, want %d (%s(%d/%d)); import and characterize take --chain-length floor|any for such traces",
			n, input, want, rule, input, block)
	}
	return nil
}
