package blocksim

import (
	"sync"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// ahead reads a Source on a goroutine of its own, up to two chunks of
// requests ahead of its caller, so that parsing a trace overlaps numbering
// its blocks (the feeder) and serving them (the caches): on a single-block
// stream the parse is about half of the work. It relies on what every
// Source guarantees already (ReadAll keeps the requests): a request's
// Hashes are its own, not reused by the next call.
type ahead struct {
	full, empty chan *chunk
	done        chan struct{}
	wg          sync.WaitGroup
	once        sync.Once
	cur         *chunk
	i           int // requests of cur handed out
	// direct, when not nil, is read by next itself, in its caller's
	// goroutine, into cur (readDirect).
	direct blocktrace.Bulk
	n      int // requests per chunk
}

// chunk is a run of requests read in order; err follows them (non-nil in
// the last chunk only).
type chunk struct {
	reqs []blocktrace.Request
	err  error
}

// aheadChunks is the number of chunks in flight: one being filled, one
// waiting, one being read.
const aheadChunks = 3

// readAhead starts reading src in chunks of n requests, through bulk
// instead when it is not nil (it reads the same requests). Call stop once
// the replay is done, whether or not the source was drained.
func readAhead(src blocktrace.Source, bulk blocktrace.Bulk, n int) *ahead {
	a := &ahead{full: make(chan *chunk, aheadChunks), empty: make(chan *chunk, aheadChunks), done: make(chan struct{})}
	for i := 0; i < aheadChunks; i++ {
		a.empty <- &chunk{reqs: make([]blocktrace.Request, 0, n)}
	}
	a.wg.Add(1)
	go a.read(src, bulk, n)
	return a
}

// readDirect returns an ahead that reads bulk in chunks of n requests in
// the goroutine of its caller, with no goroutine of its own: a bulk read
// of single-block records costs a tenth of the numbering of their blocks
// that follows, too little for a goroutine, whose hand-off moved every
// request from one core's cache to the other's (and a fourth busy
// goroutine on two cores was switched in and out).
func readDirect(bulk blocktrace.Bulk, n int) *ahead {
	return &ahead{direct: bulk, n: n}
}

func (a *ahead) read(src blocktrace.Source, bulk blocktrace.Bulk, n int) {
	defer a.wg.Done()
	for {
		var c *chunk
		select {
		case c = <-a.empty:
		case <-a.done:
			return
		}
		c.reqs = c.reqs[:0]
		if bulk != nil {
			// A short batch is not the end: Bulk reports the end itself.
			for len(c.reqs) < n && c.err == nil {
				c.reqs, c.err = bulk(c.reqs, n-len(c.reqs))
			}
		}
		for bulk == nil && len(c.reqs) < n {
			r, err := src()
			if err != nil {
				c.err = err
				break
			}
			c.reqs = append(c.reqs, r)
		}
		a.full <- c // never blocks: only aheadChunks exist
		if c.err != nil {
			return
		}
	}
}

// next returns the source's next request, valid until the following call
// (the caller may modify it), and then the source's error (io.EOF at the
// end) for good.
func (a *ahead) next() (*blocktrace.Request, error) {
	if a.direct != nil {
		return a.nextDirect()
	}
	for a.cur == nil || a.i == len(a.cur.reqs) {
		if a.cur != nil {
			if a.cur.err != nil {
				return nil, a.cur.err
			}
			a.empty <- a.cur
		}
		a.cur, a.i = <-a.full, 0
	}
	a.i++
	return &a.cur.reqs[a.i-1], nil
}

// nextDirect is next for readDirect: the chunk is refilled in place once
// it is handed out, its requests' hashes reused (blocktrace.Bulk), since
// the caller is done with them.
func (a *ahead) nextDirect() (*blocktrace.Request, error) {
	if a.cur == nil {
		a.cur = &chunk{reqs: make([]blocktrace.Request, 0, a.n)}
	}
	for a.i == len(a.cur.reqs) {
		if a.cur.err != nil {
			return nil, a.cur.err
		}
		a.cur.reqs, a.i = a.cur.reqs[:0], 0
		for len(a.cur.reqs) < a.n && a.cur.err == nil {
			a.cur.reqs, a.cur.err = a.direct(a.cur.reqs, a.n-len(a.cur.reqs))
		}
	}
	a.i++
	return &a.cur.reqs[a.i-1], nil
}

// ahead returns the request k places after the one next returned last,
// when the current chunk holds it, else nil; it does not move.
func (a *ahead) peek(k int) *blocktrace.Request {
	if a.cur == nil || a.i+k-1 >= len(a.cur.reqs) {
		return nil
	}
	return &a.cur.reqs[a.i+k-1]
}

// stop ends the reading goroutine and waits for it, so that the source is
// not read after stop returns. A second call does nothing more.
func (a *ahead) stop() {
	if a.direct != nil {
		return // no goroutine
	}
	a.once.Do(func() { close(a.done) })
	a.wg.Wait()
}
