package blocktrace

import (
	"io"
	"testing"
)

// A stream source yields the stream's requests in order, then io.EOF on
// every later call.
func TestStreamSource(t *testing.T) {
	s := &Stream{BlockTokens: 16, Requests: []Request{{Index: 0, Input: 5}, {Index: 1, Input: 9}, {Index: 2, Input: 3}}}
	src := StreamSource(s)
	for _, want := range []int64{5, 9, 3} {
		r, err := src()
		if err != nil || r.Input != want {
			t.Fatalf("got %+v, %v; want input %d", r, err, want)
		}
	}
	for range 2 {
		if _, err := src(); err != io.EOF {
			t.Fatalf("after the end: %v, want io.EOF", err)
		}
	}
	if _, err := StreamSource(&Stream{})(); err != io.EOF {
		t.Errorf("empty stream: %v, want io.EOF", err)
	}
}
