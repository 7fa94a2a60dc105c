package importer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
)

// ParseError is a malformed line: file, 1-based line and field. It is the
// canonical reader's error type, so that callers test for one type.
type ParseError = trace.ParseError

// Source is a validating reader of one block-hash trace. Next returns the
// requests in file order with Index, Time (seconds), Input and Output
// (tokens), Hashes, Category and Conv set; it returns io.EOF at the end
// and a *ParseError for a malformed line. A Source holds memory per
// conversation and per chat id, not per request.
type Source interface {
	Next() (blocktrace.Request, error)
	// BlockTokens is the block size in tokens that the hashes stand for.
	BlockTokens() int
	// ConvName names conversation c as the file can show it (Mooncake: the
	// 1-based line of its first request; Bailian: its first chat_id).
	ConvName(c int) string
	// Summary counts what has been read so far.
	Summary() Summary
}

// Summary counts the requests read and the conversations derived.
type Summary struct {
	// Requests is the number of requests read.
	Requests int64
	// Linked is the number of requests that continue an earlier request's
	// conversation (Requests − Conversations).
	Linked int64
	// Conversations is the number of conversations derived.
	Conversations int64
	// Orphans counts Bailian requests whose parent_chat_id is not an
	// earlier line of the file (they start a conversation).
	Orphans int64
	// Forks counts Bailian requests whose parent already has a later turn
	// in its conversation (they start a conversation).
	Forks int64
	// TurnMismatches counts Bailian requests whose turn is not their
	// parent's turn + 1 (parent in the file) or not 1 (parent −1); an
	// orphan's turn is not checked.
	TurnMismatches int64
}

// ChainRule says how the length of a request's hash chain must relate to
// its input length of L tokens in blocks of B tokens.
type ChainRule int

const (
	// ChainCeil requires ⌈L/B⌉ blocks: every prompt token in one block.
	ChainCeil ChainRule = iota
	// ChainFloor requires ⌊L/B⌋ blocks: full blocks only are hashed.
	ChainFloor
	// ChainAny does not check the length.
	ChainAny
)

// chainRules names the rules as the command line spells them.
var chainRules = []string{"ceil", "floor", "any"}

// ParseChainRule parses "ceil", "floor" or "any".
func ParseChainRule(s string) (ChainRule, error) {
	for i, n := range chainRules {
		if s == n {
			return ChainRule(i), nil
		}
	}
	return 0, fmt.Errorf("chain rule %q: want %s", s, strings.Join(chainRules, "|"))
}

// String returns the rule's name.
func (c ChainRule) String() string {
	if c >= 0 && int(c) < len(chainRules) {
		return chainRules[c]
	}
	return fmt.Sprintf("ChainRule(%d)", int(c))
}

// want returns the chain length the rule requires for input tokens in
// blocks of b tokens, and false when it requires none.
func (c ChainRule) want(input int64, b int) (int64, bool) {
	switch c {
	case ChainCeil:
		return (input + int64(b) - 1) / int64(b), true
	case ChainFloor:
		return input / int64(b), true
	}
	return 0, false
}

// DefaultMinSharedBlocks is the Mooncake system-prompt guard k (blocks):
// see the package documentation for the measurement behind it.
const DefaultMinSharedBlocks = 1

// Options tune the importers. The zero value is the strict default with
// k = 0; use DefaultOptions for the documented defaults.
type Options struct {
	// Chain is the chain-length rule.
	Chain ChainRule
	// MinSharedBlocks is the Mooncake linking guard k, in blocks: a request
	// continues a conversation only through a shared chain longer than k.
	MinSharedBlocks int
	// ExtraTypes are Bailian request types accepted besides text, search,
	// image and file.
	ExtraTypes []string
	// MaxLineBytes bounds one line; 0 means 64 MiB.
	MaxLineBytes int
	// NoLinking turns the Mooncake reader's conversation linking off, for
	// a consumer that reads no conversation ids (simulate --no-ideal:
	// its policies see chains only). Every request's Conv is then −1
	// ("not linked", as package blocktrace has it), Summary counts
	// requests only (Linked and Conversations stay 0), ConvName names
	// nothing, and the reader keeps no state per conversation: the
	// linker's chains, which an exact linker must keep for as long as a
	// later request could continue them (the format marks no session's
	// end), are what made its memory grow with the sessions of a long
	// stream. Everything else — validation, errors, the other fields of
	// every request — is unchanged. The other formats read their
	// conversations from the file's own fields and ignore it.
	NoLinking bool
}

// DefaultOptions returns ChainCeil and k = DefaultMinSharedBlocks.
func DefaultOptions() Options {
	return Options{Chain: ChainCeil, MinSharedBlocks: DefaultMinSharedBlocks}
}

// formats lists the formats New and Open accept.
var formats = []string{"mooncake", "bailian", "blocks"}

// Formats returns the names of the formats New and Open accept.
func Formats() []string { return append([]string(nil), formats...) }

// New returns a Source reading r in format ("mooncake", "bailian" or
// "blocks"); name is the file name used in errors.
func New(r io.Reader, name, format string, opt Options) (Source, error) {
	if opt.MinSharedBlocks < 0 {
		return nil, fmt.Errorf("minimum shared blocks %d must be ≥ 0", opt.MinSharedBlocks)
	}
	if _, err := ParseChainRule(opt.Chain.String()); err != nil {
		return nil, err
	}
	switch format {
	case "mooncake":
		return NewMooncake(r, name, opt), nil
	case "bailian":
		return NewBailian(r, name, opt), nil
	case "blocks":
		return NewBlocks(r, name, opt), nil
	}
	return nil, fmt.Errorf("trace format %q: want %s", format, strings.Join(formats, "|"))
}

// Open opens the trace file at path ("-" for standard input) in format. The
// caller closes the returned Closer.
func Open(path, format string, opt Options) (Source, io.Closer, error) {
	f, err := trace.Open(path)
	if err != nil {
		return nil, nil, err
	}
	src, err := New(f, path, format, opt)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return src, f, nil
}

// ReadAll drains src into an in-memory stream.
func ReadAll(src Source) (*blocktrace.Stream, error) {
	s := &blocktrace.Stream{}
	for {
		r, err := src.Next()
		if err == io.EOF {
			s.BlockTokens = src.BlockTokens()
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		s.Requests = append(s.Requests, r)
	}
}

// streamSource replays an in-memory stream as a Source.
type streamSource struct {
	s *blocktrace.Stream
	i int
}

// StreamSourceOf returns a Source over an in-memory stream; conversations
// are named by their ids in decimal.
func StreamSourceOf(s *blocktrace.Stream) Source { return &streamSource{s: s} }

func (s *streamSource) Next() (blocktrace.Request, error) {
	if s.i == len(s.s.Requests) {
		return blocktrace.Request{}, io.EOF
	}
	s.i++
	return s.s.Requests[s.i-1], nil
}

func (s *streamSource) BlockTokens() int { return s.s.BlockTokens }

func (s *streamSource) ConvName(c int) string { return strconv.Itoa(c) }

// Summary counts the requests replayed so far and their conversations.
func (s *streamSource) Summary() Summary {
	var sum Summary
	for _, r := range s.s.Requests[:s.i] {
		sum.Requests++
		if int64(r.Conv) == sum.Conversations {
			sum.Conversations++
		}
	}
	sum.Linked = sum.Requests - sum.Conversations
	return sum
}
