package slo

import (
	"context"
	"testing"

	"pgregory.net/rapid"
)

// drawWindow draws a small window: up to 12 items over up to 10 steps,
// demands 1..maxD blocks, capacities 0..2·maxD per step.
func drawWindow(t *rapid.T) *component {
	K := rapid.IntRange(1, 10).Draw(t, "K")
	n := rapid.IntRange(1, 12).Draw(t, "n")
	maxD := rapid.Int64Range(1, 4).Draw(t, "maxD")
	a, e, d := make([]int, n), make([]int, n), make([]int64, n)
	for k := range d {
		a[k] = rapid.IntRange(0, K-1).Draw(t, "a")
		e[k] = rapid.IntRange(a[k]+1, K).Draw(t, "n")
		d[k] = rapid.Int64Range(1, maxD).Draw(t, "d")
	}
	caps := make([]int64, K)
	for s := range caps {
		caps[s] = rapid.Int64Range(0, 2*maxD).Draw(t, "cap")
	}
	return windowComponent(a, e, d, func(lo, hi int) int64 {
		c := caps[lo]
		for s := lo; s <= hi; s++ {
			c = min(c, caps[s])
		}
		return c
	})
}

// bruteWide returns the most items of m that fit together, and the most
// among the subsets that respect every dominance relation (x_b ≤ x_a when
// a dominates b), by enumerating every subset.
func bruteWide(m *component) (best, bestDom int) {
	n := len(m.d)
	pick := make([]bool, n)
	for mask := 0; mask < 1<<n; mask++ {
		for i := range pick {
			pick[i] = mask>>i&1 == 1
		}
		if !m.fits(pick) {
			continue
		}
		c := count(pick)
		best = max(best, c)
		ok := true
		for a := 0; a < n && ok; a++ {
			for b := 0; b < n; b++ {
				if pick[b] && !pick[a] && m.dominates(a, b) {
					ok = false
					break
				}
			}
		}
		if ok {
			bestDom = max(bestDom, c)
		}
	}
	return best, bestDom
}

// TestWideWindowMatchesEnumeration: the wide-window solver, with and
// without dominance, root cuts and rounding, finds the most items that fit, as
// enumeration of every subset does, from an empty start and from a random
// feasible one (which it never serves fewer than).
func TestWideWindowMatchesEnumeration(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawWindow(t)
		want, _ := bruteWide(m)
		dom := rapid.Bool().Draw(t, "dom")
		iter := rapid.SampledFrom([]int{0, 30}).Draw(t, "rootIter")
		pick := make([]bool, len(m.d))
		for i := range pick {
			pick[i] = rapid.Bool().Draw(t, "start")
			if !m.fits(pick) {
				pick[i] = false
			}
		}
		start := count(pick)
		noRound := rapid.Bool().Draw(t, "noRound")
		rcFix := rapid.Bool().Draw(t, "rcFix")
		high := rapid.Bool().Draw(t, "branchHigh")
		st, err := m.solveWide(context.Background(), pick, wideOptions{dom: dom, rootIter: iter, noRound: noRound, rcFix: rcFix, branchHigh: high})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Exact {
			t.Fatalf("no node limit, yet not exact")
		}
		if !m.fits(pick) {
			t.Fatalf("point does not fit: %v", pick)
		}
		if got := count(pick); got != want || got < start {
			t.Fatalf("solver serves %d (start %d), enumeration %d (dom %v, rootIter %d, rcFix %v, noRound %v)", got, start, want, dom, iter, rcFix, noRound)
		}
	})
}

// TestWideDominanceKeepsOptimum: imposing x_b ≤ x_a for every dominance
// relation keeps the optimum (enumeration of the subsets with and without
// the relations), on windows drawn to have many equal demands and nested
// spans.
func TestWideDominanceKeepsOptimum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawWindow(t)
		best, bestDom := bruteWide(m)
		if best != bestDom {
			t.Fatalf("optimum %d, %d under the dominance relations", best, bestDom)
		}
	})
}

// TestDominanceHand: a hand-worked window. Steps 0..3 with capacity 2;
// items: 0 spans 0..3 with d 2, 1 spans 1..2 with d 1, 2 spans 1..2 with
// d 1, 3 spans 0..0 with d 2. Item 1 dominates 0 (smaller demand, span
// inside) and 2 (equal demand and span, lower index); item 2 dominates 0;
// item 3 dominates 0 (equal demand, span strictly inside).
func TestDominanceHand(t *testing.T) {
	m := windowComponent([]int{0, 1, 1, 0}, []int{4, 3, 3, 1}, []int64{2, 1, 1, 2},
		func(lo, hi int) int64 { return 2 })
	want := map[[2]int]bool{{1, 0}: true, {1, 2}: true, {2, 0}: true, {3, 0}: true}
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if got := m.dominates(a, b); got != want[[2]int{a, b}] {
				t.Errorf("dominates(%d, %d) = %v, want %v", a, b, got, !got)
			}
		}
	}
	// optimum: 1, 2 and 3 (0 blocks both others): 3 items
	pick := make([]bool, 4)
	if _, err := m.solveWide(context.Background(), pick, wideOptions{dom: true, noRound: true}); err != nil {
		t.Fatal(err)
	}
	if count(pick) != 3 || pick[0] {
		t.Fatalf("pick %v, want items 1, 2, 3", pick)
	}
}

// TestWideRCFixingAlone: reduced-cost fixing with only integral LP points
// taken (no rounding, no dominance), so that every improvement comes from
// the tree the fixings prune, against enumeration; starts from the
// enumeration's optimum less one item when there is one, where a fixing
// that prunes an improvement by one shows.
func TestWideRCFixingAlone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawWindow(t)
		want, _ := bruteWide(m)
		pick := make([]bool, len(m.d))
		// a feasible start: items in a random order while they fit, then
		// dropped until want − 1 remain
		for _, i := range rapid.Permutation(m.members).Draw(t, "order") {
			pick[i] = true
			if !m.fits(pick) {
				pick[i] = false
			}
		}
		for i := range pick {
			if count(pick) > max(want-1, 0) && pick[i] {
				pick[i] = false
			}
		}
		if _, err := m.solveWide(context.Background(), pick, wideOptions{rcFix: true, noRound: true}); err != nil {
			t.Fatal(err)
		}
		if got := count(pick); got != want || !m.fits(pick) {
			t.Fatalf("solver serves %d (fits %v), enumeration %d", got, m.fits(pick), want)
		}
	})
}
