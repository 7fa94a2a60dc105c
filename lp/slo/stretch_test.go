package slo

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
)

// bruteStretch is V_w by enumeration: the most Σ β over subsets of w's
// items that fit every row of w.
func bruteStretch(m *component, w *stretch) int64 {
	best := int64(0)
	for mask := 0; mask < 1<<len(w.items); mask++ {
		ok := true
		for r := w.r0; r < w.r1 && ok; r++ {
			seg := m.rowSeg[r]
			var load int64
			for k, i := range w.items {
				if mask>>k&1 == 1 && m.lo[i] <= seg && seg < m.hi[i] {
					load += m.d[i]
				}
			}
			ok = load <= m.segCap[seg]
		}
		if !ok {
			continue
		}
		var v int64
		for k := range w.items {
			if mask>>k&1 == 1 {
				v += w.beta[k]
			}
		}
		best = max(best, v)
	}
	return best
}

// randomShares gives every member of sd random shares: non-negative
// whole numbers summing to 2^muBits, or (a third of the time) of either
// sign, still summing to 2^muBits.
func randomShares(r *rand.Rand, sd *stretchDecomp) {
	for _, oc := range sd.occ {
		if len(oc) == 0 {
			continue
		}
		left := int64(1 << muBits)
		signed := r.IntN(3) == 0
		for j, o := range oc {
			v := left
			if j+1 < len(oc) {
				if signed {
					v = r.Int64N(3<<muBits) - 1<<muBits
				} else {
					v = r.Int64N(left + 1)
				}
			}
			sd.wins[o[0]].beta[o[1]] = v
			left -= v
		}
	}
	for _, w := range sd.wins {
		w.fresh = false
	}
}

// TestStretchValueBrute: on random components cut into stretches of 1..4
// rows, with random shares (and random row multipliers for the bound
// inside the branch and bound), each stretch's value equals enumeration
// and its point fits the stretch's rows and attains it; the bound
// |N_0| + Σ_w V_w is never below the most items served together
// (enumeration), and the shares of every member sum to one.
func TestStretchValueBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 44))
	tighter := 0
	for it := 0; it < 3000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) == 0 {
			continue
		}
		sd := m.newStretchDecomp(1+r.IntN(4), 1+it%3%2)
		if it%2 == 0 {
			randomShares(r, sd)
		} else {
			sd.evenShares()
		}
		for round := 0; round < 2; round++ {
			if round == 1 {
				// again from the first round's points (each solve's
				// starting incumbent), with new shares
				sd.solveAll(context.Background())
				randomShares(r, sd)
			}
			for _, w := range sd.wins {
				for q := range w.lam {
					w.lam[q] = r.Int64N(1 << sd.S)
				}
			}
			for i, oc := range sd.occ {
				var sum int64
				for _, o := range oc {
					sum += sd.wins[o[0]].beta[o[1]]
				}
				if len(oc) > 0 && sum != 1<<muBits {
					t.Fatalf("member %d: shares sum to %d", i, sum)
				}
			}
			total := sd.solveAll(context.Background())
			for k, w := range sd.wins {
				want := bruteStretch(m, w)
				if !w.exact || w.val != want {
					t.Fatalf("%+v stretch %d (rows %d..%d): value %d exact %v, enumeration %d", m, k, w.r0, w.r1, w.val, w.exact, want)
				}
				if v := pointWorth(t, m, k, w); v != want {
					t.Fatalf("stretch %d: its point is worth %d, not %d", k, pointWorth(t, m, k, w), want)
				}
			}
			opt := bruteServed(m)
			if got := new(big.Int).Rsh(total, muBits).Int64(); got < int64(opt) {
				t.Fatalf("%+v: stretch bound %d below the optimum %d", m, got, opt)
			}
			P := wholeShares(len(m.members))
			lpb, _, err := m.flowBound(context.Background(), P, new(big.Int), nil)
			if err != nil {
				t.Fatal(err)
			}
			if total.Cmp(new(big.Int).Rsh(lpb.num, lpb.S-muBits)) < 0 {
				tighter++
			}
		}
	}
	if tighter < 20 {
		t.Fatalf("random shares tightened the LP only %d times", tighter)
	}
}

// TestStretchNodeLimit: a stretch's branch and bound stopped by its node
// budget answers at least the enumerated value (the largest open bound).
func TestStretchNodeLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 45))
	stopped := 0
	for it := 0; it < 2000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) == 0 {
			continue
		}
		sd := m.newStretchDecomp(len(m.rowItems), 1)
		sd.nodeLimit = 1 + r.IntN(4)
		randomShares(r, sd)
		sd.solveAll(context.Background())
		for _, w := range sd.wins {
			if want := bruteStretch(m, w); w.val < want {
				t.Fatalf("%+v: stopped after %d nodes with %d, below the enumerated %d", m, w.nodes, w.val, want)
			}
			if !w.exact {
				stopped++
			}
		}
	}
	if stopped < 100 {
		t.Fatalf("only %d stretches stopped by the node limit", stopped)
	}
}

// A hand-worked instance where a stretch of three rows beats the LP:
// rows 0, 1, 2 of capacity 11 blocks; a spans all three with 4 blocks,
// and each row has two items of its own of 6 blocks (b, c; e, f; g, h).
// Without a, each row holds one of its own (12 > 11): 3 served; with a,
// each row has 7 left, still one of its own: 4, the optimum. The LP: a at
// α and (11 − 4α)/6 of each row's own items, 5.5 − α, so 5.5 at α = 0
// (floor 5). The one stretch of all three rows holds every item with its
// whole profit, so its value is the 0/1 optimum itself: 4.
func TestStretchHandWorked(t *testing.T) {
	m := handComponent([]int64{11, 11, 11}, [][3]int64{
		{0, 3, 4},            // a
		{0, 1, 6}, {0, 1, 6}, // b, c
		{1, 2, 6}, {1, 2, 6}, // e, f
		{2, 3, 6}, {2, 3, 6}, // g, h
	})
	if got := bruteServed(m); got != 4 {
		t.Fatalf("enumeration serves %d, hand count 4", got)
	}
	P := make([]int64, 7)
	for i := range P {
		P[i] = 1 << muBits
	}
	b, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := b.value(); v < 5.5 || v > 5.5+1e-6 || b.floor(7) != 5 {
		t.Fatalf("LP bound %v, hand value 5.5", v)
	}
	got, _ := m.stretchBound(context.Background(), P, y, 3, 0, 0)
	if got.floor(7) != 4 {
		t.Fatalf("stretch bound %v, hand value 4", got.value())
	}
}

// TestStretchBoundExhaustive: on random SLO instances drawn so that pairs
// compete (optional and forced caching, B = 1..4), the stretch
// decomposition's lower bound on violations, for spans of 1..6 rows and
// a few subgradient steps, is never above the exhaustive fewest
// violations.
func TestStretchBoundExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 46))
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		got, err := StretchBound(context.Background(), in, s, 1+r.IntN(6), r.IntN(20))
		if err != nil {
			t.Fatal(err)
		}
		if want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s); got > want {
			t.Fatalf("%v s=%d: stretch lower bound %d above the fewest violations %d", c, s, got, want)
		}
	}
}

// TestStretchOptionsExhaustive: the same for every rule, one and two
// layers, stretches halved because a node budget of 1–4 stops their
// branch and bound (minimum span 1–2 rows), and stretches solved by the
// flow LP's branch and bound (Flow): whatever the options, the bound is
// never above the exhaustive fewest violations; with Flow and a span
// holding every row it is the fewest violations (each component solved
// exactly).
func TestStretchOptionsExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 48))
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		o := StretchOptions{
			Span:       1 + r.IntN(6),
			Iterations: r.IntN(20),
			Layers:     1 + r.IntN(2),
			Rule:       []StretchRule{StretchBundle, StretchSubgradient}[r.IntN(2)],
		}
		if r.IntN(2) == 0 {
			o.Nodes, o.MinSpan = 1+r.IntN(4), 1+r.IntN(2)
		}
		if i%3 == 0 {
			o = StretchOptions{Flow: true, Span: 1 + r.IntN(6), Iterations: r.IntN(20)}
			if i%2 == 0 {
				o.Span = 1000
			}
		}
		got, err := StretchBoundWith(context.Background(), in, s, o)
		if err != nil {
			t.Fatal(err)
		}
		if got > want || o.Flow && o.Span == 1000 && got != want {
			t.Fatalf("%v s=%d %+v: stretch lower bound %d, the fewest violations %d", c, s, o, got, want)
		}
	}
}

// TestStretchBoundSpan: a span of no rows is refused with an error naming
// it; spans of one row and more are accepted.
func TestStretchBoundSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 47))
	c, s := randomContested(t, r, 6, 12, false)
	in := mustInstance(t, c)
	for _, tc := range []struct {
		span    int
		wantErr bool
	}{{-1, true}, {0, true}, {1, false}, {25, false}} {
		_, err := StretchBound(context.Background(), in, s, tc.span, 5)
		if (err != nil) != tc.wantErr {
			t.Errorf("span %d: error %v, want one: %v", tc.span, err, tc.wantErr)
		}
	}
}

// solveFrom solves stretch w of sd with the given search and node budget
// from the row multipliers lam and an empty starting point (so every
// budget starts from the same state), returning the value and whether the
// search finished.
func solveFrom(sd *stretchDecomp, w *stretch, lam []int64, depthFirst bool, limit int) (int64, bool) {
	copy(w.lam, lam)
	clear(w.z)
	w.fresh = false
	sd.depthFirst = depthFirst
	var s stretchSolver
	s.solve(context.Background(), sd, w, limit)
	return w.val, w.exact
}

// TestStretchBestFirstBudget: on random stretches of up to 9 rows and
// 8–16 items with random shares (and, half the time, multipliers), the best-first search under
// a node budget of 1, 2, … answers an upper bound on the enumerated value
// that never rises as the budget grows (the open frontier's largest bound
// only falls, and a point found is worth at most the bound it came
// from), and the enumerated value itself once it finishes. Beside it the
// depth-first search under the same budgets; the test reports how often
// each answer is the lower one (the best-first one is not provably
// lower: its dives take different nodes).
func TestStretchBestFirstBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 49))
	var lower, higher, same, tested int
	for it := 0; it < 300; it++ {
		caps := make([]int64, 3+r.IntN(7))
		for j := range caps {
			caps[j] = 6 + r.Int64N(20)
		}
		items := make([][3]int64, 8+r.IntN(9))
		for i := range items {
			lo := r.Int64N(int64(len(caps)))
			hi := lo + 1 + r.Int64N(int64(len(caps))-lo)
			items[i] = [3]int64{lo, hi, 1 + r.Int64N(8)}
		}
		m := handComponent(caps, items)
		if len(m.rowItems) == 0 {
			continue
		}
		sd := m.newStretchDecomp(len(m.rowItems), 1)
		randomShares(r, sd)
		for _, w := range sd.wins {
			want := bruteStretch(m, w)
			lam := make([]int64, len(w.lam))
			if it%2 == 0 {
				for q := range lam {
					lam[q] = r.Int64N(1 << sd.S)
				}
			}
			prev := int64(math.MaxInt64)
			for limit := 1; ; limit++ {
				got, exact := solveFrom(sd, w, lam, false, limit)
				if got < want || got > prev || (exact && got != want) {
					t.Fatalf("%+v budget %d: best-first answers %d (finished %v; at %d nodes %d), enumeration %d", m, limit, got, exact, limit-1, prev, want)
				}
				prev = got
				dfs, dExact := solveFrom(sd, w, lam, true, limit)
				if dfs < want || (dExact && dfs != want) {
					t.Fatalf("%+v budget %d: depth-first answers %d (finished %v), enumeration %d", m, limit, dfs, dExact, want)
				}
				if !exact || !dExact {
					tested++
					switch {
					case got < dfs:
						lower++
					case got > dfs:
						higher++
					default:
						same++
					}
				}
				if exact && dExact {
					break
				}
			}
		}
	}
	t.Logf("budgets where a search stopped: %d; best-first lower %d, higher %d, equal %d", tested, lower, higher, same)
	if tested < 1000 || lower == 0 {
		t.Fatalf("only %d stopped budgets, %d with best-first lower", tested, lower)
	}
}

// TestKnapsackA: the A items' knapsack with its passes stopped at the
// summed demand gives the same table as decomp.go's knapsack (the plain
// dynamic program) and as enumeration, and at every capacity recoverA
// returns a subset of at most that many blocks worth exactly the table's
// value, on random items (shares of either sign, demands above the
// capacity among them).
func TestKnapsackA(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 50))
	var f []int64
	var keep []uint64
	var tops []int64
	for it := 0; it < 2000; it++ {
		n := r.IntN(9)
		capacity := r.Int64N(40)
		d := make([]int64, n+3) // items index d: offset so that items ≠ positions
		items := make([]int32, n)
		p := make([]int64, n)
		for k := range items {
			items[k] = int32(k + 3)
			d[k+3] = 1 + r.Int64N(15)
			p[k] = r.Int64N(100) - 20
		}
		f, keep, tops = knapsackA(items, p, d, capacity, f, keep, tops)
		plain, _ := knapsack(items, p, d, capacity, nil)
		for c := int64(0); c <= capacity; c++ {
			var want int64
			for mask := 0; mask < 1<<n; mask++ {
				var wt, v int64
				for k := range items {
					if mask>>k&1 == 1 {
						wt += d[items[k]]
						v += p[k]
					}
				}
				if wt <= c {
					want = max(want, v)
				}
			}
			if f[c] != want || plain[c] != want {
				t.Fatalf("items %v d %v p %v capacity %d: f[%d] = %d, knapsack %d, enumeration %d", items, d, p, capacity, c, f[c], plain[c], want)
			}
			var wt, v int64
			recoverA(items, d, capacity, keep, tops, c, func(k int) {
				wt += d[items[k]]
				v += p[k]
			})
			if wt > c || v != want {
				t.Fatalf("items %v d %v p %v capacity %d: recovered %d blocks worth %d at capacity %d, want ≤ %d blocks worth %d", items, d, p, capacity, wt, v, c, c, want)
			}
		}
	}
}

// pointWorth checks that stretch k's point w.z fits every row of the
// stretch (the load of its chosen pairs at most the row's capacity) and
// returns what it is worth, Σ β over its chosen pairs.
func pointWorth(t *testing.T, m *component, k int, w *stretch) int64 {
	t.Helper()
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
	var v int64
	for q := range w.items {
		if w.z[q] {
			v += w.beta[q]
		}
	}
	return v
}
