package slo

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/mcf"

	"pgregory.net/rapid"
)

// randomWeights draws a denominator (1, 2, 3, 1000 or 1024: dyadic and
// not) and each turn's weight in [0, den], a fifth of them 0 and a fifth
// den.
func randomWeights(r *rand.Rand, k int) ([]int64, int64) {
	den := []int64{1, 2, 3, 1000, 1024}[r.IntN(5)]
	wt := make([]int64, k)
	for n := range wt {
		switch r.IntN(5) {
		case 0:
		case 1:
			wt[n] = den
		default:
			wt[n] = r.Int64N(den + 1)
		}
	}
	return wt, den
}

// The weighted bound never exceeds the weighted optimum found by
// enumerating every admissible schedule (400 tiny instances of up to 7
// turns, optional and forced, B = 1..4, random weights; the enumeration
// has no memoization, so 9 turns took minutes): min over schedules of Σ wt_n
// over the turns with more than s uncached tokens.
func TestWeightedLowerAgainstExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(48, 48))
	tight := 0
	const cases = 400
	for i := 0; i < cases; i++ {
		c := randomTiny(r, 7, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		wt, den := randomWeights(r, in.K())
		best := int64(math.MaxInt64)
		exhaustive.AllUncached(c.tr, c.p, func(b []int64) {
			v := int64(0)
			for n, u := range b {
				if u > s {
					v += wt[n]
				}
			}
			best = min(best, v)
		})
		got, err := WeightedLower(context.Background(), in, s, wt, den, Options{})
		if err != nil {
			t.Fatalf("%v s=%d: %v", c, s, err)
		}
		if got.Den != den || got.Num > best || got.Num < 0 {
			t.Fatalf("%v s=%d weights %v/%d: bound %d/%d above the weighted optimum %d/%d", c, s, wt, den, got.Num, got.Den, best, den)
		}
		if got.Num == best {
			tight++
		}
	}
	// not a vacuous bound: on tiny instances the LP mostly meets the
	// optimum (its rounding loses less than a pair per component)
	if tight < cases/2 {
		t.Fatalf("the bound met the weighted optimum on %d of %d instances only", tight, cases)
	}
}

// With every weight 1 (den 1) the weighted bound is Violations' LP bound
// (no backend, no search: its lower end is the LP's), exactly; with every
// weight den = 1024 it is 1024 times it, exactly, since each component's
// served weight is floored to a multiple of the weights' common divisor.
func TestWeightedLowerAllOnesIsUnweighted(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		v, err := Violations(context.Background(), in, s, Options{NoImprove: true, NoLNS: true})
		if err != nil {
			rt.Fatal(err)
		}
		for _, den := range []int64{1, 1024, 3} {
			wt := make([]int64, in.K())
			for n := range wt {
				wt[n] = den
			}
			b, err := WeightedLower(context.Background(), in, s, wt, den, Options{})
			if err != nil {
				rt.Fatal(err)
			}
			if b.Num != den*int64(v.Lower) || b.Den != den {
				rt.Fatalf("weights all %d/%d: bound %d/%d, unweighted %d", den, den, b.Num, b.Den, v.Lower)
			}
			if !math.IsNaN(v.LP) && math.Abs(b.LP-v.LP) > 1e-9*max(1, v.LP) {
				rt.Fatalf("weights all %d/%d: LP %v, unweighted %v", den, den, b.LP, v.LP)
			}
		}
	})
}

// Per component, the weighted LP bound lies between the weighted LP
// optimum computed by gonum's dense simplex (a second solver, on the
// component's rows written out) and that optimum plus the documented
// rounding term den·Σd/2^S, both floored to a multiple of the component's
// weights' common divisor; and the weak dual of any prices is at least
// the simplex optimum.
func TestWeightedLPAgainstSimplex(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		if len(pr.cands) == 0 {
			return
		}
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "weights"), 7))
		pr.wt, pr.den = randomWeights(r, in.K())
		_, ub, _, complete, err := pr.lpBound(context.Background())
		if err != nil || !complete {
			rt.Fatalf("lpBound: complete %v, %v", complete, err)
		}
		S := pr.lpScale(mcf.DefaultPlan())
		sumD := make([]float64, pr.ncomp)
		_, g := pr.limits()
		for i, p := range pr.cands {
			if pr.wt[p.n] > 0 {
				sumD[pr.comp[i]] += float64(p.d)
			}
		}
		tol := dualTol * float64(pr.den) // the simplex's error, scaled with the objective
		floorTo := func(v float64, g int) float64 { return math.Floor(v/float64(g)) * float64(g) }
		pi := make([]int64, in.K()+1)
		for v := range pi {
			pi[v] = r.Int64N(1<<12) - 1<<11
		}
		anyUB, _ := pr.dualBound(pi, 10)
		for c := range ub {
			v := componentLP(rt, pr, c)
			lo := floorTo(v+tol, g[c])
			hi := floorTo(v+float64(pr.den)*math.Ldexp(sumD[c], -S)+tol, g[c])
			if float64(ub[c]) < lo || float64(ub[c]) > hi {
				rt.Fatalf("component %d: weighted bound %d, simplex %v, rounding term %v, step %d", c, ub[c], v, float64(pr.den)*math.Ldexp(sumD[c], -S), g[c])
			}
			if float64(anyUB[c]) < lo {
				rt.Fatalf("component %d: weak dual of random prices %d below the simplex optimum %v", c, anyUB[c], v)
			}
		}
	})
}

// Bad weights are refused with an error naming them.
func TestWeightedLowerRefuses(t *testing.T) {
	c := randomTiny(rand.New(rand.NewPCG(1, 1)), 5, false)
	in := mustInstance(t, c)
	ok := make([]int64, in.K())
	for _, tc := range []struct {
		name string
		wt   []int64
		den  int64
	}{
		{"too few", ok[:len(ok)-1], 1},
		{"den 0", ok, 0},
		{"den too large", ok, MaxWeightDenominator + 1},
		{"negative", append([]int64{-1}, ok[1:]...), 4},
		{"above den", append([]int64{5}, ok[1:]...), 4},
	} {
		if _, err := WeightedLower(context.Background(), in, 0, tc.wt, tc.den, Options{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// Cut short before the flow starts, the bound is still certified: every
// candidate counted served (no capacity used), so only the turns that
// can never meet the SLO count, and it says so.
func TestWeightedLowerCutShort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "weights"), 9))
		wt, den := randomWeights(r, in.K())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		b, err := WeightedLower(ctx, in, s, wt, den, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		pr := reduce(in, s)
		var want int64
		inCand := map[int]bool{}
		for _, p := range pr.cands {
			inCand[p.n] = true
		}
		for n, m := range pr.meets {
			if !m && !inCand[n] {
				want += wt[n]
			}
		}
		if len(pr.cands) > 0 && (b.Complete || !math.IsNaN(b.LP)) || b.Num != want {
			rt.Fatalf("cut short: %d/%d (complete %v, LP %v), want %d", b.Num, b.Den, b.Complete, b.LP, want)
		}
	})
}
