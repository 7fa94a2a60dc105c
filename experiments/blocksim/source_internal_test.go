package blocksim

import (
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
)

// Under --no-ideal the command reads a Mooncake trace without deriving its
// conversations (every Conv −1); otherwise it derives them. In the
// conversation trace the first request that continues an earlier one is
// line 134, whose chain starts with the 5 full blocks of line 67 (2,651
// tokens, ⌊2,651/512⌋ = 5 > k = 1): a scan of the file's first 134 lines
// finds no earlier pair, so lines 1–133 are conversations 0–132 and line
// 134 is conversation 66.
func TestSourceLinksUnlessNoIdeal(t *testing.T) {
	path := shareddata.Mooncake(t, "conversation_trace.jsonl")
	for _, noIdeal := range []bool{false, true} {
		c := &Command{NoIdeal: noIdeal}
		c.Trace, c.TraceFormat, c.MaxChain = path, "mooncake", DefaultMaxChainBlocks
		src, done, err := c.source()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 134; i++ {
			r, err := src.next()
			if err != nil {
				t.Fatalf("no-ideal %v, line %d: %v", noIdeal, i+1, err)
			}
			want := i
			switch {
			case noIdeal:
				want = -1
			case i == 133:
				want = 66
			}
			if r.Conv != want {
				t.Fatalf("no-ideal %v, line %d: conversation %d, want %d", noIdeal, i+1, r.Conv, want)
			}
		}
		done()
	}
}
