package blocksim_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/trace"
)

// Worked by hand with B = 4. a1: prompt 6 → D = 6: blocks (a,0,full) and
// (a,1,fill 2): hashes 0, 1. b1: prompt 3 → (b,0,fill 3): 2. a2: history
// 6 + 3 = 9, prompt 5 → D = 14: (a,0,full) = 0 again, (a,1,full) is new (3),
// (a,2,full) 4, (a,3,fill 2) 5.
func TestChainerHandWorked(t *testing.T) {
	src := `{"t":0,"conv":"a","prompt":6,"response":3}
{"t":1,"conv":"b","prompt":3,"response":0}
{"t":2,"conv":"a","prompt":5,"response":1}
`
	next, err := blocksim.CanonicalSource(trace.NewReader(strings.NewReader(src), "x"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		input, output int64
		hashes        []int64
	}{{6, 3, []int64{0, 1}}, {3, 0, []int64{2}}, {14, 1, []int64{0, 3, 4, 5}}}
	for i, w := range want {
		r, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if r.Input != w.input || r.Output != w.output || !slices.Equal(r.Hashes, w.hashes) {
			t.Errorf("turn %d: input %d output %d hashes %v; want %d %d %v", i, r.Input, r.Output, r.Hashes, w.input, w.output, w.hashes)
		}
	}
	if _, err := next(); err != io.EOF {
		t.Errorf("end: %v", err)
	}
}

// FuzzChainer reads any bytes as a canonical trace; whatever the reader
// accepts must chain into requests with ⌈D/B⌉ blocks of D = history +
// prompt tokens, sharing exactly ⌊D_prev/B⌋ leading blocks with their
// conversation's previous turn and no block with another conversation.
func FuzzChainer(f *testing.F) {
	f.Add([]byte(`{"t":0,"conv":"a","prompt":6,"response":3}`+"\n"+`{"t":1,"conv":"a","prompt":1,"response":0}`), int64(4))
	f.Add([]byte(`{"t":0,"conv":"a","prompt":16,"response":0}`+"\n"+`{"t":0,"conv":"b","prompt":16,"response":16}`+"\n"+`{"t":3,"conv":"a","prompt":1,"response":2}`), int64(16))
	f.Add([]byte("{\"t\":0,\"conv\":\"x\",\"prompt\":-1,\"response\":0}"), int64(1))
	f.Add([]byte("not json"), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, block int64) {
		next, err := blocksim.CanonicalSource(trace.NewReader(bytes.NewReader(data), "fuzz"), block)
		if block < 1 {
			if err == nil {
				t.Fatal("block size < 1 accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		hist := map[int]int64{}   // history before the conversation's next turn
		prevD := map[int]int64{}  // load of its previous turn
		prev := map[int][]int64{} // chain of its previous turn
		owner := map[int64]int{}  // conversation of each hash
		for n := 0; n < 10000; n++ {
			r, err := next()
			if err != nil {
				return // EOF or a reader error: nothing more to check
			}
			c := r.Conv
			if r.Input <= hist[c] || int64(len(r.Hashes)) != (r.Input+block-1)/block {
				t.Fatalf("turn %d: input %d after history %d, %d blocks of %d tokens", n, r.Input, hist[c], len(r.Hashes), block)
			}
			if p, ok := prev[c]; ok {
				shared := 0
				for shared < len(p) && p[shared] == r.Hashes[shared] {
					shared++
				}
				if want := prevD[c] / block; int64(shared) != want {
					t.Fatalf("turn %d shares %d blocks with its conversation's previous turn, want %d", n, shared, want)
				}
			}
			for _, h := range r.Hashes {
				if o, ok := owner[h]; ok && o != c {
					t.Fatalf("turn %d: block %d shared by conversations %d and %d", n, h, o, c)
				}
				owner[h] = c
			}
			prev[c], prevD[c], hist[c] = r.Hashes, r.Input, r.Input+r.Output
		}
	})
}

// TestChainLimit: a turn whose chain would pass the limit is refused with
// its size, before anything is allocated for it (10^10 tokens at B = 16 is
// 625,000,000 blocks, which once ran for minutes).
func TestChainLimit(t *testing.T) {
	c, err := blocksim.NewChainer(16)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Request(trace.Turn{Conv: 0, Prompt: 10_000_000_000})
	if err == nil || !strings.Contains(err.Error(), "chain of 625000000 blocks") || !strings.Contains(err.Error(), "--max-chain-blocks raises it") {
		t.Errorf("error %v", err)
	}
	c.MaxBlocks = 4
	if _, err := c.Request(trace.Turn{Index: 1, Conv: 1, Prompt: 64}); err != nil {
		t.Errorf("64 tokens = 4 blocks at the limit of 4: %v", err)
	}
	if _, err := c.Request(trace.Turn{Index: 2, Conv: 2, Prompt: 65}); err == nil {
		t.Error("65 tokens = 5 blocks passed a limit of 4")
	}
}
