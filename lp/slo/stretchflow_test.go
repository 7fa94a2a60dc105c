package slo

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// shareValue is the shares' sum over the items z marks.
func shareValue(w *stretch, z []bool) int64 {
	var v int64
	for k, on := range z {
		if on {
			v += w.beta[k]
		}
	}
	return v
}

// TestStretchFlowMatchesEnumeration: the flow LP's branch and bound
// (solveFlow), with and without strong branching, finds V_w as
// enumeration of every subset does, with a point of that value that fits,
// on the stretches of 1–4 rows of random contested instances (optional
// and forced caching, B = 1..4), at the LP's split and at random shares
// (some negative, some above a pair, and ties, which the weighted
// dominance breaks by index); cut short by a node budget its value is
// never below V_w and its point still fits.
func TestStretchFlowMatchesEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 1))
	ctx := context.Background()
	checked, cut := 0, 0
	contestedComponents(t, r, 1500, 6, 14, 18, func(i int, c tiny, s int64, m *component) {
		sd := lpSplit(t, m, 1+i%4)
		for _, w := range sd.wins {
			if i%3 != 0 {
				for k := range w.beta {
					w.beta[k] = []int64{-1 << 14, 1 << 15, 1 << 16, 3 << 16, r.Int64N(3 << 16)}[r.IntN(5)]
				}
			}
			if len(w.items) > 16 {
				continue
			}
			want := bruteStretch(m, w)
			for _, strong := range []int{0, flowStrong} {
				sd.flowStrong = strong
				clear(w.z)
				if !sd.solveFlow(ctx, w, 0) {
					t.Fatalf("draw %d: no answer", i)
				}
				if !w.exact || w.val != want || !sd.stretchFits(w, w.z) || shareValue(w, w.z) != want {
					t.Fatalf("draw %d (%v, s=%d), strong %d: rows %d..%d: value %d (exact %v, point %d, fits %v), enumeration %d",
						i, c, s, strong, w.r0, w.r1, w.val, w.exact, shareValue(w, w.z), sd.stretchFits(w, w.z), want)
				}
				checked++
				clear(w.z)
				if sd.solveFlow(ctx, w, 1+i%2) {
					if w.val < want || !sd.stretchFits(w, w.z) || shareValue(w, w.z) > want {
						t.Fatalf("draw %d, strong %d, cut short: value %d (point %d, fits %v), enumeration %d",
							i, strong, w.val, shareValue(w, w.z), sd.stretchFits(w, w.z), want)
					}
					if !w.exact {
						cut++
					}
				}
			}
		}
	})
	t.Logf("%d solves checked, %d cut short", checked, cut)
	if checked < 1500 || cut == 0 {
		t.Fatalf("only %d solves checked, %d cut short", checked, cut)
	}
}

// TestDominanceByKeepsOptimum: with random weights, the best subset that
// respects every weighted dominance relation (x_b ≤ x_a when a dominates
// b) is worth as much as the best subset, by enumeration.
func TestDominanceByKeepsOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 2))
	for i := 0; i < 2000; i++ {
		K, n := 1+r.IntN(6), 1+r.IntN(10)
		a, e, d := make([]int, n), make([]int, n), make([]int64, n)
		P := make([]int64, n)
		for k := range d {
			a[k] = r.IntN(K)
			e[k] = a[k] + 1 + r.IntN(K-a[k])
			d[k] = 1 + r.Int64N(3)
			P[k] = 1 + r.Int64N(3)
		}
		caps := make([]int64, K)
		for s := range caps {
			caps[s] = r.Int64N(7)
		}
		m := windowComponent(a, e, d, func(lo, hi int) int64 {
			c := caps[lo]
			for s := lo; s <= hi; s++ {
				c = min(c, caps[s])
			}
			return c
		})
		pick := make([]bool, n)
		var best, bestDom int64
		for mask := 0; mask < 1<<n; mask++ {
			var v int64
			for k := range pick {
				pick[k] = mask>>k&1 == 1
				if pick[k] {
					v += P[k]
				}
			}
			if !m.fits(pick) {
				continue
			}
			best = max(best, v)
			ok := true
			for x := 0; x < n && ok; x++ {
				for y := 0; y < n; y++ {
					if pick[y] && !pick[x] && m.dominatesBy(P, x, y) {
						ok = false
						break
					}
				}
			}
			if ok {
				bestDom = max(bestDom, v)
			}
		}
		if bestDom != best {
			t.Fatalf("draw %d: best %d, best respecting the relations %d", i, best, bestDom)
		}
	}
}

// TestFlowStretchesInViolations: Violations under a time limit in pure Go
// (the gonum backend, no backend at all), with stretches of one or two
// rows so that the flow branch and bound's stretches run on these small
// components, never puts the fewest violations outside its interval, by
// exhaustive search; random contested instances, optional and forced,
// B = 1..4.
func TestFlowStretchesInViolations(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 3))
	ran := 0
	for i := 0; i < 200; i++ {
		c, s := randomContested(t, r, 8, 16, i%2 == 1)
		in := mustInstance(t, c)
		best := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		for _, be := range []lp.Backend{nil, gonumlp.Backend{}} {
			res, err := Violations(context.Background(), in, s, Options{Backend: be, TimeLimit: 5 * time.Second, LongStretchRows: 1 + i%2, NoLNS: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Lower > best || res.Upper < best {
				t.Fatalf("draw %d (%v, s=%d): [%d, %d] misses the optimum %d (%s)", i, c, s, res.Lower, res.Upper, best, res.Detail)
			}
			if containsStretches(res.Detail) {
				ran++
			}
		}
	}
	t.Logf("the stretches ran in %d solves", ran)
	if ran < 5 {
		t.Fatalf("the stretches ran in only %d solves", ran)
	}
}

// TestMIPStretchesCutShort: when the time limit ends before a
// component's LP, the stretches beside the search give no bound and the
// solve goes on (a zero bound was read once: a nil pointer in every solve
// whose limit ended inside that LP). Limits of none left, 1 µs and 20 ms
// on components spanning at least four stretches of one row: with none
// left no bound is set; whatever is set, Violations's interval still
// holds the exhaustive optimum (TestFlowStretchesInViolations).
func TestMIPStretchesCutShort(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 4))
	ran := 0
	for i := 0; i < 150; i++ {
		c, s := randomContested(t, r, 10, 16, i%2 == 1)
		pr := reduce(mustInstance(t, c), s)
		served := make([]bool, len(pr.cands))
		ubComp := make([]int, pr.ncomp)
		for k := range ubComp {
			ubComp[k] = -1
		}
		limit := []time.Duration{0, time.Microsecond, 20 * time.Millisecond}[i%3]
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		res := &Result{}
		pr.startMIPStretches(ctx, served, ubComp, Options{LongStretchRows: 1}, res)()
		cancel()
		if containsStretches(res.Detail) {
			ran++
		}
		if limit == 0 && slices.ContainsFunc(ubComp, func(u int) bool { return u >= 0 }) {
			t.Fatalf("draw %d: no time, yet bounds %v", i, ubComp)
		}
	}
	t.Logf("the stretches finished in %d of 150 solves", ran)
	if ran == 0 {
		t.Fatal("the stretches never finished")
	}
}
