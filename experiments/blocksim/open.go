package blocksim

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/trace"
)

// Formats lists the trace formats Open reads.
var Formats = []string{"canonical", "mooncake", "bailian", "blocks", "libcachesim-csv", "oracle-general"}

// OpenWith is Open with libCacheSim's csv options (its --trace-type-params
// string, package importer's ParseCSVParams) for the "libcachesim-csv"
// format. The libCacheSim formats ("libcachesim-csv", "oracle-general")
// are object traces: each reference a request of one block of block
// tokens (1 when block is 0), no prefix chain, no conversation.
func OpenWith(path, format string, block int64, csvParams string, maxChain int64) (blocktrace.Source, int64, io.Closer, error) {
	src, _, _, b, f, err := openWith(path, format, block, csvParams, maxChain, false)
	return src, b, f, err
}

// openWith is OpenWith that also returns, for the oracle-general format,
// a Bulk and an ObjectBulk reader of the same requests (nil for the other
// formats): one of the three may be read, not more. noLinking is open's.
func openWith(path, format string, block int64, csvParams string, maxChain int64, noLinking bool) (blocktrace.Source, blocktrace.Bulk, blocktrace.ObjectBulk, int64, io.Closer, error) {
	if format != "libcachesim-csv" && format != "oracle-general" {
		if csvParams != "" {
			return nil, nil, nil, 0, nil, fmt.Errorf("csv options %q: for the libcachesim-csv format only", csvParams)
		}
		src, b, f, err := open(path, format, block, maxChain, noLinking)
		return src, nil, nil, b, f, err
	}
	if block == 0 {
		block = 1
	}
	if block < 1 || block > 1<<30 {
		return nil, nil, nil, 0, nil, fmt.Errorf("block size %d tokens: want 1 to 2^30", block)
	}
	var p importer.CSVParams
	if format == "libcachesim-csv" {
		var err error
		if p, err = importer.ParseCSVParams(csvParams); err != nil {
			return nil, nil, nil, 0, nil, err
		}
	} else if csvParams != "" {
		return nil, nil, nil, 0, nil, fmt.Errorf("csv options %q: for the libcachesim-csv format only", csvParams)
	}
	f, err := trace.Open(path)
	if err != nil {
		return nil, nil, nil, 0, nil, err
	}
	if format == "libcachesim-csv" {
		return importer.NewLibCacheSimCSV(f, path, p, int(block)).Next, nil, nil, block, f, nil
	}
	og := importer.NewOracleGeneral(f, path, int(block))
	return og.Next, og.Batch, og.Objects, block, f, nil
}

// Open opens the block-level trace at path ("-" for standard input) in
// format: "canonical" (conversations, chained with block tokens per block
// by a Chainer), or "mooncake", "bailian" or "blocks" (block-hash traces,
// read by package importer with its default options — conversations
// derived, chains checked — whose own block size is used; block must then
// be 0 or equal to it). It returns the requests as a Source, the block size
// in tokens and the file to close.
func Open(path, format string, block int64) (blocktrace.Source, int64, io.Closer, error) {
	return open(path, format, block, 0, false)
}

// OpenUnlinked is Open for a reader that reads no conversation ids (a
// bound that reads only the chains and inputs): the Mooncake format's
// conversations are not derived (every Conv −1), so that its reader holds
// no per-prefix state for them; the chains, inputs and times are Open's.
func OpenUnlinked(path, format string, block int64) (blocktrace.Source, int64, io.Closer, error) {
	return open(path, format, block, 0, true)
}

// open is Open with a bound on a canonical request's chain, blocks (0: the
// default, DefaultMaxChainBlocks), and, when noLinking, without deriving
// the Mooncake format's conversations (importer.Options.NoLinking: every
// Conv −1), for a replay that reads no conversation ids.
func open(path, format string, block, maxChain int64, noLinking bool) (blocktrace.Source, int64, io.Closer, error) {
	switch format {
	case "canonical":
		f, err := trace.Open(path)
		if err != nil {
			return nil, 0, nil, err
		}
		src, err := canonicalSource(trace.NewReader(f, path), block, maxChain)
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return src, block, f, nil
	case "mooncake", "bailian", "blocks":
		imp := importer.DefaultOptions()
		imp.NoLinking = noLinking
		src, f, err := importer.Open(path, format, imp)
		if err != nil {
			return nil, 0, nil, err
		}
		next := src.Next
		if format == "blocks" { // its block size is on its lines
			first, err := src.Next()
			if err != nil && err != io.EOF {
				f.Close()
				return nil, 0, nil, err
			}
			pending := err == nil
			next = func() (blocktrace.Request, error) {
				if pending {
					pending = false
					return first, nil
				}
				return src.Next()
			}
		}
		b := int64(src.BlockTokens())
		if b == 0 { // an empty blocks file
			b = max(block, 1)
		}
		if block != 0 && block != b {
			f.Close()
			return nil, 0, nil, fmt.Errorf("%s: the %s trace has %d-token blocks, not %d", path, format, b, block)
		}
		return next, b, f, nil
	case "libcachesim-csv", "oracle-general":
		return OpenWith(path, format, block, "", maxChain)
	}
	return nil, 0, nil, fmt.Errorf("trace format %q: want one of %v", format, Formats)
}

// ReadAll drains src into an in-memory stream of block size block tokens.
func ReadAll(src blocktrace.Source, block int64) (*blocktrace.Stream, error) {
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
