package importer

import (
	"bytes"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// TestCanonicalLoads checks, on random streams, that the canonical trace
// reads back and that its prefill load D = H + p (recomputed from the
// canonical turns by the canonical reader) equals every request's input
// except at fallbacks, where it exceeds it by the counted excess.
func TestCanonicalLoads(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		var reqs []blocktrace.Request
		convs := 0
		for i := range n {
			c := rapid.IntRange(0, convs).Draw(t, "conv")
			if c == convs {
				convs++
			}
			reqs = append(reqs, blocktrace.Request{Index: i, Time: float64(i), Conv: c,
				Input: rapid.Int64Range(0, 300).Draw(t, "in"), Output: rapid.Int64Range(0, 100).Draw(t, "out")})
		}
		var buf bytes.Buffer
		w := trace.NewWriter(&buf)
		c := &Canonicalizer{}
		for i := range reqs {
			rec, err := c.Record(&reqs[i], itoa(reqs[i].Conv))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		tr, err := trace.ReadAll(&buf, "canonical")
		if err != nil {
			t.Fatalf("canonical output rejected: %v", err)
		}
		hist := map[int]int64{}
		prev := map[int][2]int64{}
		var excess, fallbacks, short int64
		for _, r := range reqs {
			if p, ok := prev[r.Conv]; ok && r.Input < p[0]+p[1]+1 {
				short++
			}
			prev[r.Conv] = [2]int64{r.Input, r.Output}
		}
		for k, u := range tr.Turns {
			d := hist[u.Conv] + u.Prompt
			switch {
			case d == reqs[k].Input:
			case d > reqs[k].Input && u.Prompt == 1:
				fallbacks++
				excess += d - reqs[k].Input
			default:
				t.Fatalf("turn %d: canonical load %d tokens, input %d, prompt %d", k, d, reqs[k].Input, u.Prompt)
			}
			hist[u.Conv] = d + u.Response
		}
		if fallbacks != c.Fallbacks || excess != c.ExcessTokens || short != c.PairShort {
			t.Fatalf("counted %d fallbacks, %d excess tokens, %d pairwise short; recomputed %d, %d, %d",
				c.Fallbacks, c.ExcessTokens, c.PairShort, fallbacks, excess, short)
		}
	})
}

func TestCanonicalRejects(t *testing.T) {
	c := &Canonicalizer{}
	for _, r := range []blocktrace.Request{{Conv: 1}, {Conv: -1}, {Conv: 0, Input: -1}} {
		if _, _, err := c.Turn(&r); err == nil {
			t.Errorf("request %+v accepted", r)
		}
	}
}
