package lp_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// bruteAsWritten is the optimum of the printed program, enumerated over its
// integer points step by step: x_{·,1} any vector within capacity; after a
// conversation's own step its x may be anything up to its history in blocks
// (including the response); otherwise it cannot grow; the objective is
// B·Σ u with u = max(⌈(D − ξ)/B − x⌉, 0) ∈ ℕ at each own step.
func bruteAsWritten(tr *trace.Trace, capacity, block int64, xi float64) float64 {
	n := tr.Conversations()
	phi := capacity / block
	bf := float64(block)
	memo := map[string]float64{}
	hist := make([]int64, n)
	// histAfter[t] = history of turn t's conversation after turn t.
	histAfter := make([]int64, len(tr.Turns))
	load := make([]int64, len(tr.Turns))
	for k, t := range tr.Turns {
		load[k] = hist[t.Conv] + t.Prompt
		hist[t.Conv] += t.Prompt + t.Response
		histAfter[k] = hist[t.Conv]
	}
	var best func(k int, x []int64) float64
	best = func(k int, x []int64) float64 { // x = state at paper step k+1
		if k == len(tr.Turns) {
			return 0
		}
		key := fmt.Sprint(k, x)
		if v, ok := memo[key]; ok {
			return v
		}
		c := tr.Turns[k].Conv
		u := math.Max(math.Ceil((float64(load[k])-xi)/bf-float64(x[c])-1e-12), 0)
		res := 0.0
		if k+1 < len(tr.Turns) {
			res = math.Inf(1)
			y := make([]int64, n)
			var choose func(i int, total int64)
			choose = func(i int, total int64) {
				if i == n {
					res = math.Min(res, best(k+1, append([]int64(nil), y...)))
					return
				}
				hi := x[i]
				if i == c {
					hi = int64(math.Floor(float64(histAfter[k]) / bf))
				}
				for a := int64(0); a <= hi && total+a <= phi; a++ {
					y[i] = a
					choose(i+1, total+a)
				}
			}
			choose(0, 0)
		}
		memo[key] = bf*u + res
		return bf*u + res
	}
	// x_{·,1} is free within capacity.
	res := math.Inf(1)
	x := make([]int64, n)
	var first func(i int, total int64)
	first = func(i int, total int64) {
		if i == n {
			res = math.Min(res, best(0, append([]int64(nil), x...)))
			return
		}
		for a := int64(0); total+a <= phi; a++ {
			x[i] = a
			first(i+1, total+a)
		}
	}
	first(0, 0)
	return res
}

// tinyCase is a small random instance.
type tinyCase struct {
	tr *trace.Trace
	instance.Params
}

func (c tinyCase) String() string {
	s := fmt.Sprintf("C=%d B=%d ξ=%v forced=%v turns:", c.Capacity, c.BlockSize, c.Xi, c.Forced)
	for _, t := range c.tr.Turns {
		s += fmt.Sprintf(" (c%d p%d r%d)", t.Conv, t.Prompt, t.Response)
	}
	return s
}

// randomTiny draws up to maxTurns turns over up to 3 conversations with
// lengths up to maxLen, a capacity of up to 4 blocks and ξ from integers,
// halves, quarters and negatives.
func randomTiny(r *rand.Rand, maxTurns int, maxLen, block int64, forced bool) tinyCase {
	tr := &trace.Trace{}
	convs := 1 + r.IntN(3)
	for k := 1 + r.IntN(maxTurns); k > 0; k-- {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(maxLen), r.Int64N(maxLen+1))
	}
	xis := []float64{0, 1, 2, 3, 5, 0.5, 2.5, 1.25, -1, -2.5, 7}
	return tinyCase{tr: tr, Params: instance.Params{Capacity: block * r.Int64N(5), BlockSize: block, Xi: xis[r.IntN(len(xis))], Forced: forced}}
}
