package blocksim

import (
	"fmt"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// Chainer turns a canonical conversation trace, which has no hashes, into
// block-hash requests: each conversation's history is its own chain of
// B-token blocks, shared with no other conversation.
//
// Turn k of a conversation has load D_k = H_k + p_k tokens (its history and
// prompt; SPEC §2) and becomes a request with input D_k, output r_k and a
// chain of ⌈D_k/B⌉ blocks. Block j covers tokens [jB, min((j+1)B, D_k)) of
// the conversation, which never change once written (a history only grows),
// so a full block is the same block at every later turn. A last block that
// is only partly filled (f < B tokens) holds content that the next turn
// extends, so it is a different block from the one at the same position in
// any other turn with another fill. Hashes are numbered densely in order
// of first appearance and are prefix-chained: equal hash ⇔ same
// conversation, position and fill ⇔ same prefix.
//
// As in the production traces, whose hashes cover prompts only, the
// response of turn k is not part of its chain: it is cached (as part of
// the next turn's prompt) only when the next turn is served.
type Chainer struct {
	// MaxBlocks bounds one request's chain, blocks (0: DefaultMaxChainBlocks).
	// A conversation whose load passes it is refused up front rather than
	// chained block by block for minutes.
	MaxBlocks int64
	block     int64
	hist      []int64
	ids       map[blockKey]int64
}

// DefaultMaxChainBlocks is the default bound on one request's chain, blocks
// (2^24: 268 M tokens at B = 16, far past any context window; chaining it
// takes about a second).
const DefaultMaxChainBlocks = 1 << 24

type blockKey struct {
	conv      int
	pos, fill int64
}

// NewChainer returns a chainer for block size b tokens.
func NewChainer(b int64) (*Chainer, error) {
	if b < 1 {
		return nil, fmt.Errorf("block size %d tokens must be ≥ 1", b)
	}
	return &Chainer{block: b, ids: map[blockKey]int64{}}, nil
}

// Request converts the next turn of the trace (turns must come in trace
// order) into a request.
func (c *Chainer) Request(t trace.Turn) (blocktrace.Request, error) {
	if t.Conv < 0 || t.Prompt < 1 || t.Response < 0 {
		return blocktrace.Request{}, fmt.Errorf("turn %d: invalid (conversation %d, prompt %d, response %d tokens)", t.Index, t.Conv, t.Prompt, t.Response)
	}
	for len(c.hist) <= t.Conv {
		c.hist = append(c.hist, 0)
	}
	d := c.hist[t.Conv] + t.Prompt
	n := (d + c.block - 1) / c.block
	limit := c.MaxBlocks
	if limit <= 0 {
		limit = DefaultMaxChainBlocks
	}
	if n > limit {
		return blocktrace.Request{}, fmt.Errorf("turn %d: its load of %d tokens is a chain of %d blocks of %d tokens, over the limit of %d blocks per request (simulate's --max-chain-blocks raises it)",
			t.Index, d, n, c.block, limit)
	}
	r := blocktrace.Request{Index: t.Index, Time: t.Time, Input: d, Output: t.Response,
		Category: t.Category, Conv: t.Conv, Hashes: make([]int64, n)}
	for j := int64(0); j < n; j++ {
		k := blockKey{conv: t.Conv, pos: j, fill: min(c.block, d-j*c.block)}
		h, ok := c.ids[k]
		if !ok {
			h = int64(len(c.ids))
			c.ids[k] = h
		}
		r.Hashes[j] = h
	}
	c.hist[t.Conv] = d + t.Response
	return r, nil
}

// CanonicalSource returns a Source over a canonical trace reader, chaining
// its turns with block size b tokens.
func CanonicalSource(rd *trace.Reader, b int64) (blocktrace.Source, error) {
	return canonicalSource(rd, b, 0)
}

// canonicalSource is CanonicalSource with a bound on a request's chain,
// blocks (0: DefaultMaxChainBlocks). A turn past it is refused with the
// reader's file and line.
func canonicalSource(rd *trace.Reader, b, maxChain int64) (blocktrace.Source, error) {
	c, err := NewChainer(b)
	if err != nil {
		return nil, err
	}
	c.MaxBlocks = maxChain
	return func() (blocktrace.Request, error) {
		t, err := rd.Next()
		if err != nil {
			return blocktrace.Request{}, err
		}
		r, err := c.Request(t)
		if err != nil {
			return r, fmt.Errorf("%s:%d: %w", rd.Name(), rd.Line(), err)
		}
		return r, nil
	}, nil
}

// TurnsSource returns a Source over an in-memory trace's turns, chaining
// them with block size b tokens.
func TurnsSource(turns []trace.Turn, b int64) (blocktrace.Source, error) {
	return chained(replay.SliceSource(turns), b)
}

// chained returns a Source of the turns next yields, chained with block
// size b tokens.
func chained(next func() (trace.Turn, error), b int64) (blocktrace.Source, error) {
	c, err := NewChainer(b)
	if err != nil {
		return nil, err
	}
	return func() (blocktrace.Request, error) {
		t, err := next()
		if err != nil {
			return blocktrace.Request{}, err
		}
		return c.Request(t)
	}, nil
}
