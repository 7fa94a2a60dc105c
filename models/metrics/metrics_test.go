package metrics

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tailbound/tailbound/models/latency"
)

// TestPercentilesBySorting compares the histogram's nearest-rank
// percentiles with sorting the TTFTs of random turns, including uncached
// counts beyond the dense histogram.
func TestPercentilesBySorting(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := latency.Model{AlphaMs: 0.25, BetaMs: 7}
	for trial := 0; trial < 50; trial++ {
		a := New(100, m, 200)
		n := 1 + r.IntN(500)
		var ttft []float64
		for i := 0; i < n; i++ {
			b := r.Int64N(3000)
			if r.IntN(10) == 0 {
				b += smallLimit // exercise the sparse part
			}
			a.Add(0, 0, b)
			ttft = append(ttft, m.TTFTMs(float64(b)))
		}
		sort.Float64s(ttft)
		rank := func(p float64) float64 { return ttft[int(math.Ceil(p*float64(n)))-1] }
		s := a.Summary()
		for _, c := range []struct{ got, p float64 }{{s.P50, .5}, {s.P90, .9}, {s.P95, .95}, {s.P99, .99}} {
			if c.got != rank(c.p) {
				t.Fatalf("n=%d: P%v = %v, sorting gives %v", n, 100*c.p, c.got, rank(c.p))
			}
		}
	}
}

// TestSummaryByHand: three turns with (H, x, D) = (0,0,10), (10,10,30),
// (30,0,50), ξ = 15, SLO 20 ms, TTFT = 1 + 0.5·b ms. Uncached b = 10, 20, 50:
// TEL = 0 + 5 + 35 = 40 tokens = 20 ms; TTFT 6, 11, 26 ms, mean 43/3; one SLO
// violation; hit ratios 10/90 and 10/40.
func TestSummaryByHand(t *testing.T) {
	a := New(15, latency.Model{AlphaMs: 0.5, BetaMs: 1}, 20)
	a.Add(0, 0, 10)
	a.Add(10, 10, 30)
	a.Add(30, 0, 50)
	s := a.Summary()
	const eps = 1e-12
	checks := []struct {
		name      string
		got, want float64
	}{
		{"TEL tokens", s.TELTokens, 40}, {"TEL ms", s.TELMs, 20}, {"mean", s.MeanTTFTMs, 43.0 / 3},
		{"P50", s.P50, 11}, {"P90", s.P90, 26}, {"violations", float64(s.Violations), 1},
		{"hit", s.HitRatio, 10.0 / 90}, {"history hit", s.HistoryHit, 10.0 / 40}, {"max b", float64(s.MaxUncached), 50},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > eps {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Exceeding and UncachedAtRank against a sorted list: b = 0, 3, 3, 7 and
// one count beyond the dense histogram.
func TestExceedingAndRank(t *testing.T) {
	a := New(0, latency.Default(), 200)
	bs := []int64{7, 3, smallLimit + 5, 0, 3}
	for _, b := range bs {
		a.Add(b, 0, b) // history b, nothing cached: b uncached
	}
	for _, c := range []struct {
		s    int64
		want int64
	}{{-1, 5}, {0, 4}, {3, 2}, {6, 2}, {7, 1}, {smallLimit + 5, 0}} {
		if got := a.Exceeding(c.s); got != c.want {
			t.Errorf("Exceeding(%d) = %d, want %d", c.s, got, c.want)
		}
	}
	for rank, want := range []int64{0, 3, 3, 7, smallLimit + 5} {
		if got := a.UncachedAtRank(int64(rank + 1)); got != want {
			t.Errorf("UncachedAtRank(%d) = %d, want %d", rank+1, got, want)
		}
	}
}
