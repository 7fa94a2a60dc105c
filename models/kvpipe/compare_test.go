package kvpipe

import (
	"math"
	"testing"
)

// Hand-worked: r0 at 12 ms, the intercept-aware crossover at 10.5 ms, the
// best candidate (a grid point) at 10 ms: regrets 12/10 − 1 = 20% and
// 10.5/10 − 1 = 5%; a result without both candidates is not compared.
func TestCompareRoofline(t *testing.T) {
	cases := []struct {
		name      string
		cs        []Candidate
		ok        bool
		r0, inter float64
		best      float64
	}{
		{"all confirmed", []Candidate{{Names: []string{"r0"}, R: 0.3, TTFT: 0.012}, {Names: []string{"r0 intercepts"}, R: 0.35, TTFT: 0.0105},
			{Names: []string{"grid"}, R: 0.4, TTFT: 0.010}}, true, 0.2, 0.05, 0.4},
		{"r0 is best", []Candidate{{Names: []string{"r0", "r0 intercepts"}, R: 0.3, TTFT: 0.01}, {Names: []string{"grid"}, R: 0.4, TTFT: 0.02}},
			true, 0, 0, 0.3},
		{"no intercepts", []Candidate{{Names: []string{"r0"}, R: 0.3, TTFT: 0.01}}, false, 0, 0, 0},
	}
	for _, c := range cases {
		got, ok := CompareRoofline(Result{Confirmed: c.cs})
		if ok != c.ok {
			t.Fatalf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if !ok {
			continue
		}
		if math.Abs(got.RegretR0-c.r0) > 1e-12 || math.Abs(got.RegretIntercepts-c.inter) > 1e-12 || got.Best.R != c.best {
			t.Errorf("%s: %+v, want regrets %v, %v and best at r=%v", c.name, got, c.r0, c.inter, c.best)
		}
	}
}

func TestParseTiers(t *testing.T) {
	ts, err := ParseTiers("page-cache, page-cache")
	if err != nil || len(ts) != 2 || ts[0] != PageCache || ts[1] != PageCache {
		t.Errorf("got %v, %v", ts, err)
	}
	if _, err := ParseTiers("page-cache,tape"); err == nil {
		t.Error("unknown tier: no error")
	}
	ts, err = ParseTiers("disk")
	if DiskSupported != (err == nil) || (err == nil && ts[0] != Disk) {
		t.Errorf("disk (supported %v): %v, %v", DiskSupported, ts, err)
	}
}
