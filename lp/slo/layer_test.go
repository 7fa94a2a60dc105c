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
			v := pointWorth(t, m, k, w)
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
	coarsened := stretchRunsExhaustive(t, r, "coarsened stretches'", func() stretchConfig {
		cfg := StretchOptions{Span: 1 + r.IntN(3), Rule: []StretchRule{StretchBundle, StretchSubgradient}[r.IntN(2)], Coarsen: 2 + r.IntN(7)}.config()
		cfg.roundStall = 1 + r.IntN(3)
		return cfg
	}, func(st stretchStats) int { return st.Coarsened })
	if coarsened == 0 {
		t.Fatal("no instance coarsened its stretches")
	}
	t.Logf("merges kept: %d", coarsened)
}

// stretchRunsExhaustive runs the stretches with the settings cfg draws for
// each component of testInstances random contested instances (optional
// and forced caching alternately) and fails if the lower bound on
// violations is ever above the exhaustive fewest; it returns the sum of
// count over every run (what the settings were meant to exercise).
func stretchRunsExhaustive(t *testing.T, r *rand.Rand, what string, cfg func() stretchConfig, count func(stretchStats) int) int {
	t.Helper()
	total := 0
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		served := 0
		for _, mem := range pr.members() {
			m := pr.newComponent(mem)
			P := wholeShares(len(mem))
			_, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, st := m.stretchRun(context.Background(), P, y, cfg(), 0, r.IntN(30))
			total += count(st)
			served += b.floor(len(mem))
		}
		if got := in.K() - pr.always - served; got > want {
			t.Fatalf("%v s=%d: %s lower bound %d above the fewest violations %d", c, s, what, got, want)
		}
	}
	return total
}

// TestAddLayerBrute: on random components cut into stretches of one to
// three rows with random shares, adding the second layer (addLayer)
// leaves the bound exactly where it was and every member's shares summing
// to one; every boundary of the first layer lies strictly inside a
// stretch of the second (unless the stretch after it has a single row);
// then, with random shares over both layers, every stretch's value is the
// enumerated one and the bound is never below the enumerated optimum.
func TestAddLayerBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 3))
	tested := 0
	for it := 0; it < 3000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) < 2 {
			continue
		}
		sd := m.newStretchDecomp(1+r.IntN(3), 1)
		randomShares(r, sd)
		before := sd.solveAll(context.Background())
		out := sd.addLayer()
		if out.layers != 2 || len(out.wins) <= len(sd.wins) {
			t.Fatalf("%+v: %d stretches in %d layers after adding one to %d", m, len(out.wins), out.layers, len(sd.wins))
		}
		if got := out.solveAll(context.Background()); got.Cmp(before) != 0 {
			t.Fatalf("%+v: adding a layer moved the bound from %v to %v", m, before, got)
		}
		for i, oc := range out.occ {
			var sum int64
			for _, o := range oc {
				sum += out.wins[o[0]].beta[o[1]]
			}
			if len(oc) > 0 && sum != 1<<muBits {
				t.Fatalf("member %d: shares sum to %d with two layers", i, sum)
			}
		}
		for k, w := range sd.wins[:len(sd.wins)-1] {
			if next := sd.wins[k+1]; next.r1-next.r0 < 2 {
				continue // the second layer cuts in the middle of the next: at most at w.r1+1
			}
			inside := false
			for _, v := range out.wins[len(sd.wins):] {
				inside = inside || (v.r0 < w.r1 && w.r1 < v.r1)
			}
			if !inside {
				t.Fatalf("%+v: boundary at row %d of the first layer is a boundary of the second", m, w.r1)
			}
		}
		randomShares(r, out)
		total := out.solveAll(context.Background())
		for k, w := range out.wins {
			if want := bruteStretch(m, w); !w.exact || w.val != want {
				t.Fatalf("stretch %d (rows %d..%d) of two layers: value %d, enumeration %d", k, w.r0, w.r1, w.val, want)
			}
		}
		if got := new(big.Int).Rsh(total, muBits).Int64(); got < int64(bruteServed(m)) {
			t.Fatalf("%+v: two-layer bound %d below the optimum %d", m, got, bruteServed(m))
		}
		tested++
	}
	if tested < 1000 {
		t.Fatalf("only %d components tested", tested)
	}
}

// TestAddLayerExhaustive: on random SLO instances drawn so that pairs
// compete (optional and forced caching, B = 1..4), the stretches that
// gain their second layer after 1–3 steps without gain (spans 1–4, either
// rule) bound the fewest violations from below, never above the
// exhaustive optimum.
func TestAddLayerExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 4))
	layered := stretchRunsExhaustive(t, r, "two-layer stretches'", func() stretchConfig {
		return StretchOptions{Span: 1 + r.IntN(4), Rule: []StretchRule{StretchBundle, StretchSubgradient}[r.IntN(2)], AddLayer: true, StallSteps: 1 + r.IntN(3)}.config()
	}, func(st stretchStats) int { return min(st.Layered, 1) })
	if layered == 0 {
		t.Fatal("no component gained its second layer")
	}
	t.Logf("components layered: %d", layered)
}
