package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tailbound/tailbound/internal/jsonscan"
)

// The parallel reader (NewParallelReader) splits the input into chunks of
// whole lines, has workers read each line's values (Reader.fields: the fast
// path or encoding/json, which depend on no other line) and leaves to Next,
// in file order, what does depend on earlier lines: the time order, the
// load bound and the interning of conversation names into dense ids (first
// appearance first). So the turns, the ids and every error — its line, its
// field and its message — are the sequential reader's.

// chunkBytes is the size of a chunk, bytes; a chunk ends at a line end.
const chunkBytes = 128 << 10

// depth is how many chunks may wait for a worker, and for Next.
const depth = 4

// chunk is a run of whole lines and, once a worker is through, their
// values.
type chunk struct {
	buf   []byte
	first int // 1-based number of the chunk's first line
	lines int // lines in buf (a last line without its end counts)
	recs  []lineRec
	// end is the error that stops the input after this chunk's lines (a
	// line longer than maxLine, an I/O error), or nil.
	end  error
	done chan struct{} // closed when recs are ready
}

// lineRec is one non-blank line's values, or the error reading them.
type lineRec struct {
	line int
	f    fields
	err  error
}

// pipeline is the parallel reader's machinery: a splitter goroutine, worker
// goroutines, and the chunks in file order.
type pipeline struct {
	order   chan *chunk // chunks in file order, for Next
	free    chan *chunk // chunks Next is through with, for reuse
	stop    chan struct{}
	once    sync.Once
	cur     *chunk
	pos     int
	end     error // sticky end of input (an error or io.EOF)
	size    int   // chunk size, bytes (tests make it small)
	in      io.Reader
	workers int
}

// NewParallelReader is NewReader with the lines parsed by workers
// goroutines (at least 1) ahead of Next, which returns the same turns and
// errors as NewReader's. Call Close when done with it before the end of
// the trace, so that its goroutines stop.
func NewParallelReader(r io.Reader, name string, workers int) *Reader {
	rd := NewReader(r, name)
	rd.par = &pipeline{size: chunkBytes, in: r, workers: max(workers, 1)}
	return rd
}

// Close stops a parallel reader's goroutines; the reader returns io.EOF
// (or its error) afterwards. It is a no-op for a sequential reader.
func (r *Reader) Close() error {
	if r.par != nil {
		r.par.close()
	}
	return nil
}

func (p *pipeline) close() { p.once.Do(func() { close(p.stop) }) }

// start launches the splitter and the workers (on the first Next, so that
// the reader's settings are final).
func (r *Reader) start() {
	p := r.par
	p.order = make(chan *chunk, depth)
	p.free = make(chan *chunk, 2*depth+p.workers+2) // room for every chunk in flight
	p.stop = make(chan struct{})
	jobs := make(chan *chunk, depth)
	for range p.workers {
		w := &Reader{name: r.name, slow: r.slow} // a worker's own scanner
		go func() {
			for c := range jobs {
				w.parseChunk(c)
				close(c.done)
			}
		}()
	}
	go p.split(p.in, jobs)
}

// split cuts in into chunks of whole lines and hands each to the workers
// and, in order, to Next.
func (p *pipeline) split(in io.Reader, jobs chan<- *chunk) {
	defer close(jobs)
	defer close(p.order)
	line := 1
	var carry []byte
	for {
		c := &chunk{}
		select {
		case c = <-p.free: // its buffers are reused: Next copies what it keeps
		default:
		}
		buf := c.buf[:0]
		if cap(buf) < p.size+len(carry) {
			buf = make([]byte, 0, p.size+len(carry))
		}
		buf = append(buf, carry...)
		// Read until the buffer is full and holds a line end (or a line
		// too long), or the input ends.
		var rerr error
		for {
			if len(buf) == cap(buf) {
				if bytes.IndexByte(buf, '\n') >= 0 || len(buf) > maxLine+1 { // a line may end "\r\n"
					break
				}
				buf = slices.Grow(buf, p.size)
			}
			n, err := in.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				rerr = err
				break
			}
		}
		// At the end of the input (or an I/O error) the last line, ended or
		// not, belongs to this chunk, as bufio.Scanner returns it; else the
		// chunk ends at its last line end, or is one line too long, which
		// its worker reports.
		cut := len(buf)
		if rerr == nil {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				cut = i + 1
			}
		}
		if cut == 0 && rerr != nil && errors.Is(rerr, io.EOF) {
			return
		}
		*c = chunk{buf: buf[:cut], first: line, recs: c.recs[:0], done: make(chan struct{})}
		c.lines = bytes.Count(c.buf, []byte{'\n'})
		if cut > 0 && c.buf[cut-1] != '\n' {
			c.lines++
		}
		line += c.lines
		carry = append(carry[:0:0], buf[cut:]...)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			c.end = rerr
		}
		select {
		case jobs <- c:
		case <-p.stop:
			return
		}
		select {
		case p.order <- c:
		case <-p.stop:
			return
		}
		if rerr != nil {
			return
		}
	}
}

// parseChunk reads the values of c's non-blank lines, stopping at a line
// longer than maxLine (c.end).
func (r *Reader) parseChunk(c *chunk) {
	b, n := c.buf, c.first
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		if len(bytes.TrimSuffix(l, []byte("\r"))) > maxLine {
			c.end = &ParseError{File: r.name, Line: n, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
			c.lines = n - c.first
			return
		}
		if t := bytes.TrimSpace(jsonscan.StripBOM(l, n)); len(t) > 0 {
			rec := lineRec{line: n}
			r.line = n
			rec.err = r.fields(t, &rec.f)
			c.recs = append(c.recs, rec)
		}
		n++
	}
}

// nextParallel is Next for a parallel reader.
func (r *Reader) nextParallel() (Turn, error) {
	p := r.par
	if p.order == nil {
		r.start()
	}
	for {
		if p.cur != nil && p.pos < len(p.cur.recs) {
			rec := &p.cur.recs[p.pos]
			p.pos++
			r.line = rec.line
			if rec.err != nil {
				return Turn{}, rec.err
			}
			return r.check(&rec.f)
		}
		if p.cur != nil {
			r.line = p.cur.first + p.cur.lines - 1
			if p.cur.end != nil {
				p.end = p.cur.end
				if !errors.As(p.end, new(*ParseError)) {
					p.end = fmt.Errorf("%s: %w", r.name, p.end)
				}
				p.close()
			}
			select {
			case p.free <- p.cur:
			default:
			}
			p.cur = nil
		}
		if p.end != nil {
			return Turn{}, p.end
		}
		c, ok := <-p.order
		if !ok {
			p.close()
			if r.index == 0 {
				p.end = &ParseError{File: r.name, Msg: ErrNoTurns.Error(), err: ErrNoTurns}
			} else {
				p.end = io.EOF
			}
			return Turn{}, p.end
		}
		<-c.done
		p.cur, p.pos = c, 0
	}
}
