package importer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// blockRecord is one line of the blocks format (package documentation).
type blockRecord struct {
	T        *float64 `json:"t"`
	Conv     *int64   `json:"conv"`
	Input    *int64   `json:"input"`
	Output   *int64   `json:"output"`
	Block    *int64   `json:"block"`
	Category string   `json:"category,omitempty"`
	Hashes   []int64  `json:"hashes"`
}

// Blocks reads the blocks format.
type Blocks struct {
	in    *lines
	opt   Options
	block int
	last  float64
	cats  map[string]string
	sum   Summary
	rec   blockRecord
	vals  blockValues
}

// NewBlocks returns a reader of the blocks-format stream r; name is used in
// errors.
func NewBlocks(r io.Reader, name string, opt Options) *Blocks {
	return &Blocks{in: newLines(r, name, opt.MaxLineBytes), opt: opt, cats: map[string]string{}}
}

// Next returns the next request, io.EOF at the end, or a *ParseError.
func (s *Blocks) Next() (blocktrace.Request, error) {
	line, err := s.in.next()
	if err != nil {
		return blocktrace.Request{}, err
	}
	s.rec = blockRecord{}
	if !s.scan(line) {
		s.rec = blockRecord{}
		if err := s.in.decode(line, &s.rec); err != nil {
			return blocktrace.Request{}, err
		}
	}
	rec := &s.rec
	fail := func(field, format string, a ...any) (blocktrace.Request, error) {
		return blocktrace.Request{}, s.in.fail(field, format, a...)
	}
	switch {
	case rec.T == nil:
		return fail("t", "missing or null (arrival time, seconds)")
	case rec.Conv == nil:
		return fail("conv", "missing or null (conversation id)")
	case rec.Input == nil:
		return fail("input", "missing or null (prompt length, tokens)")
	case rec.Output == nil:
		return fail("output", "missing or null (response length, tokens)")
	case rec.Block == nil:
		return fail("block", "missing or null (block size, tokens)")
	case rec.Hashes == nil:
		return fail("hashes", "missing or null (array of block ids)")
	case !finite(*rec.T) || *rec.T < 0:
		return fail("t", "must be a finite time ≥ 0 s, got %v", *rec.T)
	case s.sum.Requests > 0 && *rec.T < s.last:
		return fail("t", "%v s goes back before the previous request's %v s (the stream must be in arrival order)", *rec.T, s.last)
	case *rec.Conv < 0 || *rec.Conv > s.sum.Conversations:
		return fail("conv", "%d is not an earlier conversation or the next new one (%d)", *rec.Conv, s.sum.Conversations)
	case *rec.Input < 0:
		return fail("input", "must be ≥ 0 tokens, got %d", *rec.Input)
	case *rec.Input > trace.MaxTurnTokens || *rec.Output > trace.MaxTurnTokens:
		return fail("input", "lengths past 2^40 tokens are refused (input %d, output %d tokens)", *rec.Input, *rec.Output)
	case *rec.Output < 0:
		return fail("output", "must be ≥ 0 tokens, got %d", *rec.Output)
	case *rec.Block < 1 || *rec.Block > 1<<30:
		return fail("block", "must be between 1 and 2^30 tokens, got %d", *rec.Block)
	case s.block != 0 && int(*rec.Block) != s.block:
		return fail("block", "%d tokens differs from the earlier lines' %d", *rec.Block, s.block)
	}
	if err := s.in.checkChain("hashes", s.opt.Chain, *rec.Input, len(rec.Hashes), int(*rec.Block)); err != nil {
		return blocktrace.Request{}, err
	}
	s.block = int(*rec.Block)
	s.last = *rec.T
	if *rec.Conv == s.sum.Conversations {
		s.sum.Conversations++
	} else {
		s.sum.Linked++
	}
	cat, ok := s.cats[rec.Category]
	if !ok {
		s.cats[rec.Category] = rec.Category
		cat = rec.Category
	}
	r := blocktrace.Request{Index: int(s.sum.Requests), Time: *rec.T, Input: *rec.Input, Output: *rec.Output,
		Hashes: rec.Hashes, Category: cat, Conv: int(*rec.Conv)}
	s.sum.Requests++
	return r, nil
}

// BlockTokens returns the block size of the lines read so far (0 before
// the first).
func (s *Blocks) BlockTokens() int { return s.block }

// ConvName returns c in decimal.
func (s *Blocks) ConvName(c int) string { return strconv.Itoa(c) }

// Summary counts what has been read so far.
func (s *Blocks) Summary() Summary { return s.sum }

// BlockWriter writes requests in the blocks format.
type BlockWriter struct {
	w     *bufio.Writer
	block int64
}

// NewBlockWriter returns a writer of blocks-format lines of block size
// block tokens on w. Call Flush when done.
func NewBlockWriter(w io.Writer, block int) *BlockWriter {
	return &BlockWriter{w: bufio.NewWriter(w), block: int64(block)}
}

// Write writes r as one line. A request without a conversation id (Conv
// < 0: a Mooncake reader with Options.NoLinking derives none) is an error,
// since the format requires one.
func (w *BlockWriter) Write(r *blocktrace.Request) error {
	if r.Conv < 0 {
		return fmt.Errorf("blocks: request %d has no conversation id (conv %d; read the trace with its conversations derived)", r.Index, r.Conv)
	}
	t, conv, in, out := r.Time, int64(r.Conv), r.Input, r.Output
	hashes := r.Hashes
	if hashes == nil {
		hashes = []int64{}
	}
	b, err := json.Marshal(blockRecord{T: &t, Conv: &conv, Input: &in, Output: &out, Block: &w.block,
		Category: r.Category, Hashes: hashes})
	if err != nil {
		return fmt.Errorf("blocks: encode request %d: %w", r.Index, err)
	}
	b = append(b, '\n')
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("blocks: write: %w", err)
	}
	return nil
}

// Flush writes any buffered data.
func (w *BlockWriter) Flush() error { return w.w.Flush() }
