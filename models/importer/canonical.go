package importer

import (
	"errors"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// Canonicalizer turns a block-level stream with conversation ids into
// canonical turns (package documentation, "Canonical prompts"): the
// prompt of a follow-up turn is its input less the conversation's
// canonical history, or 1 token when that is < 1 (a fallback, counted).
type Canonicalizer struct {
	hist []int64
	prev [][2]int64 // input and output of each conversation's latest turn, tokens
	// Fallbacks counts the turns whose prompt fell back to 1 token.
	Fallbacks int64
	// FollowUps counts the turns that continue a conversation.
	FollowUps int64
	// FallbackFollowUps counts the fallbacks among FollowUps (the rest are
	// first turns with an input of 0 tokens).
	FallbackFollowUps int64
	// PairShort counts the follow-ups whose input is short of the previous
	// turn's input plus output (input_k − input_{k−1} − output_{k−1} < 1),
	// whatever the earlier turns did: the fallbacks of the pairwise rule,
	// which does not carry an earlier fallback's excess forward.
	PairShort int64
	// ExcessTokens sums, over the fallbacks, the tokens by which the
	// canonical load H + p exceeds the trace's input.
	ExcessTokens int64
}

// Turn converts r (requests must come in stream order, with Conv ≥ 0 and
// dense) into its canonical prompt and response, in tokens.
func (c *Canonicalizer) Turn(r *blocktrace.Request) (prompt, response int64, err error) {
	if r.Conv < 0 || r.Conv > len(c.hist) || r.Input < 0 || r.Output < 0 {
		return 0, 0, fmt.Errorf("request %d: conversation %d (want 0..%d) or a negative length (input %d, output %d tokens)",
			r.Index, r.Conv, len(c.hist), r.Input, r.Output)
	}
	if r.Conv == len(c.hist) {
		c.hist = append(c.hist, 0)
		c.prev = append(c.prev, [2]int64{})
	} else {
		c.FollowUps++
		if p := c.prev[r.Conv]; r.Input-p[0]-p[1] < 1 {
			c.PairShort++
		}
	}
	c.prev[r.Conv] = [2]int64{r.Input, r.Output}
	h := c.hist[r.Conv]
	prompt = r.Input - h
	if prompt < 1 {
		c.Fallbacks++
		if h > 0 {
			c.FallbackFollowUps++
		}
		c.ExcessTokens += 1 - prompt
		prompt = 1
	}
	c.hist[r.Conv] = h + prompt + r.Output
	return prompt, r.Output, nil
}

// Record converts r into a canonical record; conv names its conversation.
func (c *Canonicalizer) Record(r *blocktrace.Request, conv string) (trace.Record, error) {
	p, q, err := c.Turn(r)
	if err != nil {
		return trace.Record{}, err
	}
	return trace.Record{T: r.Time, Conv: conv, Prompt: p, Response: q, Category: r.Category}, nil
}

// ErrNoRequests is the error of importing a trace with no request (empty,
// or blank lines only): there is nothing to convert.
var ErrNoRequests = errors.New("no requests (the trace is empty)")

// WriteCanonical reads src to the end and writes its canonical trace to
// w. It returns the canonicalizer's counts. A source with no request is
// ErrNoRequests, with nothing written.
func WriteCanonical(w io.Writer, src Source) (*Canonicalizer, error) {
	out := trace.NewWriter(w)
	c := &Canonicalizer{}
	for n := 0; ; n++ {
		r, err := src.Next()
		if err == io.EOF {
			if n == 0 {
				return nil, ErrNoRequests
			}
			break
		}
		if err != nil {
			return nil, err
		}
		rec, err := c.Record(&r, src.ConvName(r.Conv))
		if err != nil {
			return nil, err
		}
		if err := out.Write(rec); err != nil {
			return nil, err
		}
	}
	return c, out.Flush()
}

// WriteBlocks reads src to the end and writes it in the blocks format to w.
// A source with no request is ErrNoRequests, with nothing written.
func WriteBlocks(w io.Writer, src Source) error {
	var out *BlockWriter
	for {
		r, err := src.Next()
		if err == io.EOF {
			if out == nil {
				return ErrNoRequests
			}
			break
		}
		if err != nil {
			return err
		}
		if out == nil {
			out = NewBlockWriter(w, src.BlockTokens())
		}
		if err := out.Write(&r); err != nil {
			return err
		}
	}
	if out == nil {
		return nil
	}
	return out.Flush()
}
