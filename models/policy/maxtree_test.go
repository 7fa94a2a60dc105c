package policy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxTreeAgainstScan raises, lowers and empties random leaves of trees
// of one to five levels (the padded level of 4096 leaves included), and
// after rebuilds, checking firstAtLeast against a linear scan of the
// leaves at thresholds below, at and above the values present.
func TestMaxTreeAgainstScan(t *testing.T) {
	for _, n := range []int{8, 64, 1024, 4096} {
		r := rand.New(rand.NewPCG(uint64(n), 11))
		tr := newMaxTree(n)
		ref := make([]float64, n)
		for i := range ref {
			ref[i] = math.Inf(-1)
		}
		scan := func(theta float64) int {
			for i, v := range ref {
				if v >= theta {
					return i
				}
			}
			return -1
		}
		for step := 0; step < 20000; step++ {
			s := r.IntN(n)
			v := float64(r.IntN(200) - 100)
			if r.IntN(5) == 0 {
				v = math.Inf(-1)
			}
			tr.set(s, v)
			ref[s] = v
			if step%997 == 0 { // rebuild from the leaves, as reslot does
				tr.rebuild()
			}
			for _, theta := range []float64{float64(r.IntN(220) - 110), v, math.Inf(-1), math.Inf(1)} {
				if got, want := tr.firstAtLeast(theta), scan(theta); got != want {
					t.Fatalf("n %d step %d: firstAtLeast(%v) = %d, scan %d", n, step, theta, got, want)
				}
			}
		}
	}
}
