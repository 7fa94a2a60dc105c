package blocksim

import (
	"sync"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// readAhead runs src on a goroutine of its own, up to two chunks of n
// requests ahead of the caller, so that parsing a trace overlaps numbering
// its blocks (the feeder) and serving them (the caches): on a single-block
// stream the parse is about half of the work. The returned source yields
// src's requests and then its error (io.EOF at the end) for good. stop
// ends the goroutine and waits for it, so that src is not read after stop
// returns; call it once the replay is done, whether or not the source was
// drained.
//
// It relies on what every Source guarantees already (ReadAll keeps the
// requests): a request's Hashes are its own, not reused by the next call.
func readAhead(src blocktrace.Source, n int) (next blocktrace.Source, stop func()) {
	type chunk struct {
		reqs []blocktrace.Request
		err  error // after reqs; non-nil in the last chunk only
	}
	const chunks = 3 // one being filled, one waiting, one being read
	full := make(chan *chunk, chunks)
	empty := make(chan *chunk, chunks)
	for i := 0; i < chunks; i++ {
		empty <- &chunk{reqs: make([]blocktrace.Request, 0, n)}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var c *chunk
			select {
			case c = <-empty:
			case <-done:
				return
			}
			c.reqs = c.reqs[:0]
			for len(c.reqs) < n && c.err == nil {
				r, err := src()
				if err != nil {
					c.err = err
					break
				}
				c.reqs = append(c.reqs, r)
			}
			full <- c // never blocks: at most chunks are in flight
			if c.err != nil {
				return
			}
		}
	}()
	var cur *chunk
	i := 0
	next = func() (blocktrace.Request, error) {
		for cur == nil || i == len(cur.reqs) {
			if cur != nil {
				if cur.err != nil {
					return blocktrace.Request{}, cur.err
				}
				empty <- cur
			}
			cur, i = <-full, 0
		}
		i++
		return cur.reqs[i-1], nil
	}
	var once sync.Once
	stop = func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
	return next, stop
}
