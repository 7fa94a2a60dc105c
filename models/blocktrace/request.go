// Package blocktrace holds the block-level request stream that production
// traces (Mooncake, Alibaba Bailian) describe: each request names its prompt
// as a chain of fixed-size token blocks identified by hashes, and blocks are
// shared across requests, not only within a conversation.
package blocktrace

import "io"

// Request is one request of a block-level trace.
type Request struct {
	// Index is the request's 0-based position in the trace.
	Index int
	// Time is the arrival time in seconds from the start of the trace.
	Time float64
	// Input is the prompt length in tokens (history included, as served).
	Input int64
	// Output is the response length in tokens.
	Output int64
	// Hashes is the prompt as a chain of block ids, first block first. Equal
	// ids at the same position mean the same prefix content.
	Hashes []int64
	// Category is the request type ("text", "search", …; "" when unknown).
	Category string
	// Conv is the derived conversation's dense id, or -1 when not linked.
	Conv int
}

// Stream is a block-level trace: requests in arrival order and the block
// size in tokens that the hashes stand for (512 for Mooncake, 16 for
// Bailian).
type Stream struct {
	BlockTokens int
	Requests    []Request
}

// Source yields a trace's requests in order and io.EOF at the end.
type Source func() (Request, error)

// Bulk reads a trace's requests in bulk: it appends up to n requests to
// dst and returns it, and io.EOF once the trace is done (another error on
// a malformed trace); the requests appended before an error are valid. A
// request's Hashes are its own, not reused by later calls, except that
// the storage of the Hashes of dst's elements beyond its length
// (dst[len(dst):cap(dst)], requests the caller is done with) may be
// reused: a caller that reads into the same slice again and again then
// makes no garbage. A reader of an object trace, whose every request is
// one block named by its object id (libCacheSim's oracleGeneral), offers
// it besides its Source (which reads the same requests one at a time) to
// save a call and a copy per request; a replay may rely on it to serve
// the requests as objects, keyed by their one hash.
type Bulk func(dst []Request, n int) ([]Request, error)

// Object is a request of an object trace (libCacheSim's): one block, its
// object id, and no category or conversation. It stands for the Request
// of its position in the trace with Hashes {Key} and Conv −1.
type Object struct {
	// Time is the arrival time in seconds from the start of the trace.
	Time float64
	// Key is the object id, the request's one block hash.
	Key int64
	// Input and Output are the prompt and response lengths in tokens.
	Input, Output int64
}

// ObjectBulk reads an object trace's requests in bulk, as Objects: it
// appends up to n to dst and returns it, and io.EOF once the trace is
// done (another error on a malformed trace), the objects appended before
// an error being valid. A reader that offers it besides its Bulk reads
// the same requests through both (one of them may be read, not both);
// a replay of objects reads it to make no Request at all.
type ObjectBulk func(dst []Object, n int) ([]Object, error)

// StreamSource returns a Source over an in-memory stream.
func StreamSource(s *Stream) Source {
	i := 0
	return func() (Request, error) {
		if i == len(s.Requests) {
			return Request{}, io.EOF
		}
		i++
		return s.Requests[i-1], nil
	}
}
