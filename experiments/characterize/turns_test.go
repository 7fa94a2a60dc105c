package characterize

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// handTrace: conversation a has turns (p, r) = (10, 5), (4, 2), (1, 1) and
// b one turn (3, 0).
const handTrace = `{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 1, "conv": "b", "prompt": 3, "response": 0}
{"t": 2, "conv": "a", "prompt": 4, "response": 2}
{"t": 3, "conv": "a", "prompt": 1, "response": 1}
`

func TestTurnsHandWorked(t *testing.T) {
	var tc TurnCounter
	src, err := CanonicalSource(trace.NewReader(strings.NewReader(handTrace), "hand"), 4, &tc)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(src, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tu := tc.Turns()
	// Turns per conversation {3, 1}; prompts {10, 3, 4, 1}; responses
	// {5, 0, 2, 1}; histories H = {0, 0, 15, 21}; loads H + p = {10, 3, 19, 22}.
	for _, c := range []struct {
		name string
		got  Dist
		want Dist
	}{
		{"turns per conversation", tu.PerConversation, Dist{Count: 2, Min: 1, P10: 1, P50: 1, P90: 3, P99: 3, Max: 3, Mean: 2}},
		{"prompt", tu.Prompt, Dist{Count: 4, Min: 1, P10: 1, P50: 3, P90: 10, P99: 10, Max: 10, Mean: 4.5}},
		{"response", tu.Response, Dist{Count: 4, Min: 0, P10: 0, P50: 1, P90: 5, P99: 5, Max: 5, Mean: 2}},
		{"history", tu.History, Dist{Count: 4, Min: 0, P10: 0, P50: 0, P90: 21, P99: 21, Max: 21, Mean: 9}},
		{"load", tu.Load, Dist{Count: 4, Min: 3, P10: 3, P50: 10, P90: 22, P99: 22, Max: 22, Mean: 13.5}},
	} {
		if c.got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if tu.Conversations != 2 || tu.Turns != 4 {
		t.Errorf("%d conversations, %d turns; want 2, 4", tu.Conversations, tu.Turns)
	}
	// Chained in 4-token blocks: a1 D=10 → 3 blocks (fills 4, 4, 2); b1 → 1;
	// a2 D=19 → 5 (positions 0, 1 shared; position 2 now full, a new
	// block); a3 D=22 → 6 (positions 0–3 shared with a2). 15 references,
	// a has 8 distinct blocks and b 1: ideal hit ratio 1 − 9/15 = 0.4.
	if rep.RefBlocks != 15 || rep.DistinctBlocks != 9 || *rep.IdealHitRatio != 1-9.0/15 {
		t.Errorf("refs %d distinct %d ratio %v, want 15, 9, 0.4", rep.RefBlocks, rep.DistinctBlocks, *rep.IdealHitRatio)
	}
	dir := t.TempDir()
	files, err := tu.Plot(dir, "hand")
	if err != nil || len(files) != 2 {
		t.Fatalf("plot: %v, %v", files, err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 || filepath.Dir(f) != dir {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestTurnsBadTurn(t *testing.T) {
	var tc TurnCounter
	if err := tc.Add(trace.Turn{Index: 3, Conv: 2, Prompt: 1}); err == nil || !strings.Contains(err.Error(), "turn 3") {
		t.Errorf("error %v, want one naming turn 3", err)
	}
}

func ExampleTurnCounter() {
	var tc TurnCounter
	for _, t := range []trace.Turn{
		{Index: 0, Conv: 0, Prompt: 10, Response: 5},
		{Index: 1, Conv: 1, Prompt: 3},
		{Index: 2, Conv: 0, Prompt: 4, Response: 2},
	} {
		if err := tc.Add(t); err != nil {
			fmt.Println(err)
		}
	}
	tu := tc.Turns()
	fmt.Println(tu.Conversations, "conversations; mean turns", tu.PerConversation.Mean, "; largest history", tu.History.Max, "tokens")
	// Output: 2 conversations; mean turns 1.5 ; largest history 15 tokens
}
