package slo

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
)

// The decomposition newStretchDecompRanges builds by binary search is the
// one a pass over every member per stretch builds (stretchDecompByPasses):
// the same stretches, items, local row ranges, occurrences and free
// members, on random components, for one layer of spans of 1..6 rows, two
// layers (newStretchDecomp), and ranges drawn at random (overlapping,
// unsorted, empty).
func TestStretchDecompSortedSame(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 1))
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 14, i%2 == 1)
		pr := reduce(mustInstance(t, c), s)
		for _, mem := range pr.members() {
			m := pr.newComponent(mem)
			nr := int32(len(m.rowSeg))
			span := 1 + r.IntN(6)
			two := m.newStretchDecomp(span, 2)
			var random [][2]int32
			for range r.IntN(6) {
				a := r.Int32N(nr + 1)
				random = append(random, [2]int32{a, a + r.Int32N(nr-a+1)})
			}
			for _, tc := range []struct {
				ranges [][2]int32
				layers int
			}{
				{spanRanges(len(m.rowSeg), span), 1},
				{rangesOf(two), two.layers},
				{random, 1},
			} {
				want := stretchDecompByPasses(m, tc.ranges)
				got := m.newStretchDecompRanges(tc.ranges, tc.layers)
				if got.free != want.free || len(got.wins) != len(want.wins) {
					t.Fatalf("%v s=%d ranges %v: free %d, %d stretches; want %d, %d", c, s, tc.ranges, got.free, len(got.wins), want.free, len(want.wins))
				}
				for k, w := range want.wins {
					g := got.wins[k]
					if g.r0 != w.r0 || g.r1 != w.r1 || !slices.Equal(g.items, w.items) || !slices.Equal(g.cLo, w.cLo) || !slices.Equal(g.cHi, w.cHi) ||
						len(g.beta) != len(w.items) || len(g.lam) != int(w.r1-w.r0) || len(g.z) != len(w.items) {
						t.Fatalf("%v s=%d ranges %v: stretch %d differs: %+v, want %+v", c, s, tc.ranges, k, g, w)
					}
				}
				for n := range want.occ {
					if !slices.Equal(got.occ[n], want.occ[n]) {
						t.Fatalf("%v s=%d ranges %v: member %d in %v, want %v", c, s, tc.ranges, n, got.occ[n], want.occ[n])
					}
				}
			}
		}
	}
}

// rangesOf lists the row ranges of sd's stretches, in order.
func rangesOf(sd *stretchDecomp) [][2]int32 {
	var out [][2]int32
	for _, w := range sd.wins {
		out = append(out, [2]int32{w.r0, w.r1})
	}
	return out
}

// stretchDecompByPasses is the plain construction the binary search must
// equal: for each range in turn, a pass over every member, which joins the
// stretch if its rows meet the range's. Only the stretches' rows, items,
// local ranges, the occurrences and the free count are filled.
func stretchDecompByPasses(m *component, ranges [][2]int32) *stretchDecomp {
	sd := &stretchDecomp{m: m}
	rowOf := func(seg int32) int32 {
		r, _ := slices.BinarySearch(m.rowSeg, seg)
		return int32(r)
	}
	rf := make([]int32, len(m.members))
	re := make([]int32, len(m.members))
	for i := range m.members {
		rf[i], re[i] = rowOf(m.lo[i]), rowOf(m.hi[i])
		if rf[i] >= re[i] {
			sd.free++
		}
	}
	sd.occ = make([][][2]int32, len(m.members))
	for _, rg := range ranges {
		w := &stretch{r0: rg[0], r1: rg[1]}
		k := int32(len(sd.wins))
		for i := range m.members {
			a, b := max(rf[i], w.r0), min(re[i], w.r1)
			if a >= b {
				continue
			}
			sd.occ[i] = append(sd.occ[i], [2]int32{k, int32(len(w.items))})
			w.items = append(w.items, int32(i))
			w.cLo = append(w.cLo, a-w.r0)
			w.cHi = append(w.cHi, b-w.r0)
		}
		sd.wins = append(sd.wins, w)
	}
	return sd
}

// A component built without its rows' member lists has the same rows
// (the segments whose members' demands sum above the capacity) as one
// built with them, found by sweeping the active members.
func TestComponentRowsWithoutItems(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 2))
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 14, i%2 == 1)
		pr := reduce(mustInstance(t, c), s)
		members := pr.members()
		for _, mem := range members {
			full, lite := pr.newComponent(mem), pr.newComponentRows(mem, false)
			if !slices.Equal(full.rowSeg, lite.rowSeg) || lite.rowItems != nil {
				t.Fatalf("%v s=%d: rows %v, want %v", c, s, lite.rowSeg, full.rowSeg)
			}
		}
	}
}

// The stretches from the LP's prices (scaleStageOn on every open
// component, spans of 1..6 rows, with or without a time limit of 1..50 ms
// and the steps on the shares after the split) never put the lower bound
// on violations above the exhaustive fewest, optional and forced,
// B = 1..4. And one stretch holding a component's every row (span 40,
// more rows than these instances have), solved to the end, is the
// component's 0/1 program itself: when every component's is, the lower
// bound is the exhaustive optimum.
func TestScaleStretchExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 3))
	exactSeen := 0
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		pr := reduce(in, s)
		if len(pr.cands) == 0 {
			continue
		}
		served, ub, _, complete, err := pr.lpBound(context.Background())
		if err != nil || !complete {
			t.Fatalf("lpBound: complete %v, %v", complete, err)
		}
		pr.improve(context.Background(), served)
		span := 1 + r.IntN(6)
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if r.IntN(2) == 0 { // a time limit: the steps run after the split
			ctx, cancel = context.WithTimeout(ctx, time.Duration(1+r.IntN(50))*time.Millisecond)
		}
		res := &Result{}
		staged := slices.Clone(ub)
		pr.scaleStageOn(ctx, served, staged, Options{Backend: gonumlp.Backend{}}, res, -1, span)()
		cancel()
		lower := in.K() - pr.always
		for c, u := range staged {
			if ub[c] >= 0 && u > ub[c] {
				t.Fatalf("component %d: bound raised from %d to %d", c, ub[c], u)
			}
			lower -= u
		}
		if lower > want {
			t.Fatalf("%v s=%d span %d: lower bound %d above the fewest violations %d (%s)", c, s, span, lower, want, res.Detail)
		}
		// small node budgets: the split's first pass and its deepening
		// leave stretches open, answering their open bounds
		lower = in.K() - pr.always
		for _, mem := range members(pr) {
			m := pr.newComponentRows(mem, false)
			if len(m.rowSeg) == 0 {
				lower -= len(mem)
				continue
			}
			cfg := StretchOptions{Span: 1 + r.IntN(6), MinSpan: -1, Nodes: 10 + r.IntN(31)}.config()
			run := m.stretchSplit(context.Background(), pr.segmentPrices(m, pr.prices), cfg)
			lower -= run.best.floor(len(mem))
		}
		if lower > want {
			t.Fatalf("%v s=%d: split with small node budgets, lower bound %d above the fewest violations %d", c, s, lower, want)
		}
		// one stretch per component, no time limit
		lower, exact := in.K()-pr.always, true
		for _, mem := range members(pr) {
			run := pr.scaleBound(context.Background(), mem, scaleSpan, false)
			if run == nil || run.st.Inexact > 0 || run.st.Stretches != 1 {
				exact = false
				break
			}
			lower -= run.best.floor(len(mem))
		}
		if exact {
			exactSeen++
			if lower != want {
				t.Fatalf("%v s=%d: every component one exact stretch, lower bound %d, fewest violations %d", c, s, lower, want)
			}
		}
	}
	t.Logf("%d of %d instances with every component one exact stretch", exactSeen, testInstances)
	if exactSeen < testInstances/4 {
		t.Fatalf("only %d of %d instances with every component one exact stretch", exactSeen, testInstances)
	}
}

// A stretch not begun before the deadline answers its Lagrangian bound at
// its row multipliers: for random components, shares (of either sign) and
// multipliers in [0, 2^S], it is never below the stretch's value by
// enumeration; solveAllBy with a context already ended gives every
// stretch that bound (none exact, none fresh) and a total at least
// |N_0| + Σ_w V_w; with a live context it is solveAll's total.
func TestSolveAllByLagrangeValue(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 4))
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for it := 0; it < 3000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) == 0 {
			continue
		}
		sd := m.newStretchDecompRanges(spanRanges(len(m.rowSeg), 1+r.IntN(4)), 1)
		randomShares(r, sd)
		for _, w := range sd.wins {
			for q := range w.lam {
				w.lam[q] = r.Int64N(1<<sd.S + 1)
			}
		}
		brute := int64(sd.free) << muBits
		for k, w := range sd.wins {
			want := bruteStretch(m, w)
			brute += want
			if got := sd.lagrangeValue(w); got < want {
				t.Fatalf("stretch %d (rows %d..%d): Lagrangian bound %d below its value %d", k, w.r0, w.r1, got, want)
			}
		}
		total := sd.solveAllBy(ended)
		if !total.IsInt64() || total.Int64() < brute {
			t.Fatalf("cut short: total %v below |N_0| + Σ V_w = %d", total, brute)
		}
		for k, w := range sd.wins {
			if w.exact || w.fresh {
				t.Fatalf("stretch %d not begun: exact %v, fresh %v", k, w.exact, w.fresh)
			}
		}
		if total := sd.solveAllBy(context.Background()); !total.IsInt64() || total.Int64() != brute {
			t.Fatalf("solved: total %v, |N_0| + Σ V_w = %d", total, brute)
		}
	}
}

// members returns each component's candidates (indices, increasing).
func members(pr *problem) [][]int {
	out := pr.members()
	return out
}

// BenchmarkScaleSplit times the stretches' split at scale (span 60,
// 200,000 nodes, deepened from 20,000; no steps) on the one component of
// the default birth–death workload cut at 10^5 turns (SLO 1,900 tokens,
// C = 131,072 tokens, B = 16), from the LP's prices (solved once, outside
// the timing), and reports the LP's and the split's bounds on the pairs
// served.
func BenchmarkScaleSplit(b *testing.B) {
	pr, _, byComp, _ := benchProblem(b, 100_000)
	_, _, lpPairs, complete, err := pr.lpBound(context.Background())
	if err != nil || !complete {
		b.Fatalf("lpBound: complete %v, %v", complete, err)
	}
	m := pr.newComponentRows(byComp[0], false)
	pi := pr.segmentPrices(m, pr.prices)
	cfg := StretchOptions{Span: scaleSpan, MinSpan: -1, Nodes: scaleNodes}.config()
	var run *scaleRun
	for b.Loop() {
		run = m.stretchSplit(context.Background(), pi, cfg)
	}
	b.ReportMetric(lpPairs, "LP-pairs")
	b.ReportMetric(run.best.value(), "split-pairs")
	b.ReportMetric(float64(run.st.Inexact), "open-stretches")
}
