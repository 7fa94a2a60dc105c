package blocktail

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"pgregory.net/rapid"
)

// writeMooncake writes chains (block numbers as hashes) and inputs as a
// Mooncake trace (512-token blocks) and returns its path.
func writeMooncake(t *testing.T, dir string, chains [][]int64, inputs []int64) string {
	var b strings.Builder
	for i, c := range chains {
		ids := make([]string, len(c))
		for d, h := range c {
			ids[d] = fmt.Sprint(h)
		}
		fmt.Fprintf(&b, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": 1, \"hash_ids\": [%s]}\n", i, inputs[i], strings.Join(ids, ", "))
	}
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drawMooncake draws a random Mooncake trace of shared prefixes (from a
// drawn seed on PCG stream stream, which tells the tests' traces apart:
// 1 … maxRequests requests over 2 … maxNodes prefix nodes, 512-token
// blocks), writes it into dir and returns its path, its request count and
// its longest chain, blocks.
func drawMooncake(t *testing.T, rt *rapid.T, dir string, stream uint64, maxRequests, maxNodes int) (path string, n, longest int) {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), stream))
	n = rapid.IntRange(1, maxRequests).Draw(rt, "requests")
	chains, inputs := prefixtail.RandomChains(r, n, rapid.IntRange(2, maxNodes).Draw(rt, "nodes"), 512, false)
	for _, c := range chains {
		longest = max(longest, len(c))
	}
	return writeMooncake(t, dir, chains, inputs), n, longest
}

// TestLoadSpanRapid: on random traces cut into random runs of windows
// with random seams, joins and lower overlaps, the streamed span
// (CountRequests, LoadSpan) holds only SpanRange's requests (the overlap
// before the run's first window included), each window's history is that
// of its relaxation (prefixtail.HistoryOf over RelaxationRange on the whole
// trace: the same requests, chains and inputs), and WindowedSpan on it
// gives WindowedRange's result on the whole trace, every figure equal (the
// wall times aside), with the capacity-free or the Lagrangian lower bound.
func TestLoadSpanRapid(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		path, n, longest := drawMooncake(t, rt, dir, 1, 40, 12)
		capacity := longest + rapid.IntRange(0, 3).Draw(rt, "spare")
		obj := prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "xi"))}
		if rapid.Bool().Draw(rt, "slo") {
			obj = prefixtail.Objective{Kind: prefixtail.SLO, SLOTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "s"))}
		}
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		first := rapid.IntRange(0, windows-1).Draw(rt, "first")
		last := rapid.IntRange(first, windows-1).Draw(rt, "last")
		wo := prefixtail.WindowOptions{SeamRequests: rapid.IntRange(0, 6).Draw(rt, "seam"), JoinRequests: rapid.IntRange(0, 6).Draw(rt, "join"),
			LowerOverlapRequests: rapid.IntRange(0, n).Draw(rt, "overlap")}
		opt := prefixtail.Options{}
		if rapid.Bool().Draw(rt, "lagrangian") {
			opt.Lagrange = &prefixtail.LagrangeOptions{}
		}

		tr, err := Load(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		cn, block, err := CountRequests(path, "mooncake", 0)
		if err != nil || cn != n || block != 512 {
			rt.Fatalf("CountRequests: %d requests, %d tokens, %v; want %d, 512", cn, block, err, n)
		}
		sp, err := LoadSpan(path, "mooncake", 0, n, windows, first, last, wo)
		if err != nil {
			rt.Fatal(err)
		}
		lo, hi := prefixtail.SpanRange(n, windows, first, last, wo)
		if sp.First != lo || len(sp.Reqs) != hi-lo {
			rt.Fatalf("span holds [%d, %d), want [%d, %d)", sp.First, sp.First+len(sp.Reqs), lo, hi)
		}
		if r0, _ := prefixtail.RelaxationRange(n, windows, first, wo); lo > r0 {
			rt.Fatalf("span starts at %d, after the first relaxation's start %d", lo, r0)
		}
		for k := range sp.History {
			w := first + k
			a, b := prefixtail.RelaxationRange(n, windows, w, wo)
			want := prefixtail.HistoryOf(tr.Reqs, a, b)
			if len(sp.History[k]) != len(want) {
				rt.Fatalf("window %d: %d history requests, want %d", w, len(sp.History[k]), len(want))
			}
			for i, q := range sp.History[k] {
				o := tr.Reqs[want[i]]
				if q.Index != o.Index || q.Input != o.Input || !slices.Equal(q.Blocks, o.Blocks) {
					rt.Fatalf("window %d: history request %d is %d %v (%d tokens), want %d %v (%d tokens)", w, i, q.Index, q.Blocks, q.Input, o.Index, o.Blocks, o.Input)
				}
			}
		}
		want, errW := prefixtail.WindowedRange(context.Background(), tr.Reqs, 512, capacity, obj, windows, first, last, wo, opt)
		got, errG := prefixtail.WindowedSpan(context.Background(), &sp.Span, 512, capacity, obj, windows, first, last, wo, opt)
		if (errW != nil) != (errG != nil) {
			rt.Fatalf("whole trace: %v; streamed: %v", errW, errG)
		}
		if errW != nil {
			return
		}
		for _, b := range []*prefixtail.WindowBounds{want, got} {
			for i := range b.PerWindow {
				b.PerWindow[i].Seconds = 0
			}
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *want) {
			rt.Fatalf("streamed %+v\nwhole    %+v", *got, *want)
		}
	})
}

// TestLoadFlat: LoadFlat holds Load's chains and inputs (random Mooncake
// traces of shared prefixes), and a bad line mid-stream is Load's one-line
// error naming the file, the line and the field, with nothing returned.
func TestLoadFlat(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		path, _, _ := drawMooncake(t, rt, dir, 2, 60, 30)
		tr, err := Load(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		fl, block, err := LoadFlat(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		if block != tr.Block() || fl.Len() != len(tr.Reqs) || fl.Off[0] != 0 {
			rt.Fatalf("block %d, %d requests; Load: %d, %d", block, fl.Len(), tr.Block(), len(tr.Reqs))
		}
		for i, q := range tr.Reqs {
			if fl.Input[i] != q.Input || !slices.Equal(fl.Blocks[fl.Off[i]:fl.Off[i+1]], q.Blocks) {
				rt.Fatalf("request %d: input %d chain %v; Load: %d %v", i, fl.Input[i], fl.Blocks[fl.Off[i]:fl.Off[i+1]], q.Input, q.Blocks)
			}
		}
	})
	good := `{"timestamp": 1, "input_length": 600, "output_length": 1, "hash_ids": [1, 2]}` + "\n"
	for _, c := range []struct{ bad, want string }{
		{`{"timestamp": 2, "input_length": -4, "output_length": 1, "hash_ids": [1]}`, `:3: field "input_length"`},
		{`{"timestamp": 2, "input_length": 600, "output_length": 1, "hash_ids": [1, "x"]}`, `:3: field "hash_ids"`},
		{`{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [1, 2]}`, `:3: field "timestamp"`},
		{`{"timestamp": 2, "input_length": 600`, `:3`},
	} {
		path := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(path, []byte(good+good+c.bad+"\n"+good), 0o644); err != nil {
			t.Fatal(err)
		}
		fl, _, err := LoadFlat(path, "mooncake", 0)
		if err == nil || fl != nil || !strings.Contains(err.Error(), path+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v (flat %v), want one line with %q", c.bad, err, fl != nil, path+c.want)
		}
	}
}

// TestLoadSpanCount: a run that reads the trace to its end checks the
// count it was given (a count of lines made without parsing): one request
// more or one fewer than counted is an error, and a run that ends earlier
// reads no further than it needs.
func TestLoadSpanCount(t *testing.T) {
	dir := t.TempDir()
	chains := [][]int64{{1}, {1, 2}, {3}, {1, 2}}
	path := writeMooncake(t, dir, chains, []int64{512, 1024, 512, 1024})
	wo := prefixtail.WindowOptions{}
	for _, c := range []struct {
		n, first, last int
		want           string
	}{
		{4, 1, 1, ""},
		{3, 2, 2, "more than the 3 requests counted"},
		{5, 4, 4, "4 requests, counted 5"},
		{3, 0, 0, ""}, // ends at request 1 of 3: the count is not checked
	} {
		_, err := LoadSpan(path, "mooncake", 0, c.n, c.n, c.first, c.last, wo)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("n %d, windows %d … %d: got %v, want %q", c.n, c.first, c.last, err, c.want)
		}
	}
}
