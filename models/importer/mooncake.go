package importer

import (
	"io"
	"sort"
	"strconv"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// MooncakeBlockTokens is the Mooncake traces' block size in tokens.
const MooncakeBlockTokens = 512

// Mooncake reads a Mooncake trace (see the package documentation) and links
// its requests into conversations by shared prefixes, unless
// Options.NoLinking says that nothing will read them.
type Mooncake struct {
	in      *lines
	opt     Options
	link    *prefixLinker
	lastMs  int64
	sum     Summary
	firstLn lineRuns
	rec     mooncakeRecord
	vals    [3]int64
}

// NewMooncake returns a reader of the Mooncake trace r; name is used in
// errors.
func NewMooncake(r io.Reader, name string, opt Options) *Mooncake {
	m := &Mooncake{in: newLines(r, name, opt.MaxLineBytes), opt: opt}
	if !opt.NoLinking {
		m.link = newPrefixLinker(opt.MinSharedBlocks)
	}
	return m
}

type mooncakeRecord struct {
	Timestamp *int64  `json:"timestamp"`
	Input     *int64  `json:"input_length"`
	Output    *int64  `json:"output_length"`
	Hashes    []int64 `json:"hash_ids"`
}

// Next returns the next request, io.EOF at the end, or a *ParseError.
func (m *Mooncake) Next() (blocktrace.Request, error) {
	b, err := m.in.next()
	if err != nil {
		return blocktrace.Request{}, err
	}
	m.rec = mooncakeRecord{}
	if !m.scan(b) {
		m.rec = mooncakeRecord{}
		if err := m.in.decode(b, &m.rec); err != nil {
			return blocktrace.Request{}, err
		}
	}
	rec := &m.rec
	l := m.in
	switch {
	case rec.Timestamp == nil:
		return blocktrace.Request{}, l.fail("timestamp", "missing or null (arrival time, integer ms)")
	case rec.Input == nil:
		return blocktrace.Request{}, l.fail("input_length", "missing or null (prompt length, tokens)")
	case rec.Output == nil:
		return blocktrace.Request{}, l.fail("output_length", "missing or null (response length, tokens)")
	case rec.Hashes == nil:
		return blocktrace.Request{}, l.fail("hash_ids", "missing or null (array of block ids)")
	case *rec.Timestamp < 0:
		return blocktrace.Request{}, l.fail("timestamp", "must be ≥ 0 ms, got %d", *rec.Timestamp)
	case m.sum.Requests > 0 && *rec.Timestamp < m.lastMs:
		return blocktrace.Request{}, l.fail("timestamp", "%d ms goes back before the previous request's %d ms (the trace must be in arrival order)", *rec.Timestamp, m.lastMs)
	case *rec.Input < 0:
		return blocktrace.Request{}, l.fail("input_length", "must be ≥ 0 tokens, got %d", *rec.Input)
	case *rec.Input > trace.MaxTurnTokens || *rec.Output > trace.MaxTurnTokens:
		return blocktrace.Request{}, l.fail("input_length", "lengths past 2^40 tokens are refused (input %d, output %d tokens)", *rec.Input, *rec.Output)
	case *rec.Output < 0:
		return blocktrace.Request{}, l.fail("output_length", "must be ≥ 0 tokens, got %d", *rec.Output)
	}
	if err := l.checkChain("hash_ids", m.opt.Chain, *rec.Input, len(rec.Hashes), MooncakeBlockTokens); err != nil {
		return blocktrace.Request{}, err
	}
	m.lastMs = *rec.Timestamp
	conv := -1
	if m.link != nil {
		var linked bool
		conv, linked = m.link.link(rec.Hashes, int(*rec.Input/MooncakeBlockTokens))
		if linked {
			m.sum.Linked++
		} else {
			m.sum.Conversations++
			m.firstLn.add(l.line)
		}
	}
	r := blocktrace.Request{Index: int(m.sum.Requests), Time: float64(*rec.Timestamp) / 1000,
		Input: *rec.Input, Output: *rec.Output, Hashes: rec.Hashes, Conv: conv}
	m.sum.Requests++
	return r, nil
}

// BlockTokens returns 512.
func (m *Mooncake) BlockTokens() int { return MooncakeBlockTokens }

// ConvName returns the 1-based line number of conversation c's first
// request; "" under Options.NoLinking, which derives no conversations.
func (m *Mooncake) ConvName(c int) string {
	if m.link == nil {
		return ""
	}
	return strconv.Itoa(m.firstLn.at(c))
}

// lineRuns holds the increasing first lines of the conversations as runs
// of consecutive lines, so that a stream where most requests start a
// conversation costs memory per linked request, not per request.
type lineRuns struct {
	conv, line []int // first conversation and its line, per run
	n, last    int   // conversations so far, the latest line
}

func (r *lineRuns) add(line int) {
	if r.n == 0 || line != r.last+1 {
		r.conv = append(r.conv, r.n)
		r.line = append(r.line, line)
	}
	r.last = line
	r.n++
}

// at returns the first line of conversation c (0 ≤ c < n).
func (r *lineRuns) at(c int) int {
	i := sort.SearchInts(r.conv, c+1) - 1
	return r.line[i] + c - r.conv[i]
}

// Summary counts what has been read so far.
func (m *Mooncake) Summary() Summary { return m.sum }
