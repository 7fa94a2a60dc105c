package slo

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
)

// TestCoarsenBrute: on random components of up to 5 rows cut into
// stretches of one or two rows with random shares (either sign), merging
// neighbours (coarsen) keeps every member's shares summing to one, never
// raises the bound |N_0| + Σ_w val_w at those shares, and leaves every
// stretch (merged or not) with its enumerated value and a point that fits
// its rows and attains it; the bound stays at or above the enumerated
// optimum. A node budget of one node, half of the time, makes merges fail
// and split back.
func TestCoarsenBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 1))
	merges, lower := 0, 0
	for it := 0; it < 3000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) < 2 {
			continue
		}
		sd := m.newStretchDecomp(1+r.IntN(2), 1)
		randomShares(r, sd)
		before := sd.solveAll(context.Background())
		if it%2 == 1 {
			sd.nodeLimit = 1
		}
		out, merged := sd.coarsen(context.Background(), 2+r.IntN(4))
		merges += merged
		after := out.total()
		if after.Cmp(before) > 0 {
			t.Fatalf("%+v: coarsening raised the bound from %v to %v", m, before, after)
		}
		if after.Cmp(before) < 0 {
			lower++
		}
		for i, oc := range out.occ {
			var sum int64
			for _, o := range oc {
				sum += out.wins[o[0]].beta[o[1]]
			}
			if len(oc) > 0 && sum != 1<<muBits {
				t.Fatalf("member %d: shares sum to %d after coarsening", i, sum)
			}
		}
		for k, w := range out.wins {
			if !w.exact || !w.fresh {
				t.Fatalf("stretch %d (rows %d..%d) after coarsening: exact %v, fresh %v", k, w.r0, w.r1, w.exact, w.fresh)
			}
			want := bruteStretch(m, w)
			var v int64
			for r := w.r0; r < w.r1; r++ {
				seg := m.rowSeg[r]
				var load int64
				for q, i := range w.items {
					if w.z[q] && m.lo[i] <= seg && seg < m.hi[i] {
						load += m.d[i]
					}
				}
				if load > m.segCap[seg] {
					t.Fatalf("stretch %d: its point overfills row %d", k, r)
				}
			}
			for q := range w.items {
				if w.z[q] && w.beta[q] > 0 {
					v += w.beta[q]
				}
			}
			if w.val != want || v != want {
				t.Fatalf("stretch %d (rows %d..%d): value %d, point worth %d, enumeration %d", k, w.r0, w.r1, w.val, v, want)
			}
		}
		if got := new(big.Int).Rsh(after, muBits).Int64(); got < int64(bruteServed(m)) {
			t.Fatalf("%+v: bound %d after coarsening below the optimum %d", m, got, bruteServed(m))
		}
	}
	if merges < 500 || lower < 20 {
		t.Fatalf("only %d merges kept, %d bounds lowered", merges, lower)
	}
}

// TestCoarsenExhaustive: on random SLO instances drawn so that pairs
// compete (optional and forced caching, B = 1..4), the stretches with
// coarsening after every 1–3 steps without gain (spans 1–3, merged up
// to 2–8 rows, either rule) bound the fewest violations from below, never
// above the exhaustive optimum.
func TestCoarsenExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 2))
	coarsened := 0
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		members := make([][]int, pr.ncomp)
		for i, c := range pr.comp {
			members[c] = append(members[c], i)
		}
		served := 0
		for _, mem := range members {
			m := pr.newComponent(mem)
			P := make([]int64, len(mem))
			for i := range P {
				P[i] = 1 << muBits
			}
			_, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg := StretchOptions{Span: 1 + r.IntN(3), Rule: []StretchRule{StretchBundle, StretchSubgradient}[r.IntN(2)], Coarsen: 2 + r.IntN(7)}.config()
			cfg.roundStall = 1 + r.IntN(3)
			b, st := m.stretchRun(context.Background(), P, y, cfg, 0, r.IntN(30))
			coarsened += st.Coarsened
			served += b.floor(len(mem))
		}
		if got := in.K() - pr.always - served; got > want {
			t.Fatalf("%v s=%d: coarsened stretches' lower bound %d above the fewest violations %d", c, s, got, want)
		}
	}
	if coarsened == 0 {
		t.Fatal("no instance coarsened its stretches")
	}
	t.Logf("merges kept: %d", coarsened)
}
