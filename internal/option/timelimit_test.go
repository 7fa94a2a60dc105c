package option

import (
	"math"
	"testing"
	"time"
)

// TestTimeLimit: 0 is no limit, the range's ends are accepted exactly,
// and anything below 1 ms (1e-10 s rounded to a zero duration, which is
// no limit), above 10^6 s (9.3·10^9 s overflowed int64 nanoseconds),
// negative or not a number is refused.
func TestTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want time.Duration
		ok   bool
	}{
		{0, 0, true},
		{1e-3, time.Millisecond, true},
		{2.5, 2500 * time.Millisecond, true},
		{1e6, 1e6 * time.Second, true},
		{1e-10, 0, false},
		{9.99e-4, 0, false},
		{1e6 + 1, 0, false},
		{9.3e9, 0, false},
		{-1, 0, false},
		{math.NaN(), 0, false},
	} {
		got, err := TimeLimit("time-limit", tc.s)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("TimeLimit(%v) = %v, %v; want %v, ok %v", tc.s, got, err, tc.want, tc.ok)
		}
	}
}
