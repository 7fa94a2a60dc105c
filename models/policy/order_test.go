package policy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOrderAgainstScan compares the treap with a linear scan over a plain
// map through random inserts, removals and value changes.
func TestOrderAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type entry struct {
		k1, k2 int64
		v      float64
	}
	o := NewOrder()
	ref := map[int]entry{}
	scan := func(theta float64, useTheta bool) int {
		best := -1
		for c, e := range ref {
			if useTheta && e.v < theta {
				continue
			}
			if best < 0 || e.k1 < ref[best].k1 || (e.k1 == ref[best].k1 && e.k2 < ref[best].k2) {
				best = c
			}
		}
		return best
	}
	for step := 0; step < 20000; step++ {
		c := r.IntN(200)
		switch r.IntN(4) {
		case 0, 1:
			e := entry{r.Int64N(50), int64(c), float64(r.IntN(100))}
			o.Put(c, e.k1, e.k2, e.v)
			ref[c] = e
		case 2:
			o.Remove(c)
			delete(ref, c)
		case 3:
			if e, ok := ref[c]; ok {
				e.v = float64(r.IntN(100))
				o.SetValue(c, e.v)
				ref[c] = e
			}
		}
		theta := float64(r.IntN(110))
		if got, want := o.First(), scan(0, false); got != want {
			t.Fatalf("step %d: First = %d, scan %d", step, got, want)
		}
		if got, want := o.FirstAtLeast(theta), scan(theta, true); got != want {
			t.Fatalf("step %d: FirstAtLeast(%v) = %d, scan %d", step, theta, got, want)
		}
		if o.Len() != len(ref) {
			t.Fatalf("step %d: Len %d, want %d", step, o.Len(), len(ref))
		}
	}
}

// TestOrderSlotModeAgainstScan drives the order the way recency policies
// do — keys rising with every Put, values changed, members removed, a
// member put back with its own key — and then with keys out of order (the
// switch to the treap), checking every answer against a linear scan.
func TestOrderSlotModeAgainstScan(t *testing.T) {
	for _, tc := range []struct {
		name     string
		switchAt int
		values   bool
	}{
		{"recency, values", 30000, true},
		{"recency, no values", 30000, false},
		{"switch to treap", 5000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			type entry struct {
				k1, k2 int64
				v      float64
			}
			o := NewOrder()
			ref := map[int]entry{}
			value := func() float64 {
				if !tc.values {
					return math.Inf(-1)
				}
				return float64(r.IntN(100))
			}
			scan := func(theta float64, useTheta bool) int {
				best := -1
				for c, e := range ref {
					if useTheta && !(e.v >= theta) {
						continue
					}
					if best < 0 || e.k1 < ref[best].k1 || (e.k1 == ref[best].k1 && e.k2 < ref[best].k2) {
						best = c
					}
				}
				return best
			}
			for step := 0; step < 20000; step++ {
				c := r.IntN(300)
				switch r.IntN(6) {
				case 0, 1, 2:
					k := int64(step)
					if step >= tc.switchAt {
						k = r.Int64N(int64(step) + 1)
					}
					e := entry{k, int64(c), value()}
					o.Put(c, e.k1, e.k2, e.v)
					ref[c] = e
				case 3:
					o.Remove(c)
					delete(ref, c)
				case 4:
					if e, ok := ref[c]; ok {
						e.v = value()
						o.SetValue(c, e.v)
						ref[c] = e
					}
				case 5: // out and back in with the same key
					if e, ok := ref[c]; ok {
						o.Remove(c)
						o.Put(c, e.k1, e.k2, e.v)
					}
				}
				if got, want := o.First(), scan(0, false); got != want {
					t.Fatalf("step %d: First = %d, scan %d", step, got, want)
				}
				for _, theta := range []float64{float64(r.IntN(110)), math.Inf(-1), math.Inf(1)} {
					if got, want := o.FirstAtLeast(theta), scan(theta, true); got != want {
						t.Fatalf("step %d: FirstAtLeast(%v) = %d, scan %d", step, theta, got, want)
					}
				}
				if o.Len() != len(ref) {
					t.Fatalf("step %d: Len %d, want %d", step, o.Len(), len(ref))
				}
				for c, e := range ref {
					if k1, k2 := o.Key(c); k1 != e.k1 || k2 != e.k2 || !o.Contains(c) {
						t.Fatalf("step %d: Key(%d) = %d,%d, want %d,%d", step, c, k1, k2, e.k1, e.k2)
					}
				}
			}
		})
	}
}

// TestOrderSlotModeSteadyStateAllocs checks that recency use with a
// bounded set allocates nothing once the arrays have grown: each reslot
// compacts in place instead of replacing the slot arrays.
func TestOrderSlotModeSteadyStateAllocs(t *testing.T) {
	o := NewOrder()
	const convs = 1000
	k := int64(0)
	turn := func() {
		c := int(k % convs)
		o.Put(c, k, 0, float64(c%7))
		k++
	}
	for range 10 * convs { // reach the steady size
		turn()
	}
	// Each run is 4·convs Puts, so it passes through at least one reslot
	// (a set of convs in slot arrays of under 4·convs slots).
	round := func() {
		for range 4 * convs {
			turn()
		}
	}
	if a := testing.AllocsPerRun(10, round); a != 0 {
		t.Fatalf("%d Puts allocate %v times in steady state, want 0", 4*convs, a)
	}
	if o.Len() != convs {
		t.Fatalf("Len = %d, want %d", o.Len(), convs)
	}
}

// TestOrderRaiseThenTrimAgainstScan drives slot mode the way T-LRU does:
// the conversation just put holds the top value and is then lowered below
// the threshold, so every inner bound above it goes stale; FirstAtLeast at
// thresholds around the values must still agree with a linear scan.
func TestOrderRaiseThenTrimAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	o := NewOrder()
	key := map[int]int64{}
	val := map[int]float64{}
	scan := func(theta float64) int {
		best := -1
		for c, v := range val {
			if v >= theta && (best < 0 || key[c] < key[best]) {
				best = c
			}
		}
		return best
	}
	for step := 0; step < 30000; step++ {
		c := r.IntN(500)
		top := float64(-r.IntN(16))
		o.Put(c, int64(step), int64(c), top)
		key[c], val[c] = int64(step), top
		for _, theta := range []float64{-20, -100, top, top + 1} {
			if got, want := o.FirstAtLeast(theta), scan(theta); got != want {
				t.Fatalf("step %d: FirstAtLeast(%v) = %d, scan %d", step, theta, got, want)
			}
		}
		if r.IntN(8) > 0 { // trimmed below every threshold in use
			low := float64(-200 - r.IntN(100))
			o.SetValue(c, low)
			val[c] = low
		}
		if r.IntN(4) == 0 {
			d := r.IntN(500)
			o.Remove(d)
			delete(key, d)
			delete(val, d)
		}
		for _, theta := range []float64{-20, -250, float64(-r.IntN(300))} {
			if got, want := o.FirstAtLeast(theta), scan(theta); got != want {
				t.Fatalf("step %d: FirstAtLeast(%v) = %d, scan %d", step, theta, got, want)
			}
		}
	}
}
