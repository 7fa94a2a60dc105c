package lp_test

import (
	"context"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// handTrace builds a trace from (conversation, prompt, response) triples.
func handTrace(turns ...[3]int64) *trace.Trace {
	tr := &trace.Trace{}
	for k, t := range turns {
		tr.Append(float64(k), string(rune('a'+t[0])), t[1], t[2])
	}
	return tr
}

// TestHandWorked checks instances worked by hand.
//
// "split block": a (2 tokens), b (2 tokens), a returns with 1, b with 1;
// B = 2, C = 2 (one block), ξ = 2. First turns have D = 2 ≤ ξ: no excess.
// Each return has D = 3, excess 1 uncached, 0 if its one block is cached;
// the block can serve only one of them (both pairs span step 1): IP optimum
// 1. The LP relaxation caches half a block of each, saving 2 tokens per
// block: LP bound 0.
func TestHandWorked(t *testing.T) {
	cases := []struct {
		name          string
		tr            *trace.Trace
		c, b          int64
		xi            float64
		forced        bool
		ip, lp        float64
		asWritten     float64
		skipAsWritten bool
	}{
		{"split block", handTrace([3]int64{0, 2, 0}, [3]int64{1, 2, 0}, [3]int64{0, 1, 0}, [3]int64{1, 1, 0}), 2, 2, 2, false, 1, 0, 2, false},
		// One conversation, B = 1: 3 tokens then a return of 2 with C = 2,
		// ξ = 0. The return has D = 5; at most 2 cached: TEL = 3 (first
		// turn) + 3 = 6. LP is integral here (B = 1).
		{"capacity bound", handTrace([3]int64{0, 3, 0}, [3]int64{0, 2, 0}), 2, 1, 0, false, 6, 6, 4, false},
		// Forced, B = 1, C = 1: a (1 token), b (1 token), a returns (1).
		// After b's turn b must hold its token, evicting a's: a's return
		// has D = 2 uncached: TEL = 1 + 1 + 2 = 4 at ξ = 0. Optional
		// caching keeps a's token instead: 1 + 1 + 1 = 3.
		{"forced evicts", handTrace([3]int64{0, 1, 0}, [3]int64{1, 1, 0}, [3]int64{0, 1, 0}), 1, 1, 0, true, 4, 4, 0, true},
		{"optional keeps", handTrace([3]int64{0, 1, 0}, [3]int64{1, 1, 0}, [3]int64{0, 1, 0}), 1, 1, 0, false, 3, 3, 2, false},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := lp.NewInstance(c.tr, instance.Params{Capacity: c.c, BlockSize: c.b, Xi: c.xi, Forced: c.forced})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []lp.Formulation{lp.Compact, lp.Paper} {
				ip, err := lp.SolveInstance(ctx, in, f, gonumlp.Backend{}, false, lp.Options{})
				if err != nil || ip.Status != lp.Optimal || !near(ip.TEL, c.ip) {
					t.Errorf("%s IP: %v %v %v, want %v", f, err, ip.Status, ip.TEL, c.ip)
				}
				rl, err := lp.SolveInstance(ctx, in, f, gonumlp.Backend{}, true, lp.Options{})
				if err != nil || rl.Status != lp.Optimal || !near(rl.TEL, c.lp) {
					t.Errorf("%s LP: %v %v %v, want %v", f, err, rl.Status, rl.TEL, c.lp)
				}
			}
			fl, err := lp.SolveFlow(ctx, in, lp.Options{})
			if err != nil || !near(fl.TEL, c.ip) {
				t.Errorf("flow: %v %v, want %v", err, fl.TEL, c.ip)
			}
			if !c.skipAsWritten {
				aw, err := lp.SolveInstance(ctx, in, lp.PaperAsWritten, gonumlp.Backend{}, false, lp.Options{})
				if err != nil || !near(aw.TEL, c.asWritten) {
					t.Errorf("paper-as-written: %v %v, want %v", err, aw.TEL, c.asWritten)
				}
			}
		})
	}
}
