package birthdeath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPMF compares each distribution's atoms with its sampler: the PMF's
// mean must match the sample mean of 200000 draws within 4 standard errors
// (the standard error computed from the PMF's own variance), and every
// atom's expected count np must match its sampled count within
// 5·√(np) + 5 (a binomial band wide enough for the ~100 atoms tested at
// once and for the rare atoms where the normal approximation fails).
func TestPMF(t *testing.T) {
	const n = 200000
	const tail = 1e-9
	dists := []Dist{
		Fixed{N: 7},
		Geometric{Min: 1, MeanTokens: 6},
		LogNormal{Mu: 2, Sigma: 0.7, Min: 1},
		LogNormal{Mu: 0, Sigma: 1, Min: 0},
		Empirical{Values: []int64{3, 1, 3, 8}},
	}
	for i, d := range dists {
		a, err := PMF(d, tail)
		if err != nil {
			t.Fatal(err)
		}
		vals, probs := a.Values, a.Probs
		var mean, m2, sum float64
		for k, v := range vals {
			if k > 0 && v <= vals[k-1] {
				t.Fatalf("%v: atoms not increasing", d)
			}
			sum += probs[k]
			mean += probs[k] * float64(v)
			m2 += probs[k] * float64(v) * float64(v)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%v: probabilities sum to %v", d, sum)
		}
		r := rand.New(rand.NewPCG(uint64(i), 3))
		count := map[int64]int{}
		var s float64
		for j := 0; j < n; j++ {
			v := d.Sample(r)
			count[v]++
			s += float64(v)
		}
		se := math.Sqrt((m2 - mean*mean) / n)
		if math.Abs(s/n-mean) > 4*se+1e-12 {
			t.Errorf("%v: PMF mean %.4f, sample mean %.4f (4 se = %.4f)", d, mean, s/n, 4*se)
		}
		for k, v := range vals {
			p := probs[k]
			if c, np := float64(count[v]), p*n; math.Abs(c-np) > 5*math.Sqrt(np)+5 {
				t.Errorf("%v: %d expected %.1f times, sampled %.0f", d, v, np, c)
			}
		}
	}
	if _, err := PMF(Fixed{N: 1}, 0); err == nil {
		t.Error("tail 0 accepted")
	}
}
