package blocktail

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestBoundWindowedLookaheadRapid: a file streamed request by request
// (CountLines, then one parse) with a lookahead of at least its length
// gives BoundWindowedFlat's figures on the same file (the wall times
// aside), with seams and lower overlaps, both objectives; standard input's
// path (the trace held as a Flat, then read from it) is the same code on
// the same requests. With carried histories (both runs), and their hash
// ids read as block ids (--block-ids trace): the trace's ids are
// renumbered in order of first appearance first, so that they are the
// interner's, and the figures must be the same.
func TestBoundWindowedLookaheadRapid(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 5))
		n := rapid.IntRange(1, 40).Draw(rt, "requests")
		chains, inputs := prefixtail.RandomChains(r, n, rapid.IntRange(2, 30).Draw(rt, "nodes"), 512, false)
		first, longest := map[int64]int64{}, 0
		for _, c := range chains {
			longest = max(longest, len(c))
			for d, h := range c {
				if _, ok := first[h]; !ok {
					first[h] = int64(len(first))
				}
				c[d] = first[h]
			}
		}
		path := writeMooncake(t, dir, chains, inputs)
		carried := rapid.Bool().Draw(rt, "carried")
		traceIDs := carried && rapid.Bool().Draw(rt, "trace ids")
		capacity := int64(512 * (longest + rapid.IntRange(0, 3).Draw(rt, "spare")))
		kind := rapid.SampledFrom([]prefixtail.Kind{prefixtail.TEL, prefixtail.SLO}).Draw(rt, "kind")
		cfg := Config{Objective: prefixtail.Objective{Kind: kind, XiTokens: 200, SLOTokens: 700}, LPSolver: "none", IPSolver: "none"}
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		wo := prefixtail.WindowOptions{SeamRequests: rapid.IntRange(0, n).Draw(rt, "seam"), LowerOverlapRequests: rapid.IntRange(0, n).Draw(rt, "overlap"),
			CarriedHistory: carried}
		fl, block, err := LoadFlat(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		want, err := BoundWindowedFlat(context.Background(), fl, block, capacity, windows, wo, cfg)
		if err != nil {
			rt.Fatal(err)
		}
		h := rapid.IntRange(n, 2*n).Draw(rt, "lookahead")
		got, gb, err := BoundWindowedLookahead(context.Background(), path, "mooncake", 0, capacity, windows, h, wo, traceIDs, cfg)
		if err != nil {
			rt.Fatal(err)
		}
		if gb != block || got.ReplayLookaheadRequests != h {
			rt.Fatalf("block %d, lookahead %d; want %d, %d", gb, got.ReplayLookaheadRequests, block, h)
		}
		got.ReplayLookaheadRequests, got.Seconds, want.Seconds = 0, 0, 0
		for i := range got.PerWindow {
			got.PerWindow[i].Seconds, want.PerWindow[i].Seconds = 0, 0
		}
		if g, w := *got, *want; g.Lower != w.Lower || g.Upper != w.Upper || g.UpperNoSeams != w.UpperNoSeams || len(g.PerWindow) != len(w.PerWindow) {
			rt.Fatalf("streamed %+v, flat %+v", g, w)
		}
		for i := range got.PerWindow {
			if got.PerWindow[i] != want.PerWindow[i] {
				rt.Fatalf("window %d: streamed %+v, flat %+v", i, got.PerWindow[i], want.PerWindow[i])
			}
		}
	})
}

// TestBoundWindowedLookaheadBad: a bad line mid-stream is the parse's
// one-line file:line:field error and no bound, whatever was bounded before
// it (window 0 is bounded once request 1 is read).
func TestBoundWindowedLookaheadBad(t *testing.T) {
	dir := t.TempDir()
	good := `{"timestamp": 1, "input_length": 600, "output_length": 1, "hash_ids": [1, 2]}` + "\n"
	cfg := Config{Objective: prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: 200}, LPSolver: "none", IPSolver: "none"}
	for _, c := range []struct{ text, want string }{
		{good + good + `{"timestamp": 2, "input_length": -4, "output_length": 1, "hash_ids": [1]}` + "\n" + good, `:3: field "input_length"`},
		{good + good + good + `{"timestamp": 2, "input_length": 600, "output_length": 1, "hash_ids": [1, "x"]}` + "\n", `:4: field "hash_ids"`},
		{good + good + good + `{"timestamp": 2, "input_length": 600` + "\n", `:4`},
	} {
		path := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		w, _, err := BoundWindowedLookahead(context.Background(), path, "mooncake", 0, 4096, 2, 1, prefixtail.WindowOptions{}, false, cfg)
		if err == nil || w != nil || !strings.Contains(err.Error(), path+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v (bounds %v), want one line with %q", c.text, err, w != nil, path+c.want)
		}
	}
}

// TestBoundWindowedLookaheadTraceIDsBad: with the trace's hash ids as
// block ids, what an interner would have caught is a one-line error
// naming the file and the request, and no bound: an id that does not
// increase along its chain, a negative one, one past 2³¹ − 1, and a hash
// held after another parent than at its last use (the two chains
// [1, 3] and [2, 3]; an interner would make them two blocks).
func TestBoundWindowedLookaheadTraceIDsBad(t *testing.T) {
	dir := t.TempDir()
	line := func(ids string) string {
		input := 512 * (strings.Count(ids, ",") + 1)
		return `{"timestamp": 1, "input_length": ` + strconv.Itoa(input) + `, "output_length": 1, "hash_ids": [` + ids + `]}` + "\n"
	}
	cfg := Config{Objective: prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: 200}, LPSolver: "none", IPSolver: "none"}
	wo := prefixtail.WindowOptions{CarriedHistory: true}
	for _, c := range []struct{ text, want string }{
		{line("0, 1") + line("2, 1"), "request 1: hash_ids[1] = 1 after 2"},
		{line("0, 1") + line("-3"), "request 1: hash_ids[0] = -3"},
		{line("0, 1") + line("2147483648"), "request 1: hash_ids[0] = 2147483648"},
		{line("1, 3") + line("2, 3"), "request 1: block 3 at depth 1 after block 2, but at request 0"},
	} {
		path := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		w, _, err := BoundWindowedLookahead(context.Background(), path, "mooncake", 0, 4096, 2, 1, wo, true, cfg)
		if err == nil || w != nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v (bounds %v), want one line naming %s with %q", c.text, err, w != nil, path, c.want)
		}
	}
	if _, _, err := BoundWindowedLookahead(context.Background(), "-", "mooncake", 0, 4096, 2, 1, wo, true, cfg); err == nil {
		t.Error("the trace's ids accepted from standard input")
	}
	if _, _, err := BoundWindowedLookahead(context.Background(), filepath.Join(dir, "bad.jsonl"), "mooncake", 0, 4096, 2, 1, prefixtail.WindowOptions{}, true, cfg); err == nil {
		t.Error("the trace's ids accepted without carried histories")
	}
}

// FuzzTraceBlocks: any hash ids are either refused, with one line, or
// become the same ids as block ids, each in 0 … 2³¹−1 and increasing
// along the chain; a request before the previous one's time is refused
// (prefixcache.CheckNext's test: a time that is not a number is not
// "before").
func FuzzTraceBlocks(f *testing.F) {
	f.Add(int64(0), int64(1), int64(2), 1.0, 2.0)
	f.Add(int64(5), int64(3), int64(9), 2.0, 1.0)
	f.Add(int64(-1), int64(1<<31), int64(7), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c int64, last, now float64) {
		r := blocktrace.Request{Index: 3, Time: now, Input: 3 * 512, Hashes: []int64{a, b, c}}
		var q prefixcache.Req
		arena, err := traceBlocks(&q, &r, true, last, nil)
		ok := !(now < last) && a >= 0 && a < b && b < c && c <= math.MaxInt32
		if err != nil {
			if ok || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%v at %v after %v: %v", r.Hashes, now, last, err)
			}
			return
		}
		if !ok || len(q.Blocks) != 3 || len(arena) != 3 || q.Index != 3 || q.Input != r.Input {
			t.Fatalf("%v at %v after %v accepted as %+v", r.Hashes, now, last, q)
		}
		for d, id := range q.Blocks {
			if int64(id) != r.Hashes[d] {
				t.Fatalf("%v read as %v", r.Hashes, q.Blocks)
			}
		}
	})
}
