package importer

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// BailianBlockTokens is the Bailian traces' block size in tokens.
const BailianBlockTokens = 16

// BailianTypes are the request types of the published Bailian schema.
var bailianTypes = []string{"text", "search", "image", "file"}

// Bailian reads an Alibaba Bailian trace (see the package documentation)
// and links its requests into conversations by parent_chat_id.
type Bailian struct {
	in    *lines
	opt   Options
	types map[string]string
	chats map[int64]chat
	// latest holds each conversation's latest chat_id; root its first.
	latest, root []int64
	last         float64
	sum          Summary
	rec          bailianRecord
	vals         bailianValues
}

type chat struct {
	conv int32
	turn int32
}

// NewBailian returns a reader of the Bailian trace r; name is used in
// errors.
func NewBailian(r io.Reader, name string, opt Options) *Bailian {
	b := &Bailian{in: newLines(r, name, opt.MaxLineBytes), opt: opt, types: map[string]string{}, chats: map[int64]chat{}}
	for _, t := range slices.Concat(bailianTypes, opt.ExtraTypes) {
		b.types[t] = t
	}
	return b
}

type bailianRecord struct {
	ChatID    *int64   `json:"chat_id"`
	Parent    *int64   `json:"parent_chat_id"`
	Timestamp *float64 `json:"timestamp"`
	Input     *int64   `json:"input_length"`
	Output    *int64   `json:"output_length"`
	Type      *string  `json:"type"`
	Turn      *int64   `json:"turn"`
	Hashes    []int64  `json:"hash_ids"`
}

func (b *Bailian) typeList() string {
	return strings.Join(slices.Concat(bailianTypes, b.opt.ExtraTypes), ", ")
}

// Next returns the next request, io.EOF at the end, or a *ParseError.
func (b *Bailian) Next() (blocktrace.Request, error) {
	line, err := b.in.next()
	if err != nil {
		return blocktrace.Request{}, err
	}
	b.rec = bailianRecord{}
	if !b.scan(line) {
		b.rec = bailianRecord{}
		if err := b.in.decode(line, &b.rec); err != nil {
			return blocktrace.Request{}, err
		}
	}
	rec := &b.rec
	l := b.in
	fail := func(field, format string, a ...any) (blocktrace.Request, error) {
		return blocktrace.Request{}, l.fail(field, format, a...)
	}
	switch {
	case rec.ChatID == nil:
		return fail("chat_id", "missing or null (integer request id)")
	case rec.Parent == nil:
		return fail("parent_chat_id", "missing or null (integer id of the previous turn, -1 for a first turn)")
	case rec.Timestamp == nil:
		return fail("timestamp", "missing or null (arrival time, seconds)")
	case rec.Input == nil:
		return fail("input_length", "missing or null (prompt length, tokens)")
	case rec.Output == nil:
		return fail("output_length", "missing or null (response length, tokens)")
	case rec.Type == nil:
		return fail("type", "missing or null (request type: %s)", b.typeList())
	case rec.Turn == nil:
		return fail("turn", "missing or null (turn number, 1 for a first turn)")
	case rec.Hashes == nil:
		return fail("hash_ids", "missing or null (array of block ids)")
	case *rec.ChatID < 0:
		return fail("chat_id", "must be ≥ 0, got %d", *rec.ChatID)
	case *rec.Parent < -1:
		return fail("parent_chat_id", "must be -1 (first turn) or ≥ 0, got %d", *rec.Parent)
	case *rec.Parent == *rec.ChatID:
		return fail("parent_chat_id", "%d is the line's own chat_id", *rec.Parent)
	case !finite(*rec.Timestamp) || *rec.Timestamp < 0:
		return fail("timestamp", "must be a finite time ≥ 0 s, got %v", *rec.Timestamp)
	case b.sum.Requests > 0 && *rec.Timestamp < b.last:
		return fail("timestamp", "%v s goes back before the previous request's %v s (the trace must be in arrival order)", *rec.Timestamp, b.last)
	case *rec.Input < 0:
		return fail("input_length", "must be ≥ 0 tokens, got %d", *rec.Input)
	case *rec.Input > trace.MaxTurnTokens || *rec.Output > trace.MaxTurnTokens:
		return fail("input_length", "lengths past 2^40 tokens are refused (input %d, output %d tokens)", *rec.Input, *rec.Output)
	case *rec.Output < 0:
		return fail("output_length", "must be ≥ 0 tokens, got %d", *rec.Output)
	case *rec.Turn < 1 || *rec.Turn > 1<<30:
		return fail("turn", "must be between 1 and 2^30, got %d", *rec.Turn)
	}
	typ, ok := b.types[*rec.Type]
	if !ok {
		return fail("type", "unknown request type %q (want one of %s)", *rec.Type, b.typeList())
	}
	if _, dup := b.chats[*rec.ChatID]; dup {
		return fail("chat_id", "%d occurs on an earlier line", *rec.ChatID)
	}
	if err := l.checkChain("hash_ids", b.opt.Chain, *rec.Input, len(rec.Hashes), BailianBlockTokens); err != nil {
		return blocktrace.Request{}, err
	}
	b.last = *rec.Timestamp
	conv, wantTurn := -1, int64(1)
	if p := *rec.Parent; p >= 0 {
		pc, ok := b.chats[p]
		switch {
		case !ok:
			b.sum.Orphans++
			wantTurn = *rec.Turn // a parent outside the file says nothing
		case b.latest[pc.conv] != p:
			b.sum.Forks++
			wantTurn = int64(pc.turn) + 1
		default:
			conv = int(pc.conv)
			wantTurn = int64(pc.turn) + 1
		}
	}
	if *rec.Turn != wantTurn {
		b.sum.TurnMismatches++
	}
	if conv < 0 {
		conv = len(b.latest)
		b.latest = append(b.latest, *rec.ChatID)
		b.root = append(b.root, *rec.ChatID)
		b.sum.Conversations++
	} else {
		b.latest[conv] = *rec.ChatID
		b.sum.Linked++
	}
	b.chats[*rec.ChatID] = chat{conv: int32(conv), turn: int32(*rec.Turn)}
	r := blocktrace.Request{Index: int(b.sum.Requests), Time: *rec.Timestamp, Input: *rec.Input,
		Output: *rec.Output, Hashes: rec.Hashes, Category: typ, Conv: conv}
	b.sum.Requests++
	return r, nil
}

// BlockTokens returns 16.
func (b *Bailian) BlockTokens() int { return BailianBlockTokens }

// ConvName returns the chat_id of conversation c's first request.
func (b *Bailian) ConvName(c int) string { return strconv.FormatInt(b.root[c], 10) }

// Summary counts what has been read so far.
func (b *Bailian) Summary() Summary { return b.sum }
