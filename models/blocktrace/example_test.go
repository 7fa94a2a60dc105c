package blocktrace_test

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// A Source over an in-memory stream yields its requests, then io.EOF.
func ExampleStreamSource() {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{{Input: 20, Hashes: []int64{1, 2}}, {Index: 1, Input: 16, Hashes: []int64{1}}}}
	src := blocktrace.StreamSource(s)
	for {
		r, err := src()
		if err == io.EOF {
			break
		}
		fmt.Println(r.Index, r.Input, r.Hashes)
	}
	// Output:
	// 0 20 [1 2]
	// 1 16 [1]
}
