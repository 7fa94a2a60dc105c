package blocktail

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tailbound/tailbound/lp/prefixtail"
)

// TestTargetWidthBlock: under --target-width the one-process block-level
// windowed solve halves the window count (5, 3, 2, 1) until the width is
// met or one window is left; each width tried is the solve's at that
// count alone, the answer is the last count's, the one-window interval
// meets the whole trace's (BoundOne), and a width met at once stops
// after one count.
func TestTargetWidthBlock(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 1))
	chains, inputs := prefixtail.RandomChains(r, 120, 40, 512, false)
	longest := 0
	for _, c := range chains {
		longest = max(longest, len(c))
	}
	path := writeMooncake(t, t.TempDir(), chains, inputs)
	capacity := int64(longest+2) * 512
	for _, obj := range []string{"tel", "slo"} {
		c := Command{Trace: path, TraceFormat: "mooncake", Capacities: strconv.FormatInt(capacity, 10), Objective: obj, XiTokens: 600, SLOTokens: 900,
			Policies: "none", LPSolver: "lagrangian", IPSolver: "none", Format: "json", Windows: 5, SeamRequests: 4}
		// solve returns the windowed interval of c and what it tried.
		solve := func(c Command) (*Windowed, Target) {
			doc, tables, err := c.Solve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			d := doc.(struct {
				Units    string         `json:"units"`
				Settings map[string]any `json:"settings"`
				*Windowed
				Target
			})
			if len(tables) != 2+min(len(d.Tried), 1) {
				t.Fatalf("%s: %d tables for %d tries", obj, len(tables), len(d.Tried))
			}
			return d.Windowed, d.Target
		}
		alone := map[int]float64{}
		var one *Windowed
		for _, nw := range []int{5, 3, 2, 1} {
			a := c
			a.Windows = nw
			w, _ := solve(a)
			alone[nw], one = w.RelativeWidth, w
		}
		if alone[5] == 0 {
			t.Fatalf("%s: 5 windows already closed: the test needs a trace they do not close", obj)
		}
		c.TargetWidth = 1e-12
		w, tg := solve(c)
		if w.Windows != 1 || w.Lower != one.Lower || w.Upper != one.Upper || len(tg.Tried) != 4 || *tg.TargetMet != (w.RelativeWidth <= 1e-12) {
			t.Fatalf("%s: %d windows [%v, %v], tried %v; one window alone [%v, %v]", obj, w.Windows, w.Lower, w.Upper, tg.Tried, one.Lower, one.Upper)
		}
		for i, nw := range []int{5, 3, 2, 1} {
			if tr := tg.Tried[i]; tr.Windows != nw || tr.RelativeWidth != alone[nw] {
				t.Fatalf("%s: try %d %+v, want %d windows of width %v", obj, i, tr, nw, alone[nw])
			}
		}
		tr, cfg, err := c.config()
		if err != nil {
			t.Fatal(err)
		}
		whole, err := BoundOne(ctx, tr, capacity, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if w.Lower > whole.Upper+1e-6 || w.Upper < whole.Lower-1e-6 {
			t.Fatalf("%s: one window [%v, %v], whole trace [%v, %v]", obj, w.Lower, w.Upper, whole.Lower, whole.Upper)
		}
		c.TargetWidth = 0.999
		if w, tg := solve(c); w.Windows != 5 || len(tg.Tried) != 1 || !*tg.TargetMet {
			t.Fatalf("%s: a width met at once: %d windows, tried %v", obj, w.Windows, tg.Tried)
		}
	}
}
