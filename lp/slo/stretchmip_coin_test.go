//go:build coin

package slo

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/coin"
	"github.com/tailbound/tailbound/lp/exhaustive"
)

// TestMIPStretchesWithCBC: with CBC solving the stretches, (a) each
// stretch's certified value is the stretches' own branch and bound's
// exact value, to the one unit of 2^−muBits the certification may add,
// and (b) Violations under a time limit with stretches of one row (so
// that the stretches run on these small components) never puts the
// fewest violations above the exhaustive search's optimum or below its
// lower end; random contested instances, optional and forced, B = 1..4.
func TestMIPStretchesWithCBC(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 3))
	checked, ran := 0, 0
	for i := 0; i < 300; i++ {
		c, s := randomContested(t, r, 8, 16, i%2 == 1)
		in := mustInstance(t, c)
		pr := reduce(in, s)
		for _, mem := range pr.members() {
			m := pr.newComponent(mem)
			if len(m.rowSeg) < 2 {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			sd := lpSplit(t, m, 1+i%3)
			var ws stretchSolver
			for _, w := range sd.wins {
				ws.solve(ctx, sd, w, 1<<30)
				want := w.val
				if !sd.stretchMIP(ctx, w, coin.CBC{}, 10*time.Second) {
					t.Fatalf("draw %d: CBC gave no bound", i)
				}
				if w.val < want || w.val > want+1 {
					t.Fatalf("draw %d (%v, s=%d): stretch rows %d..%d: CBC %d, branch and bound %d", i, c, s, w.r0, w.r1, w.val, want)
				}
				checked++
			}
			cancel()
		}
		best := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		res, err := Violations(context.Background(), in, s, Options{Backend: coin.CBC{}, TimeLimit: 5 * time.Second, LongStretchRows: 1, NoLNS: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Lower > best || res.Upper < best {
			t.Fatalf("draw %d (%v, s=%d): [%d, %d] misses the optimum %d (%s)", i, c, s, res.Lower, res.Upper, best, res.Detail)
		}
		if len(res.Detail) > 0 && containsStretches(res.Detail) {
			ran++
		}
	}
	t.Logf("%d stretches checked; the stretches ran in %d solves", checked, ran)
	if checked < 100 || ran < 2 {
		t.Fatalf("too few cases: %d stretches, %d solves with stretches", checked, ran)
	}
}

// TestStretchFlowAgainstCBC: on the first six stretches of 167 rows of the
// 10^4-turn instance of docs/tail-bounds.md (seed 1, at the LP's split),
// the pure-Go flow branch and bound (solveFlow) and CBC both close every
// stretch, at the same value.
func TestStretchFlowAgainstCBC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 10^4-turn instance")
	}
	m, _ := stretchBenchComponent(t, 1)
	sd := lpSplit(t, m, 167)
	sd.flowStrong = flowStrong
	for k, w := range sd.wins[:6] {
		start := time.Now()
		if !sd.solveFlow(context.Background(), w, 0) || !w.exact {
			t.Fatalf("stretch %d: the flow branch and bound did not close it", k)
		}
		flow, flowTime := w.val, time.Since(start)
		start = time.Now()
		w.fresh = false
		if !sd.stretchMIP(context.Background(), w, coin.CBC{}, time.Minute) || !w.exact {
			t.Fatalf("stretch %d: CBC did not close it", k)
		}
		if w.val != flow {
			t.Fatalf("stretch %d: flow %d, CBC %d (2^-16 pairs)", k, flow, w.val)
		}
		t.Logf("stretch %d: %.4f pairs, flow %v, CBC %v", k, float64(flow)/(1<<muBits), flowTime, time.Since(start))
	}
}
