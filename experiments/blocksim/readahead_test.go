package blocksim

import (
	"errors"
	"io"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// countSource yields requests 0, 1, …, k−1 (Index and a one-hash chain
// equal to the position), then end for good; calls counts its calls.
func countSource(k int, end error, calls *int) blocktrace.Source {
	i := 0
	return func() (blocktrace.Request, error) {
		*calls++
		if i == k {
			return blocktrace.Request{}, end
		}
		i++
		return blocktrace.Request{Index: i - 1, Hashes: []int64{int64(i - 1)}}, nil
	}
}

// readAhead yields the source's requests in order and then its error, again
// on every later call, for sources shorter than, equal to and longer than a
// chunk, empty ones, and ones that end in an error other than io.EOF.
func TestReadAheadSameSequence(t *testing.T) {
	bad := errors.New("line 9: bad")
	for _, k := range []int{0, 1, 4, 5, 13} {
		for _, end := range []error{io.EOF, bad} {
			calls := 0
			a := readAhead(countSource(k, end, &calls), nil, 4)
			for i := 0; i < k; i++ {
				// peek(j) is request i+j−1 when the chunk holding request
				// i−1 (or none yet) holds it, else nil.
				for j := 1; j <= 5; j++ {
					p := a.peek(j)
					want := i > 0 && (i-1)/4 == (i+j-1)/4 && i+j-1 < k
					if (p != nil) != want || p != nil && p.Index != i+j-1 {
						t.Fatalf("k %d: before request %d: peek(%d) = %+v, want one: %v", k, i, j, p, want)
					}
				}
				r, err := a.next()
				if err != nil || r.Index != i || len(r.Hashes) != 1 || r.Hashes[0] != int64(i) {
					t.Fatalf("k %d: request %d: got %+v, %v", k, i, r, err)
				}
			}
			for j := 0; j < 3; j++ {
				if _, err := a.next(); err != end {
					t.Fatalf("k %d: after the requests: %v, want %v", k, err, end)
				}
			}
			a.stop()
			if calls != k+1 {
				t.Fatalf("k %d: source called %d times, want %d", k, calls, k+1)
			}
		}
	}
}

// stop after a partial read ends the goroutine: the source is not called
// after stop returns, and it was called at most three chunks ahead.
func TestReadAheadStopEarly(t *testing.T) {
	calls := 0
	a := readAhead(countSource(1000, io.EOF, &calls), nil, 4)
	for i := 0; i < 5; i++ {
		if _, err := a.next(); err != nil {
			t.Fatal(err)
		}
	}
	a.stop()
	after := calls
	a.stop() // a second stop is harmless
	if calls != after || calls > 5+3*4 {
		t.Fatalf("source called %d times (then %d), want at most %d and none after stop", after, calls, 5+3*4)
	}
}

// readDirect yields the bulk reader's requests in order, whatever the
// sizes of its batches, and then its error, again on every later call;
// peek(j) sees the requests of the current chunk only.
func TestReadDirectSameSequence(t *testing.T) {
	bad := errors.New("record 9: bad")
	for _, k := range []int{0, 1, 4, 5, 13} {
		for _, end := range []error{io.EOF, bad} {
			for _, most := range []int{1, 3, 100} { // the bulk reader's largest batch
				i := 0
				bulk := func(dst []blocktrace.Request, n int) ([]blocktrace.Request, error) {
					for m := 0; m < min(n, most); m++ {
						if i == k {
							return dst, end
						}
						dst = append(dst, blocktrace.Request{Index: i, Hashes: []int64{int64(i)}})
						i++
					}
					return dst, nil
				}
				a := readDirect(bulk, 4)
				for i := 0; i < k; i++ {
					r, err := a.next()
					if err != nil || r.Index != i || len(r.Hashes) != 1 || r.Hashes[0] != int64(i) {
						t.Fatalf("k %d, batches of %d: request %d: got %+v, %v", k, most, i, r, err)
					}
					if p := a.peek(1); p != nil && p.Index != i+1 {
						t.Fatalf("k %d: after request %d: peek(1) is %d", k, i, p.Index)
					}
				}
				for j := 0; j < 3; j++ {
					if _, err := a.next(); err != end {
						t.Fatalf("k %d, batches of %d: after the requests: %v, want %v", k, most, err, end)
					}
				}
				a.stop()
			}
		}
	}
}
