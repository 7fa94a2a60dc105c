package blocktail

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/prefixtail"
)

// TestBoundWindowedLookaheadRapid: a file streamed request by request
// (CountLines, then one parse) with a lookahead of at least its length
// gives BoundWindowedFlat's figures on the same file (the wall times
// aside), with seams and lower overlaps, both objectives; standard input's
// path (the trace held as a Flat, then read from it) is the same code on
// the same requests.
func TestBoundWindowedLookaheadRapid(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		path, n, longest := drawMooncake(t, rt, dir, 5, 40, 30)
		capacity := int64(512 * (longest + rapid.IntRange(0, 3).Draw(rt, "spare")))
		kind := rapid.SampledFrom([]prefixtail.Kind{prefixtail.TEL, prefixtail.SLO}).Draw(rt, "kind")
		cfg := Config{Objective: prefixtail.Objective{Kind: kind, XiTokens: 200, SLOTokens: 700}, LPSolver: "none", IPSolver: "none"}
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		wo := prefixtail.WindowOptions{SeamRequests: rapid.IntRange(0, n).Draw(rt, "seam"), LowerOverlapRequests: rapid.IntRange(0, n).Draw(rt, "overlap")}
		fl, block, err := LoadFlat(path, "mooncake", 0)
		if err != nil {
			rt.Fatal(err)
		}
		want, err := BoundWindowedFlat(context.Background(), fl, block, capacity, windows, wo, cfg)
		if err != nil {
			rt.Fatal(err)
		}
		h := rapid.IntRange(n, 2*n).Draw(rt, "lookahead")
		got, gb, err := BoundWindowedLookahead(context.Background(), path, "mooncake", 0, capacity, windows, h, wo, cfg)
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
		w, _, err := BoundWindowedLookahead(context.Background(), path, "mooncake", 0, 4096, 2, 1, prefixtail.WindowOptions{}, cfg)
		if err == nil || w != nil || !strings.Contains(err.Error(), path+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v (bounds %v), want one line with %q", c.text, err, w != nil, path+c.want)
		}
	}
}
