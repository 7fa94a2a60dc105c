package schedule

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// Recorder is a policy that runs another one and writes its decisions as a
// decision-form schedule, one line per turn. Scoring that schedule replays
// the policy's decisions one for one, so every metric comes out equal.
type Recorder struct {
	inner policy.Policy
	names func(conv int) string
	w     *bufio.Writer
	ops   []op
	buf   []byte
	err   error
}

// NewRecorder returns a Recorder of p writing to w; names gives a
// conversation's name from its dense id (trace.Trace.Names). Call Flush
// after the replay.
func NewRecorder(p policy.Policy, names func(conv int) string, w io.Writer) *Recorder {
	return &Recorder{inner: p, names: names, w: bufio.NewWriterSize(w, 1<<16)}
}

// Update implements policy.Policy: it runs the inner policy and records
// every change it makes to the cache.
func (r *Recorder) Update(s *cache.State, t trace.Turn) error {
	c := t.Conv
	x := s.Cached(c)
	r.ops = r.ops[:0]
	s.Observe(func(c int, _, to int64) { r.ops = append(r.ops, op{c, to}) })
	err := r.inner.Update(s, t)
	s.Observe(nil)
	if err != nil {
		return err
	}
	keep, kept := x, false
	b := r.buf[:0]
	b = append(b, `{"turn":`...)
	b = strconv.AppendInt(b, int64(t.Index), 10)
	b = append(b, `,"conv":`...)
	b = appendName(b, r.names(c))
	b = append(b, `,"cached":`...)
	b = strconv.AppendInt(b, x, 10)
	var sh []byte
	cur := x // the served conversation's amount
	for _, o := range r.ops {
		if o.c == c {
			if !kept {
				keep, kept, cur = o.tokens, true, o.tokens
				continue
			}
			if o.tokens > cur {
				return fmt.Errorf("schedule recorder: turn %d: the policy grew the served conversation after cutting it (%d to %d tokens), which a schedule line cannot say", t.Index, cur, o.tokens)
			}
			cur = o.tokens
		}
		if len(sh) > 0 {
			sh = append(sh, ',')
		}
		sh = append(sh, '[')
		sh = appendName(sh, r.names(o.c))
		sh = append(sh, ',')
		sh = strconv.AppendInt(sh, o.tokens, 10)
		sh = append(sh, ']')
	}
	b = append(b, `,"keep":`...)
	b = strconv.AppendInt(b, keep, 10)
	if len(sh) > 0 {
		b = append(b, `,"shrink":[`...)
		b = append(b, sh...)
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	r.buf = b
	if _, err := r.w.Write(b); err != nil && r.err == nil {
		r.err = err
	}
	return nil
}

// Inner returns the recorded policy.
func (r *Recorder) Inner() policy.Policy { return r.inner }

// Flush writes what is buffered and returns the first write error.
func (r *Recorder) Flush() error {
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

func appendName(b []byte, name string) []byte {
	q, err := json.Marshal(name)
	if err != nil {
		return strconv.AppendQuote(b, name)
	}
	return append(b, q...)
}
