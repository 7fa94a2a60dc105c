// Package fanout reads a stream once and hands every batch of it to several
// workers, each in its own goroutine: the replay engines run independent
// caches over one read of a trace this way.
package fanout

import (
	"sync"
	"sync/atomic"
)

// depth is how many batches may wait for a worker.
const depth = 4

// shared is a batch and the number of workers still holding it.
type shared[B any] struct {
	b    *B
	refs atomic.Int32
}

// Broadcast runs workers goroutines. From the calling goroutine it calls
// fill on a batch (a fresh one from newBatch or a recycled one, which fill
// must empty first) until fill reports no items or done; every batch with
// items is handed to each worker in order, and worker i calls work(i, b) on
// it in its own goroutine. After a worker's first error it skips the rest.
// A batch is recycled once every worker is through with it. Broadcast
// returns when all workers are done: fill's error (which stops the read),
// and each worker's first error.
func Broadcast[B any](workers int, newBatch func() *B, fill func(b *B) (n int, done bool, err error),
	work func(worker int, b *B) error) (readErr error, workErrs []error) {
	pool := sync.Pool{New: func() any { return &shared[B]{b: newBatch()} }}
	chans := make([]chan *shared[B], workers)
	workErrs = make([]error, workers)
	var wg sync.WaitGroup
	for i := range chans {
		chans[i] = make(chan *shared[B], depth)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for s := range chans[i] {
				if workErrs[i] == nil {
					workErrs[i] = work(i, s.b)
				}
				if s.refs.Add(-1) == 0 {
					pool.Put(s)
				}
			}
		}(i)
	}
	readErr = feed(chans, &pool, fill)
	wg.Wait()
	return readErr, workErrs
}

// feed fills batches and sends each to every channel, then closes them.
func feed[B any](chans []chan *shared[B], pool *sync.Pool, fill func(b *B) (int, bool, error)) error {
	defer func() {
		for _, c := range chans {
			close(c)
		}
	}()
	for {
		s := pool.Get().(*shared[B])
		n, done, err := fill(s.b)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if len(chans) == 0 {
			pool.Put(s)
		} else {
			s.refs.Store(int32(len(chans)))
			for _, c := range chans {
				c <- s
			}
		}
		if done {
			return nil
		}
	}
}
