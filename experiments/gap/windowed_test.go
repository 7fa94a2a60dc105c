package gap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// TestWindowedBracketsExact: on random traces, every row of the windowed
// sweep has the TEL of the exact sweep's row (the same replay), an
// interval containing the exact sweep's TEL_opt (solved by flow), and
// relative gaps on either side of the exact one.
func TestWindowedBracketsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 41))
	for i := 0; i < 12; i++ {
		tr := &trace.Trace{}
		convs := 3 + r.IntN(10)
		for k := 0; k < 40+r.IntN(200); k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(40), r.Int64N(40))
		}
		cfg := Config{Block: 4, Capacities: []int64{0, 16, 64, 256}, Xis: []float64{0, 7.5}, Forced: i%3 == 2,
			Policies: policies.All()[:6], Model: latency.Default(), Workers: 1, Thresholds: []int64{0, 4}}
		exact, err := Run(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Windows = 1 + r.IntN(6)
		win, err := RunWindowed(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(win) != len(exact) {
			t.Fatalf("%d windowed rows, %d exact", len(win), len(exact))
		}
		for j, w := range win {
			e := exact[j]
			if w.Policy != e.Policy || w.CapacityTokens != e.CapacityTokens || w.XiTokens != e.XiTokens || w.TELTokens != e.TELTokens {
				t.Fatalf("row %d: windowed %+v, exact %+v", j, w, e)
			}
			if w.Lower > e.TELOptTokens+tol*max(1, e.TELOptTokens) || w.Upper < e.TELOptTokens-tol*max(1, e.TELOptTokens) {
				t.Fatalf("row %d (%d windows): [%v, %v] misses TEL_opt %v", j, cfg.Windows, w.Lower, w.Upper, e.TELOptTokens)
			}
			if e.RelGap != nil && (w.RelGapAtLeast != nil && *w.RelGapAtLeast > *e.RelGap+tol || w.RelGapAtMost != nil && *w.RelGapAtMost < *e.RelGap-tol) {
				t.Fatalf("row %d: relative gap %v outside [%v, %v]", j, *e.RelGap, *w.RelGapAtLeast, *w.RelGapAtMost)
			}
			if cfg.Windows == 1 && !w.ProvenOptimal {
				t.Fatalf("one window: interval [%v, %v] not closed", w.Lower, w.Upper)
			}
		}
	}
}
