package importer

import (
	"errors"
	"strings"
	"testing"
)

// wantParseError checks that err is a one-line ParseError at file name,
// line and field.
func wantParseError(t *testing.T, label string, err error, line int, field string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%s: error %v, want a ParseError", label, err)
		return
	}
	if pe.File != "in.jsonl" || pe.Line != line || pe.Field != field {
		t.Errorf("%s: error %q at %s:%d field %q, want line %d field %q", label, err, pe.File, pe.Line, pe.Field, line, field)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: error spans lines: %q", label, err)
	}
}

// readString reads a whole trace of format from s.
func readString(format, s string, opt Options) ([]Summary, error) {
	src, err := New(strings.NewReader(s), "in.jsonl", format, opt)
	if err != nil {
		return nil, err
	}
	_, err = ReadAll(src)
	return []Summary{src.Summary()}, err
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
