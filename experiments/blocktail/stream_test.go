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

// TestLoadSpanRapid: on random traces cut into random runs of windows
// with random seams and joins, the streamed span (CountRequests, LoadSpan)
// holds only SpanRange's requests, its histories are the whole trace's
// (prefixtail.HistoryOf: the same requests, chains and inputs), and
// WindowedSpan on it gives WindowedRange's result on the whole trace, every
// figure equal (the wall times aside).
func TestLoadSpanRapid(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		n := rapid.IntRange(1, 40).Draw(rt, "requests")
		chains, inputs := prefixtail.RandomChains(r, n, rapid.IntRange(2, 12).Draw(rt, "nodes"), 512, false)
		path := writeMooncake(t, dir, chains, inputs)
		longest := 0
		for _, c := range chains {
			longest = max(longest, len(c))
		}
		capacity := longest + rapid.IntRange(0, 3).Draw(rt, "spare")
		obj := prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "xi"))}
		if rapid.Bool().Draw(rt, "slo") {
			obj = prefixtail.Objective{Kind: prefixtail.SLO, SLOTokens: float64(rapid.IntRange(0, 1024).Draw(rt, "s"))}
		}
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		first := rapid.IntRange(0, windows-1).Draw(rt, "first")
		last := rapid.IntRange(first, windows-1).Draw(rt, "last")
		wo := prefixtail.WindowOptions{SeamRequests: rapid.IntRange(0, 6).Draw(rt, "seam"), JoinRequests: rapid.IntRange(0, 6).Draw(rt, "join")}

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
		for k := range sp.History {
			w := first + k
			want := prefixtail.HistoryOf(tr.Reqs, w*n/windows, (w+1)*n/windows)
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
		want, errW := prefixtail.WindowedRange(context.Background(), tr.Reqs, 512, capacity, obj, windows, first, last, wo, prefixtail.Options{})
		got, errG := prefixtail.WindowedSpan(context.Background(), &sp.Span, 512, capacity, obj, windows, first, last, wo, prefixtail.Options{})
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
