package slo

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
)

// handComponent builds a component on unit segments 0..len(caps)−1 (step
// j is segment j, capacity caps[j] blocks) from items (lo, hi, d): item i
// spans segments lo..hi−1 with demand d blocks. Rows are the segments
// whose items' demands exceed the capacity, as in newComponent.
func handComponent(caps []int64, items [][3]int64) *component {
	m := &component{segCap: caps}
	for j := 0; j <= len(caps); j++ {
		m.ends = append(m.ends, j)
	}
	for i, it := range items {
		m.members = append(m.members, i)
		m.lo = append(m.lo, int32(it[0]))
		m.hi = append(m.hi, int32(it[1]))
		m.d = append(m.d, it[2])
	}
	for j := range caps {
		var row []int32
		var sum int64
		for i := range items {
			if m.lo[i] <= int32(j) && int32(j) < m.hi[i] {
				row = append(row, int32(i))
				sum += m.d[i]
			}
		}
		if sum > caps[j] {
			m.rowSeg = append(m.rowSeg, int32(j))
			m.rowItems = append(m.rowItems, row)
		}
	}
	return m
}

// bruteDecompWindow is V_w by enumeration: the most Σ β over subsets of w's
// items that fit every row of w.
func bruteDecompWindow(m *component, w *window) int64 {
	best := int64(0)
	for mask := 0; mask < 1<<len(w.items); mask++ {
		ok := true
		for _, r := range w.rows {
			var load int64
			for k, i := range w.items {
				if mask>>k&1 == 1 && m.lo[i] <= m.rowSeg[r] && m.rowSeg[r] < m.hi[i] {
					load += m.d[i]
				}
			}
			ok = ok && load <= m.segCap[m.rowSeg[r]]
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

// bruteServed is the most items of m served together (every segment
// within capacity), by enumeration.
func bruteServed(m *component) int {
	best := 0
	for mask := 0; mask < 1<<len(m.members); mask++ {
		load := make([]int64, len(m.segCap))
		n := 0
		for i := range m.members {
			if mask>>i&1 == 1 {
				n++
				for j := m.lo[i]; j < m.hi[i]; j++ {
					load[j] += m.d[i]
				}
			}
		}
		ok := true
		for j, l := range load {
			ok = ok && l <= m.segCap[j]
		}
		if ok {
			best = max(best, n)
		}
	}
	return best
}

// randomComponent draws 2..5 unit segments of capacity 4..12 blocks and
// 3..12 items of demand 1..8 blocks over random spans.
func randomComponent(r *rand.Rand) *component {
	caps := make([]int64, 2+r.IntN(4))
	for j := range caps {
		caps[j] = 4 + r.Int64N(9)
	}
	items := make([][3]int64, 3+r.IntN(10))
	for i := range items {
		lo := r.Int64N(int64(len(caps)))
		hi := lo + 1 + r.Int64N(int64(len(caps))-lo)
		items[i] = [3]int64{lo, hi, 1 + r.Int64N(8)}
	}
	return handComponent(caps, items)
}

// TestWindowValueBrute: the window's dynamic program (one row: a
// knapsack; two rows: the split into both/first/second) equals
// enumeration, and its point fits the window's rows and attains it.
func TestWindowValueBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 1))
	two := 0
	for it := 0; it < 3000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) == 0 {
			continue
		}
		a := int32(r.IntN(len(m.rowItems)))
		w := m.newWindow(a)
		if b := int32(r.IntN(len(m.rowItems))); b > a {
			w = m.newWindow(a, b)
			two++
		}
		for k := range w.beta {
			w.beta[k] = r.Int64N(1<<muBits + 1)
			if r.IntN(5) == 0 {
				w.beta[k] = 0
			}
		}
		z := make([]bool, len(w.items))
		got, _ := m.windowValue(w, z, nil)
		if want := bruteDecompWindow(m, w); got != want {
			t.Fatalf("window %v of %+v: value %d, enumeration %d", w.rows, m, got, want)
		}
		var v int64
		for k, on := range z {
			if on {
				v += w.beta[k]
			}
		}
		for _, rr := range w.rows {
			var load int64
			for k, i := range w.items {
				if z[k] && m.lo[i] <= m.rowSeg[rr] && m.rowSeg[rr] < m.hi[i] {
					load += m.d[i]
				}
			}
			if load > m.segCap[m.rowSeg[rr]] {
				t.Fatalf("window %v: point over capacity at row %d (%d > %d)", w.rows, rr, load, m.segCap[m.rowSeg[rr]])
			}
		}
		if v != got {
			t.Fatalf("window %v: point worth %d, value %d", w.rows, v, got)
		}
	}
	if two < 500 {
		t.Fatalf("only %d two-row windows drawn", two)
	}
}

// decompValue is the decomposition's bound for the given windows (β as
// set) and no cuts: floor of flowBound with the windows' shares taken
// from the flow and their values added.
func decompValue(t *testing.T, m *component, ws []*window) int {
	t.Helper()
	dc := &decomposition{lagrangian: &lagrangian{m: m, pool: newCutPool()}, windows: ws}
	P, muR := dc.profits(nil)
	b, _, err := m.flowBound(context.Background(), P, muR, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.floor(len(m.members))
}

// TestDecompHandWorked: two steps of capacity 10 blocks; item a (4
// blocks) spans both, x1, x2 and x3 (4 each) only the first, y1, y2 and
// y3 (4 each) only the second. Each step fits two of its four items
// (12 > 10), so at most 4 are served (two x and two y; with a, only one x
// and one y fit: 3). The LP relaxation serves 2.5 per step with a at 0
// (with a at α, 2·(10 − 4α)/4 + α = 5 − α): 5, floor 5. The window of
// both rows with every item's whole profit (β = 1, the flow keeping 0)
// is worth its 0/1 optimum, 4: the decomposition's bound is 4, one below
// the LP's, and equal to the optimum.
func TestDecompHandWorked(t *testing.T) {
	m := handComponent([]int64{10, 10}, [][3]int64{{0, 2, 4}, {0, 1, 4}, {0, 1, 4}, {0, 1, 4}, {1, 2, 4}, {1, 2, 4}, {1, 2, 4}})
	if got := bruteServed(m); got != 4 {
		t.Fatalf("enumeration serves %d, hand count 4", got)
	}
	P := make([]int64, 7)
	for i := range P {
		P[i] = 1 << muBits
	}
	b, _, err := m.flowBound(context.Background(), P, new(big.Int), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := b.value(); v < 5 || v > 5+1e-6 || b.floor(7) != 5 {
		t.Fatalf("LP bound %v, hand value 5", v)
	}
	w := m.newWindow(0, 1)
	for k := range w.beta {
		w.beta[k] = 1 << muBits
	}
	if got := decompValue(t, m, []*window{w}); got != 4 {
		t.Fatalf("decomposition bound %d, hand value 4", got)
	}
	// One-row windows, a's profit split evenly between the rows: each
	// row's window is worth 2 (two x, against a/2 + one x = 1.5), so the
	// bound is 4 as well (the rows' knapsacks see it; it takes no
	// interplay of rows here).
	w0, w1 := m.newWindow(0), m.newWindow(1)
	for _, w := range []*window{w0, w1} {
		for k, i := range w.items {
			w.beta[k] = 1 << muBits
			if i == 0 {
				w.beta[k] = 1 << (muBits - 1)
			}
		}
	}
	if got := decompValue(t, m, []*window{w0, w1}); got != 4 {
		t.Fatalf("one-row decomposition bound %d, hand value 4", got)
	}
}

// TestDecompNeverBelowOptimum: on random components, for random windows
// (one and two rows, overlapping or not) and random shares β ≥ 0, the
// decomposition's bound is never below the most items served
// (enumeration); and the subgradient method from the LP's split, on
// random instances of the SLO problem (optional and forced caching,
// B = 1..4), never bounds below the exhaustive optimum.
func TestDecompNeverBelowOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	tighter := 0
	for it := 0; it < 2000; it++ {
		m := randomComponent(r)
		if len(m.rowItems) == 0 {
			continue
		}
		var ws []*window
		for k := r.IntN(4); k >= 0; k-- {
			a := int32(r.IntN(len(m.rowItems)))
			w := m.newWindow(a)
			if b := int32(r.IntN(len(m.rowItems))); b > a {
				w = m.newWindow(a, b)
			}
			for q := range w.beta {
				w.beta[q] = r.Int64N(1<<muBits + 1)
			}
			ws = append(ws, w)
		}
		opt := bruteServed(m)
		got := decompValue(t, m, ws)
		if got < opt {
			t.Fatalf("%+v windows %d: bound %d below the optimum %d", m, len(ws), got, opt)
		}
		if got < decompValue(t, m, nil) {
			tighter++
		}
	}
	if tighter < 20 {
		t.Fatalf("random windows tightened the LP only %d times", tighter)
	}
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		got, err := DecompBound(context.Background(), in, s, 30)
		if err != nil {
			t.Fatal(err)
		}
		if want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s); got > want {
			t.Fatalf("%v s=%d: decomposition lower bound %d above the fewest violations %d", c, s, got, want)
		}
	}
}
