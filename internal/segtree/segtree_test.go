package segtree_test

import (
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/internal/segtree"
	"pgregory.net/rapid"
)

// TestMaxAgainstSlice: range additions, range maxima and where they are
// agree with a plain slice (the brute force) on random operations, empty
// ranges included.
func TestMaxAgainstSlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		v := make([]int64, n)
		for i := range v {
			v[i] = rapid.Int64Range(-5, 5).Draw(t, "v")
		}
		s := segtree.NewMax(v)
		for range rapid.IntRange(0, 30).Draw(t, "ops") {
			lo := rapid.IntRange(0, n-1).Draw(t, "lo")
			hi := rapid.IntRange(lo-1, n-1).Draw(t, "hi")
			w := rapid.Int64Range(-3, 3).Draw(t, "w")
			s.Add(lo, hi, w)
			for i := lo; i <= hi; i++ {
				v[i] += w
			}
			a := rapid.IntRange(0, n-1).Draw(t, "a")
			b := rapid.IntRange(a-1, n-1).Draw(t, "b")
			if a > b {
				if s.Max(a, b) > -1<<60 || s.Argmax(a, b) != -1 {
					t.Fatalf("empty range %d..%d: max %d at %d", a, b, s.Max(a, b), s.Argmax(a, b))
				}
				continue
			}
			want := v[a]
			for i := a; i <= b; i++ {
				want = max(want, v[i])
			}
			at := s.Argmax(a, b)
			if got := s.Max(a, b); got != want || at < a || at > b || v[at] != want {
				t.Fatalf("%v, range %d..%d: max %d at %d, want %d", v, a, b, got, at, want)
			}
		}
	})
}

// A schedule's load less capacity per step: a pair of 3 blocks over steps
// 1..2 fits (the largest is 0), a second one over 2..3 does not (step 2).
func ExampleMax() {
	s := segtree.NewMax([]int64{-4, -3, -3, -2})
	s.Add(1, 2, 3)
	fmt.Println(s.Max(0, 3))
	s.Add(2, 3, 3)
	fmt.Println(s.Max(0, 3), s.Argmax(0, 3))
	// Output:
	// 0
	// 3 2
}
