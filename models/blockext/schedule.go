package blockext

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
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Line is one line of a block schedule: the blocks evicted for a request.
type Line struct {
	// No is the 1-based line number in the file.
	No int `json:"-"`
	// Request is the 0-based index of the request (optional).
	Request *int `json:"request,omitempty"`
	// Evict are the blocks evicted to admit the request's chain, in order.
	Evict []BlockID `json:"evict,omitempty"`
}

// Schedule is a block schedule read into memory: Lines[i] is request i's.
type Schedule struct {
	// Name is the file name used in messages.
	Name  string
	Lines []Line
	line  []int // index in Lines of request i's line
}

// ReadFiles reads the block schedules at paths, in order.
func ReadFiles(paths []string) ([]*Schedule, error) {
	var out []*Schedule
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		s, err := Read(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Read reads a block schedule from r; name is used in messages.
func Read(r io.Reader, name string) (*Schedule, error) {
	s := &Schedule{Name: name}
	at := map[int]int{} // request → index in s.Lines; a map, so that a huge request number costs nothing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<26)
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
			return nil, fmt.Errorf("%s:%d: not a block schedule line (%v)", name, no, err)
		}
		i := len(s.Lines)
		if l.Request != nil {
			i = *l.Request
		}
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: field \"request\": %d is negative (0-based)", name, no, i)
		}
		if k, dup := at[i]; dup {
			return nil, fmt.Errorf("%s:%d: request %d already has line %d", name, no, i, s.Lines[k].No)
		}
		at[i] = len(s.Lines)
		s.Lines = append(s.Lines, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line too long", name, no+1)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// One line per request, so the requests must be exactly 0 … n−1.
	s.line = make([]int, len(s.Lines))
	for i := range s.line {
		k, ok := at[i]
		if !ok {
			return nil, fmt.Errorf("%s: request %d has no line (wrong request count)", name, i)
		}
		s.line[i] = k
	}
	if len(s.Lines) == 0 {
		return nil, fmt.Errorf("%s: empty schedule (one line per request expected)", name)
	}
	return s, nil
}

// Player replays a block schedule as a prefixcache.Policy. Call Finish
// after the replay: it reports a schedule longer than the trace.
type Player struct {
	*adapter
	s    *Schedule
	seen int
}

// Factory returns a prefixcache.Factory building a Player of s; each built
// player is passed to keep (the caller calls Finish on it after the replay).
func (s *Schedule) Factory(keep func(*Player)) prefixcache.Factory {
	return func(cfg prefixcache.Config) (prefixcache.Policy, error) {
		p := &Player{s: s}
		p.adapter = newAdapter(int(cfg.Blocks()), p.victims)
		if keep != nil {
			keep(p)
		}
		return p, nil
	}
}

func (p *Player) victims(r *prefixcache.Req, _, _ int) ([]BlockID, error) {
	p.seen = r.Index + 1
	if r.Index >= len(p.s.line) {
		return nil, fmt.Errorf("%s: %d lines, but the trace has more requests (wrong request count)", p.s.Name, len(p.s.Lines))
	}
	return p.s.Lines[p.s.line[r.Index]].Evict, nil
}

// Violation is the first rule of the prefix cache a block schedule breaks.
type Violation struct {
	File    string // schedule file name
	Line    int    // 1-based line of the request
	Request int    // 0-based request index
	What    string // what the line does and the rule it breaks
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%s:%d: request %d: %s", v.File, v.Line, v.Request, v.What)
}

// Err implements prefixcache.Checker: a violation names the file, line
// and request.
func (p *Player) Err() error {
	err := p.adapter.Err()
	if err != nil && p.req != nil && p.req.Index < len(p.s.line) {
		return &Violation{File: p.s.Name, Line: p.s.Lines[p.s.line[p.req.Index]].No, Request: p.req.Index, What: err.Error()}
	}
	return err
}

// Finish reports a schedule with more lines than the trace had requests.
func (p *Player) Finish() error {
	if p.seen < len(p.s.Lines) && p.adapter.err == nil {
		return fmt.Errorf("%s: %d lines for a trace of %d requests (wrong request count)", p.s.Name, len(p.s.Lines), p.seen)
	}
	return nil
}

// Recorder is a prefixcache.Policy that runs another one and writes its
// victims as a block schedule. Call Flush after the replay.
type Recorder struct {
	inner    prefixcache.Policy
	observer prefixcache.Observer
	w        *bufio.Writer
	req      int
	victims  []BlockID
	started  bool
	buf      []byte
	err      error
}

// NewRecorder returns a Recorder of p writing to w.
func NewRecorder(p prefixcache.Policy, w io.Writer) *Recorder {
	r := &Recorder{inner: p, w: bufio.NewWriterSize(w, 1<<16)}
	r.observer, _ = p.(prefixcache.Observer)
	return r
}

// Observe implements prefixcache.Observer: it closes the previous
// request's line.
func (r *Recorder) Observe(q *prefixcache.Req) {
	r.line()
	r.started, r.req, r.victims = true, q.Index, r.victims[:0]
	if r.observer != nil {
		r.observer.Observe(q)
	}
}

func (r *Recorder) line() {
	if !r.started {
		return
	}
	b := append(r.buf[:0], `{"request":`...)
	b = strconv.AppendInt(b, int64(r.req), 10)
	if len(r.victims) > 0 {
		b = append(b, `,"evict":[`...)
		for i, v := range r.victims {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	r.buf = b
	if _, err := r.w.Write(b); err != nil && r.err == nil {
		r.err = err
	}
}

// Access implements prefixcache.Policy.
func (r *Recorder) Access(q *prefixcache.Req, id BlockID, depth int, hit bool) {
	r.inner.Access(q, id, depth, hit)
}

// Evictable implements prefixcache.Policy.
func (r *Recorder) Evictable(id BlockID, on bool) { r.inner.Evictable(id, on) }

// Victim implements prefixcache.Policy.
func (r *Recorder) Victim() BlockID {
	v := r.inner.Victim()
	if v >= 0 {
		r.victims = append(r.victims, v)
	}
	return v
}

// Flush writes the last line and what is buffered, and returns the first
// write error.
func (r *Recorder) Flush() error {
	r.line()
	r.started = false
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

// Err implements prefixcache.Checker for a recorded policy that is one
// (an exec: policy).
func (r *Recorder) Err() error {
	if c, ok := r.inner.(prefixcache.Checker); ok {
		return c.Err()
	}
	return nil
}
