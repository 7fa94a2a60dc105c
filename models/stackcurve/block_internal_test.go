package stackcurve

import (
	"testing"

	"pgregory.net/rapid"
)

// TestAddRangeByBruteForce: after random range additions over a tree of
// random size, every prefix sum the tree gives equals the sum of the
// stamps' values kept in a plain array.
func TestAddRangeByBruteForce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		size := rapid.IntRange(2, 200).Draw(rt, "size")
		s := &BlockLRU{tree: make([]int32, size)}
		want := make([]int32, size)
		for range rapid.IntRange(1, 30).Draw(rt, "additions") {
			a := rapid.IntRange(1, size-1).Draw(rt, "a")
			b := rapid.IntRange(a, size-1).Draw(rt, "b")
			d := int32(rapid.IntRange(-3, 3).Draw(rt, "d"))
			s.addRange(int32(a), int32(b), d)
			for i := a; i <= b; i++ {
				want[i] += d
			}
		}
		var sum int
		for i := 1; i < size; i++ {
			sum += int(want[i])
			if got := s.prefix(int32(i)); got != sum {
				rt.Fatalf("prefix(%d) = %d, want %d", i, got, sum)
			}
		}
	})
}
