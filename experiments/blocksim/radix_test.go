package blocksim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortIndices agrees with slices.Sort on short and long slices, small and
// large values (one pass or two, up to 2^31 − 2) and duplicates.
func TestSortIndices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 255, 256, 1000, 70_000} {
		for _, hi := range []int32{1, 300, 1 << 16, 1<<16 + 1, math.MaxInt32} {
			a := make([]int32, n)
			for i := range a {
				a[i] = rng.Int32N(hi)
			}
			if n > 2 {
				a[0], a[1] = hi-1, 0
			}
			want := slices.Clone(a)
			slices.Sort(want)
			sortIndices(a)
			if !slices.Equal(a, want) {
				t.Fatalf("n %d, values below %d: sorted wrong", n, hi)
			}
		}
	}
}
