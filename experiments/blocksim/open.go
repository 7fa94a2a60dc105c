package blocksim

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// Formats lists the trace formats Open reads.
var Formats = []string{"canonical", "mooncake", "bailian"}

// Open opens the block-level trace at path ("-" for standard input) in
// format: "canonical" (conversations, chained with block tokens per block
// by a Chainer), "mooncake" or "bailian" (block-hash traces, whose own
// block size is used; block must then be 0 or equal to it). It returns the
// requests as a Source, the block size in tokens and the file to close.
func Open(path, format string, block int64) (Source, int64, io.Closer, error) {
	switch format {
	case "canonical":
		f, err := trace.Open(path)
		if err != nil {
			return nil, 0, nil, err
		}
		src, err := CanonicalSource(trace.NewReader(f, path), block)
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return src, block, f, nil
	case "mooncake", "bailian":
		return nil, 0, nil, fmt.Errorf("%s: %s traces need the importer (models/importer), which is not built yet", path, format)
	}
	return nil, 0, nil, fmt.Errorf("trace format %q: want one of %v", format, Formats)
}

// ReadAll drains src into an in-memory stream of block size block tokens.
func ReadAll(src Source, block int64) (*blocktrace.Stream, error) {
	s := &blocktrace.Stream{BlockTokens: int(block)}
	for {
		r, err := src()
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		s.Requests = append(s.Requests, r)
	}
}
