package schedule

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/tailbound/tailbound/internal/jsonscan"
)

// Shrink is one eviction of a decision-form line: conversation Conv (its
// name in the trace) is cut back to Keep tokens. Its JSON form is the pair
// ["conv", tokens].
type Shrink struct {
	Conv string
	Keep int64
}

// MarshalJSON writes the pair ["conv", tokens].
func (s Shrink) MarshalJSON() ([]byte, error) {
	name, err := json.Marshal(s.Conv)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "[%s,%d]", name, s.Keep), nil
}

// UnmarshalJSON reads the pair ["conv", tokens].
func (s *Shrink) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("want a pair [conversation, tokens], got %s", b)
	}
	if err := json.Unmarshal(pair[0], &s.Conv); err != nil {
		return fmt.Errorf("want a conversation name first, got %s", pair[0])
	}
	if err := json.Unmarshal(pair[1], &s.Keep); err != nil {
		return fmt.Errorf("want whole tokens second, got %s", pair[1])
	}
	return nil
}

// Line is one line of a schedule (see the package documentation); nil
// fields were absent.
type Line struct {
	// No is the 1-based line number in the file.
	No int `json:"-"`
	// Turn is the 0-based index of the turn in the trace.
	Turn *int `json:"turn,omitempty"`
	// Conv is the turn's conversation name.
	Conv *string `json:"conv,omitempty"`
	// ConvTurn is the 0-based index of the turn within its conversation.
	ConvTurn *int `json:"conv_turn,omitempty"`
	// Cached is x_k, tokens cached for the conversation when the turn
	// arrived.
	Cached *int64 `json:"cached,omitempty"`
	// Keep is the tokens the conversation keeps after its turn.
	Keep *int64 `json:"keep,omitempty"`
	// Shrink are the evictions that follow the keep, in order.
	Shrink []Shrink `json:"shrink,omitempty"`
}

// Schedule is a schedule file read into memory, not yet bound to a trace.
type Schedule struct {
	// Name is the file name used in messages.
	Name string
	// Lines are the non-blank lines in file order.
	Lines []Line
	// Decisions is true for the decision form (lines have "keep"), false
	// for the arrival form.
	Decisions bool
}

// maxLine bounds one schedule line, bytes.
const maxLine = 1 << 24

// ReadFile reads the schedule at path.
func ReadFile(path string) (*Schedule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// ReadFiles reads the schedules at paths, in order.
func ReadFiles(paths []string) ([]*Schedule, error) {
	var out []*Schedule
	for _, p := range paths {
		s, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Read reads a schedule from r; name is used in messages. It checks the
// syntax of every line and that all lines have the same form; the model's
// rules are checked when the schedule is replayed against a trace
// (Policy).
func Read(r io.Reader, name string) (*Schedule, error) {
	s := &Schedule{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	no := 0
	for sc.Scan() {
		no++
		b := bytes.TrimSpace(jsonscan.StripBOM(sc.Bytes(), no))
		if len(b) == 0 {
			continue
		}
		l := Line{No: no}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a schedule line (%v)", name, no, err)
		}
		if d.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line", name, no)
		}
		if err := s.add(l); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, no+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(s.Lines) == 0 {
		return nil, fmt.Errorf("%s: empty schedule (one line per turn of the trace expected)", name)
	}
	return s, nil
}

// add checks the fields of one line on their own and against the form of
// the first line.
func (s *Schedule) add(l Line) error {
	at := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", s.Name, l.No, fmt.Sprintf(format, a...))
	}
	switch {
	case l.Turn != nil && *l.Turn < 0:
		return at("field \"turn\": %d is negative (0-based)", *l.Turn)
	case l.ConvTurn != nil && *l.ConvTurn < 0:
		return at("field \"conv_turn\": %d is negative (0-based)", *l.ConvTurn)
	case l.ConvTurn != nil && l.Conv == nil:
		return at("field \"conv_turn\" needs \"conv\"")
	case l.ConvTurn != nil && l.Turn != nil:
		return at("give \"turn\" or \"conv\" with \"conv_turn\", not both")
	}
	decision := l.Keep != nil
	if len(s.Lines) == 0 {
		s.Decisions = decision
	}
	switch {
	case decision != s.Decisions && s.Decisions:
		return at("no \"keep\", but line %d has one (a schedule gives decisions on every line or on none)", s.Lines[0].No)
	case decision != s.Decisions:
		return at("has \"keep\", but line %d has none (a schedule gives decisions on every line or on none)", s.Lines[0].No)
	case !decision && l.Cached == nil:
		return at("no \"cached\" (an arrival-form line gives the tokens cached when its turn arrived)")
	case !decision && l.Shrink != nil:
		return at("\"shrink\" without \"keep\"")
	}
	s.Lines = append(s.Lines, l)
	return nil
}

// Write writes lines as a schedule, one JSON object per line.
func Write(w io.Writer, lines []Line) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func quote(name string) string {
	b, err := json.Marshal(name)
	if err != nil {
		return strconv.Quote(name)
	}
	return string(b)
}
