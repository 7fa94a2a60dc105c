package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/tailbound/tailbound/internal/jsonscan"
)

// ParseError is a malformed line: it names the file, the 1-based line and the
// offending field, so that a user can fix the input.
type ParseError struct {
	File  string
	Line  int
	Field string
	Msg   string
	err   error // the cause, for errors.Is (ErrNoTurns), or nil
}

// Unwrap returns the cause of the error, if one was recorded.
func (e *ParseError) Unwrap() error { return e.err }

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %q: %s", e.File, e.Line, e.Field, e.Msg)
}

// maxLine bounds one trace line (bytes, without its "\n" and a "\r"
// before it): a line of exactly maxLine bytes is read, a longer one is
// rejected rather than buffered without limit.
const maxLine = 1 << 20

// Bounds on lengths, so that every sum the engines form (a history, a
// prefill load, the trace's total load, a TTFT histogram index) fits in an
// int64 with room to spare. A real turn is far below them: 2^40 tokens is
// about 10^12, four orders of magnitude beyond any model's context.
const (
	// MaxTurnTokens bounds a prompt or a response, tokens (2^40).
	MaxTurnTokens = 1 << 40
	// MaxTotalLoadTokens bounds the trace's total prefill load Σ_k D_k,
	// tokens (2^60); a conversation's history is bounded by it too.
	MaxTotalLoadTokens = 1 << 60
)

// Reader streams a canonical trace, validating every line. It interns
// conversation names into dense ids, so memory grows with the number of
// conversations, not of turns.
type Reader struct {
	// OptionalTime accepts lines without "t": such a turn takes the
	// previous turn's time (0 for the first), so its place in the file is
	// its arrival order. For traces whose times are to be synthesized
	// (gen timestamps); every other reader requires "t".
	OptionalTime bool
	// CompactNames interns conversation names into a ConvTable (one byte
	// arena, an index of integers) rather than a map of strings, so that a
	// trace of many conversations costs the garbage collector nothing to
	// keep: for a stream that is read once (the windowed bounds), not for
	// ReadAll, whose Trace.Names are strings. Set it before the first Next.
	CompactNames bool
	tab          ConvTable
	name         string
	sc           *bufio.Scanner
	line         int
	index        int
	last         float64
	ids          map[string]int
	names        []string
	cats         map[string]string
	hist         []int64 // per conversation id: history H, tokens
	load         int64   // Σ D_k so far, tokens
	js           jsonscan.Scanner
	// slow turns the fast path off, so that tests can compare the two.
	slow bool
	// par is the parallel pipeline of NewParallelReader (nil: the lines
	// are read and parsed by Next itself).
	par *pipeline
}

// NewReader reads a canonical trace from r; name is used in error messages
// (normally the file path).
func NewReader(r io.Reader, name string) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine+2) // the line, "\r", "\n"
	return &Reader{name: name, sc: sc, ids: make(map[string]int), cats: make(map[string]string), last: math.Inf(-1)}
}

// Next returns the next turn. It returns io.EOF at the end of the trace, a
// *ParseError for a malformed line, and ErrNoTurns (wrapped in a
// *ParseError naming the file) when the trace ends before its first turn:
// an empty trace has no metrics to report, and zeros would read as results.
// Blank lines are skipped.
func (r *Reader) Next() (Turn, error) {
	if r.par != nil {
		return r.nextParallel()
	}
	for r.sc.Scan() {
		if len(r.sc.Bytes()) > maxLine { // without its "\n" and a "\r" before it
			return Turn{}, &ParseError{File: r.name, Line: r.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		r.line++
		b := bytes.TrimSpace(jsonscan.StripBOM(r.sc.Bytes(), r.line))
		if len(b) == 0 {
			continue
		}
		return r.parse(b)
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Turn{}, &ParseError{File: r.name, Line: r.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		return Turn{}, fmt.Errorf("%s: %w", r.name, err)
	}
	if r.index == 0 {
		return Turn{}, &ParseError{File: r.name, Msg: ErrNoTurns.Error(), err: ErrNoTurns}
	}
	return Turn{}, io.EOF
}

// ErrNoTurns is the error of a trace with no turn (empty, or blank lines
// only).
var ErrNoTurns = errors.New("no turns (the trace is empty)")

// rawRecord uses pointers to tell a missing field from a zero one.
type rawRecord struct {
	T        *float64 `json:"t"`
	Conv     *string  `json:"conv"`
	Prompt   *int64   `json:"prompt"`
	Response *int64   `json:"response"`
	Category string   `json:"category"`
	User     string   `json:"user"`
}

func (r *Reader) fail(field, format string, a ...any) (Turn, error) {
	return Turn{}, &ParseError{File: r.name, Line: r.line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// fields are one line's values, with whether each required one is there.
type fields struct {
	t                      float64
	conv                   []byte
	prompt, response       int64
	hasT, hasConv          bool
	hasPrompt, hasResponse bool
	category, user         []byte
}

// Field bits of the fast path, to refuse duplicate keys.
const (
	bitT = 1 << iota
	bitConv
	bitPrompt
	bitResponse
	bitCategory
	bitUser
)

// scan is the fast path: it reads a line of the expected shape in place
// and reports false for anything else (package jsonscan), which decode
// then reads with encoding/json.
func (r *Reader) scan(b []byte, f *fields) bool {
	s := &r.js
	if !s.Reset(b) {
		return false
	}
	if r.canonical(f) {
		return true
	}
	*f = fields{}
	s.Reset(b)
	seen := 0
	for {
		key, end, ok := s.Key()
		if !ok {
			return false
		}
		if end {
			return true
		}
		var bit int
		switch string(key) {
		case "t":
			bit = bitT
			f.t, ok = s.Float()
			f.hasT = true
		case "conv":
			bit = bitConv
			f.conv, ok = s.String()
			f.hasConv = true
		case "prompt":
			bit = bitPrompt
			f.prompt, ok = s.Int()
			f.hasPrompt = true
		case "response":
			bit = bitResponse
			f.response, ok = s.Int()
			f.hasResponse = true
		case "category":
			bit = bitCategory
			f.category, ok = s.String()
		case "user":
			bit = bitUser
			f.user, ok = s.String()
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// canonical reads the rest of a line, its '{' read, in the layout the
// Writer (and so gen) writes, {"t":…,"conv":"…","prompt":…,"response":…}
// with no space and no optional field: each key is matched in one
// comparison rather than looked up (Key), about a tenth of a line's time.
// The values are read as scan reads them; anything else reports false,
// and scan starts over with its general loop.
func (r *Reader) canonical(f *fields) bool {
	s := &r.js
	var ok bool
	if !s.Lit(`"t":`) {
		return false
	}
	if f.t, ok = s.Float(); !ok || !s.Lit(`,"conv":`) {
		return false
	}
	if f.conv, ok = s.String(); !ok || !s.Lit(`,"prompt":`) {
		return false
	}
	if f.prompt, ok = s.Int(); !ok || !s.Lit(`,"response":`) {
		return false
	}
	if f.response, ok = s.Int(); !ok || !s.End() {
		return false
	}
	f.hasT, f.hasConv, f.hasPrompt, f.hasResponse = true, true, true, true
	return true
}

// decode reads a line with encoding/json, the reference for every line and
// the source of its error messages.
func (r *Reader) decode(b []byte, f *fields) error {
	var rec rawRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			_, err := r.fail(te.Field, "want %s, got JSON %s", te.Type, te.Value)
			return err
		}
		_, err := r.fail("", "not a JSON object: %v", err)
		return err
	}
	if key, msg := strictKeys(b); msg != "" {
		_, err := r.fail(key, "%s", msg)
		return err
	}
	*f = fields{category: []byte(rec.Category), user: []byte(rec.User)}
	if rec.T != nil {
		f.t, f.hasT = *rec.T, true
	}
	if rec.Conv != nil {
		f.conv, f.hasConv = []byte(*rec.Conv), true
	}
	if rec.Prompt != nil {
		f.prompt, f.hasPrompt = *rec.Prompt, true
	}
	if rec.Response != nil {
		f.response, f.hasResponse = *rec.Response, true
	}
	return nil
}

// strictKeys holds a line that encoding/json accepted to the format's own
// rules, which encoding/json does not apply: keys are case-sensitive (it
// would read "PROMPT" as prompt) and a field appears once (it would take
// the last of two). It returns the offending key and why, or "" when the
// line is fine; keys that are no field's, in any case, are ignored, as
// they always were. b is a JSON value encoding/json has already accepted.
func strictKeys(b []byte) (key, msg string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", "" // null: every field is missing, as check reports
	}
	names := [...]string{"t", "conv", "prompt", "response", "category", "user"}
	var seen [len(names)]bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		k, _ := tok.(string)
		for i, name := range names {
			switch {
			case k == name && seen[i]:
				return k, "appears twice in the line (each field once)"
			case k == name:
				seen[i] = true
			case strings.EqualFold(k, name):
				return k, fmt.Sprintf("keys are case-sensitive: write %q", name)
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", ""
		}
	}
	return "", ""
}

func (r *Reader) parse(b []byte) (Turn, error) {
	var rec fields
	if err := r.fields(b, &rec); err != nil {
		return Turn{}, err
	}
	return r.check(&rec)
}

// fields reads one non-blank line's values, by the fast path or
// encoding/json; it depends on no earlier line, so the parallel reader's
// workers run it.
func (r *Reader) fields(b []byte, rec *fields) error {
	if r.slow || !r.scan(b, rec) {
		return r.decode(b, rec)
	}
	return nil
}

// check validates one line's values against the rules and the lines before
// (time order, the load bound), interns its conversation and returns the
// turn; lines go through it in order.
func (r *Reader) check(rec *fields) (Turn, error) {
	if !rec.hasT && r.OptionalTime {
		rec.t, rec.hasT = max(r.last, 0), true
	}
	switch {
	case !rec.hasT:
		return r.fail("t", "missing (arrival time in seconds)")
	case !rec.hasConv || len(rec.conv) == 0:
		return r.fail("conv", "missing or empty (conversation id)")
	case !rec.hasPrompt:
		return r.fail("prompt", "missing (prompt length in tokens)")
	case !rec.hasResponse:
		return r.fail("response", "missing (response length in tokens)")
	}
	t := rec.t
	switch {
	case math.IsNaN(t) || math.IsInf(t, 0) || t < 0:
		return r.fail("t", "must be a finite time ≥ 0 seconds, got %v", t)
	case t < r.last:
		return r.fail("t", "time %v s goes back before the previous turn's %v s (the trace must be in arrival order)", t, r.last)
	case rec.prompt < 1:
		return r.fail("prompt", "must be ≥ 1 token, got %d", rec.prompt)
	case rec.response < 0:
		return r.fail("response", "must be ≥ 0 tokens, got %d", rec.response)
	case rec.prompt > MaxTurnTokens:
		return r.fail("prompt", "%d tokens exceeds the bound of 2^40 = %d tokens per turn", rec.prompt, int64(MaxTurnTokens))
	case rec.response > MaxTurnTokens:
		return r.fail("response", "%d tokens exceeds the bound of 2^40 = %d tokens per turn", rec.response, int64(MaxTurnTokens))
	}
	var id int
	var ok bool
	if r.CompactNames {
		id, ok = r.tab.Lookup(rec.conv)
	} else {
		id, ok = r.ids[string(rec.conv)]
	}
	if !ok {
		id = len(r.hist)
	}
	// Both terms are ≤ MaxTotalLoadTokens + MaxTurnTokens, far from
	// overflowing, so the comparisons are exact.
	h := int64(0)
	if ok {
		h = r.hist[id]
	}
	if d := h + rec.prompt; d > MaxTotalLoadTokens-r.load {
		return r.fail("prompt", "the trace's total prefill load (history + prompt summed over turns) passes the bound of 2^60 = %d tokens here", int64(MaxTotalLoadTokens))
	}
	if !ok && r.CompactNames {
		if _, _, room := r.tab.Intern(rec.conv); !room {
			return r.fail("conv", "more than %d conversations", maxConvs)
		}
	}
	r.last = t
	if !ok {
		if !r.CompactNames {
			name := string(rec.conv)
			r.ids[name] = id
			r.names = append(r.names, name)
		}
		r.hist = append(r.hist, 0)
	}
	r.load += h + rec.prompt
	r.hist[id] = h + rec.prompt + rec.response
	var user string
	if len(rec.user) > 0 {
		user = string(rec.user)
	}
	turn := Turn{Index: r.index, Time: t, Conv: id, Prompt: rec.prompt, Response: rec.response,
		Category: r.intern(rec.category), User: user}
	r.index++
	return turn, nil
}

// intern shares the storage of repeated category names.
func (r *Reader) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if c, ok := r.cats[string(b)]; ok {
		return c
	}
	s := string(b)
	r.cats[s] = s
	return s
}

// ConvName returns the trace's name of dense conversation id c.
func (r *Reader) ConvName(c int) string {
	if r.CompactNames {
		return string(r.tab.Name(c))
	}
	return r.names[c]
}

// Conversations returns the number of distinct conversations read so far.
func (r *Reader) Conversations() int { return len(r.hist) }

// Line returns the number of lines consumed so far.
func (r *Reader) Line() int { return r.line }

// Name returns the name the reader gives its trace in errors (normally the
// file path).
func (r *Reader) Name() string { return r.name }

// ReadAll reads a whole trace into memory. Use it only where the future is
// needed (hindsight policies, solvers); replay streams.
// The lines are parsed on ParseWorkers goroutines (NewParallelReader).
func ReadAll(r io.Reader, name string) (*Trace, error) {
	rd := NewParallelReader(r, name, ParseWorkers)
	defer rd.Close()
	return readAll(rd)
}

// ParseWorkers is the number of goroutines that parse the lines of a trace
// read whole or streamed to a replay (the machine's two cores).
const ParseWorkers = 2

// readAll reads the rest of rd's trace into memory.
func readAll(rd *Reader) (*Trace, error) {
	tr := &Trace{}
	for {
		t, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		tr.Turns = append(tr.Turns, t)
	}
	tr.Names = rd.names
	return tr, nil
}

// ReadFile reads a whole trace file ("-" is standard input).
func ReadFile(path string) (*Trace, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path)
}

// ReadFileOptionalTime is ReadFile with Reader.OptionalTime set: lines
// may lack "t" (a trace whose times gen timestamps will synthesize).
func ReadFileOptionalTime(path string) (*Trace, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := NewParallelReader(f, path, ParseWorkers)
	defer rd.Close()
	rd.OptionalTime = true
	return readAll(rd)
}

// Open opens a trace file for reading; "-" is standard input.
func Open(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return f, nil
}
