package slo

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// bruteReserved is the fewest violations of SLO s on in (optional caching)
// with reserved[t] blocks taken off step t's capacity, by enumerating the
// sets of served pairs: a later turn n (previous turn p) meets s iff it
// carries d = ⌈(D_n − s)/B⌉ ≤ MaxKeep(p) blocks over steps p..n−1, a first
// turn iff D_n ≤ s. Written from the problem's statement, not from reduce.
func bruteReserved(in *lp.Instance, s int64, reserved []int64) int {
	K, B := in.K(), in.BlockSize
	var pairs []int // turns whose pair needs capacity
	base := 0       // turns meeting s whatever the schedule
	for n := 0; n < K; n++ {
		need := in.Load(n) - s
		switch {
		case need <= 0:
			base++
		case in.Prev[n] >= 0 && (need+B-1)/B <= in.MaxKeep(in.Prev[n]):
			pairs = append(pairs, n)
		}
	}
	best := 0
	for mask := 0; mask < 1<<len(pairs); mask++ {
		load := make([]int64, K)
		served := 0
		for i, n := range pairs {
			if mask>>i&1 == 1 {
				served++
				for t := in.Prev[n]; t < n; t++ {
					load[t] += (in.Load(n) - s + B - 1) / B
				}
			}
		}
		ok := true
		for t := range load {
			if load[t]+reserved[t] > in.Blocks() {
				ok = false
			}
		}
		if ok {
			best = max(best, served)
		}
	}
	return K - base - best
}

// TestReserved: with blocks reserved at each step, Violations' interval
// contains the brute-force optimum and its schedule fits in what is left.
func TestReserved(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 7))
	for i := 0; i < 2000; i++ {
		c := randomTiny(r, 9, false)
		in, err := lp.NewInstance(c.tr, c.p)
		if err != nil {
			t.Fatal(err)
		}
		res := make([]int64, in.K())
		for k := range res {
			res[k] = r.Int64N(in.Blocks() + 1)
		}
		s := randomSLO(r, in)
		want := bruteReserved(in, s, res)
		got, err := Violations(context.Background(), in, s, Options{Reserved: res})
		if err != nil {
			t.Fatalf("%v s=%d reserved %v: %v", c, s, res, err)
		}
		if got.Lower > want || got.Upper < want {
			t.Fatalf("%v s=%d reserved %v: [%d, %d] misses the brute force's %d", c, s, res, got.Lower, got.Upper, want)
		}
		if v := Count(in, got.Schedule, s); v != got.Upper {
			t.Fatalf("%v: schedule has %d violations, upper bound %d", c, v, got.Upper)
		}
		load := make([]int64, in.K())
		for n, x := range got.Schedule {
			for t := in.Prev[n]; n > 0 && in.Prev[n] >= 0 && t < n; t++ {
				load[t] += x / in.BlockSize
			}
		}
		for k := range load {
			if load[k]+res[k] > in.Blocks() {
				t.Fatalf("%v s=%d: step %d holds %d blocks with %d reserved, capacity %d", c, s, k, load[k], res[k], in.Blocks())
			}
		}
	}
	in, _ := lp.NewInstance(randomTiny(rand.New(rand.NewPCG(1, 1)), 3, false).tr, randomTiny(rand.New(rand.NewPCG(1, 1)), 3, false).p)
	if _, err := Violations(context.Background(), in, 0, Options{Reserved: make([]int64, in.K()+1)}); err == nil {
		t.Fatal("a reserved slice of the wrong length was accepted")
	}
}
