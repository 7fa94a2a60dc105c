package prefetch_test

import (
	"testing"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"
)

// Line changes nothing: a slice prefetched element by element, from its
// first byte to its last, holds what it held.
func TestLineChangesNothing(t *testing.T) {
	s := make([]int64, 1000)
	for i := range s {
		s[i] = int64(i * i)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
	for i := range b {
		prefetch.Line(unsafe.Pointer(&b[i]))
	}
	for i, v := range s {
		if v != int64(i*i) {
			t.Fatalf("element %d is %d after prefetching, want %d", i, v, i*i)
		}
	}
}
