package widen_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/internal/widen"
)

// TestUntil: worked by hand on a made-up width per window count (16
// windows 8 %, 8 → 4 %, 4 → 2 %, 2 → 1 %, 1 → 0.5 %), halving the count.
func TestUntil(t *testing.T) {
	width := map[int]float64{16: 0.08, 8: 0.04, 4: 0.02, 2: 0.01, 1: 0.005}
	solve := func(n int) (int, float64, error) { return n, width[n], nil }
	half := func(n int) int { return (n + 1) / 2 }
	for _, c := range []struct {
		target float64
		last   int
		counts []int
		met    bool
	}{
		{0, 16, nil, false},                      // no target: one solve, nothing listed
		{0.1, 16, []int{16}, true},               // met at once
		{0.02, 4, []int{16, 8, 4}, true},         // met at 4 windows (2 % ≤ 2 %)
		{0.001, 1, []int{16, 8, 4, 2, 1}, false}, // one window left, not met
	} {
		last, tries, met, err := widen.Until(16, c.target, half, solve)
		var counts []int
		for _, tr := range tries {
			if tr.Param != tr.Windows || tr.Width != width[tr.Windows] {
				t.Fatalf("target %v: try %+v", c.target, tr)
			}
			counts = append(counts, tr.Windows)
		}
		if err != nil || last != c.last || met != c.met || !slices.Equal(counts, c.counts) {
			t.Fatalf("target %v: last %d, tried %v, met %v, %v; want %d, %v, %v", c.target, last, counts, met, err, c.last, c.counts, c.met)
		}
	}
	boom := errors.New("boom")
	if _, _, _, err := widen.Until(16, 0.01, half, func(n int) (int, float64, error) {
		if n == 4 {
			return 0, 0, boom
		}
		return n, 1, nil
	}); !errors.Is(err, boom) {
		t.Fatalf("an error at 4 windows: %v", err)
	}
}
