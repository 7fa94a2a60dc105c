package slo

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/mcf"

	"pgregory.net/rapid"
)

// dualBoundRat is dualBound's formula written directly in rationals: per
// component, Σ over the steps its pairs span of cap_t·u_t plus, per pair,
// max(0, 1 − d·U), u_t = min(max(0, π_t − π_{t+1}), 2^S)/2^S.
func dualBoundRat(pr *problem, pi []int64, S int) []*big.Rat {
	one := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(S)))
	u := make([]*big.Rat, pr.in.K())
	for t := range u {
		d := max(0, pi[t]-pi[t+1])
		v := new(big.Rat).SetInt64(d)
		if v.Cmp(one) > 0 {
			v.Set(one)
		}
		u[t] = v.Quo(v, one)
	}
	steps := make([]map[int]bool, pr.ncomp)
	out := make([]*big.Rat, pr.ncomp)
	for c := range out {
		out[c], steps[c] = new(big.Rat), map[int]bool{}
	}
	for i, p := range pr.cands {
		c := pr.comp[i]
		U := new(big.Rat)
		for t := p.a; t < p.n; t++ {
			steps[c][t] = true
			U.Add(U, u[t])
		}
		term := new(big.Rat).Sub(big.NewRat(1, 1), U.Mul(U, big.NewRat(p.d, 1)))
		if term.Sign() > 0 {
			out[c].Add(out[c], term)
		}
	}
	for c := range out {
		for t := range steps[c] {
			out[c].Add(out[c], new(big.Rat).Mul(big.NewRat(pr.cap[t], 1), u[t]))
		}
	}
	return out
}

// componentLP is the LP relaxation of component c (max Σ y over the rows
// of the steps its pairs span, 0 ≤ y ≤ 1) solved by the dense simplex of
// gonumlp: pairs served, fractional. Weighted (pr.wt set), it maximizes
// Σ wt_n y_n instead (units of wt).
func componentLP(t interface{ Fatalf(string, ...any) }, pr *problem, c int) float64 {
	var cols []int
	rowOf := map[int]int{}
	for i, p := range pr.cands {
		if pr.comp[i] != c {
			continue
		}
		cols = append(cols, i)
		for s := p.a; s < p.n; s++ {
			if _, ok := rowOf[s]; !ok {
				rowOf[s] = len(rowOf)
			}
		}
	}
	prob := &lp.Problem{NumRows: len(rowOf), NumCols: len(cols), ColStart: []int{0}}
	prob.RowLo, prob.RowUp = make([]float64, len(rowOf)), make([]float64, len(rowOf))
	for s, r := range rowOf {
		prob.RowLo[r], prob.RowUp[r] = math.Inf(-1), float64(pr.cap[s])
	}
	for _, i := range cols {
		p := pr.cands[i]
		obj := -1.0
		if pr.wt != nil {
			obj = -float64(pr.wt[p.n])
		}
		prob.Obj = append(prob.Obj, obj)
		prob.ColLo = append(prob.ColLo, 0)
		prob.ColUp = append(prob.ColUp, 1)
		for s := p.a; s < p.n; s++ {
			prob.RowIndex = append(prob.RowIndex, rowOf[s])
			prob.Value = append(prob.Value, float64(p.d))
		}
		prob.ColStart = append(prob.ColStart, len(prob.Value))
	}
	sol, err := gonumlp.Backend{}.Solve(context.Background(), prob, lp.Options{})
	if err != nil || sol.Status != lp.Optimal {
		t.Fatalf("component %d's LP: %v %v", c, sol.Status, err)
	}
	return -sol.Obj
}

// dualTol is the slack allowed against the dense simplex's LP value: its
// pivots run in float64 on problems of a few dozen rows with coefficients
// ≤ 5·10^2, so its objective is within 1e-9 of the exact LP; 1e-6 leaves
// room to spare and is far below the 1/2^S steps of the bounds compared.
const dualTol = 1e-6

// The dual bound of ANY prices is a certified bound: on random medium
// instances with random prices (small, large, beyond 2^S, and the flow's
// optimal ones perturbed), each component's bound equals the rational
// formula computed independently, is at least the component's LP optimum
// (dense simplex) and so at least its integer optimum, and the whole
// lower bound on violations never exceeds exhaustive search's optimum on
// the tiny instances below.
func TestDualBoundAnyPrices(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		if len(pr.cands) == 0 {
			return
		}
		S := rapid.IntRange(1, 40).Draw(rt, "S")
		scale := rapid.SampledFrom([]int64{1, 16, 1 << 20, 1 << 45}).Draw(rt, "scale")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		pi := make([]int64, in.K()+1)
		for v := range pi {
			pi[v] = r.Int64N(2*scale+1) - scale
		}
		ub, frac := pr.dualBound(pi, S)
		want := dualBoundRat(pr, pi, S)
		size := make([]int, pr.ncomp)
		for _, c := range pr.comp {
			size[c]++
		}
		for c := range ub {
			f, _ := want[c].Float64()
			fl := new(big.Int).Quo(want[c].Num(), want[c].Denom())
			wantUB := size[c]
			if fl.IsInt64() && fl.Int64() < int64(size[c]) {
				wantUB = int(fl.Int64())
			}
			if ub[c] != wantUB || frac[c] != math.Min(f, float64(size[c])) {
				rt.Fatalf("component %d: dualBound %d (%v), rational formula %d (%v)", c, ub[c], frac[c], wantUB, f)
			}
			if v := componentLP(rt, pr, c); frac[c] < v-dualTol || float64(ub[c]) < math.Floor(v+dualTol) {
				rt.Fatalf("component %d: dual bound %v (%d) below the LP optimum %v", c, frac[c], ub[c], v)
			}
		}
	})
}

// The dual bound of random prices never cuts off the exhaustive optimum
// (1,000 tiny instances, optional and forced, B = 1..4).
func TestDualBoundAgainstExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 45))
	for i := 0; i < testInstances; i++ {
		c := randomTiny(r, 11, i%2 == 1)
		in := mustInstance(t, c)
		s := randomSLO(r, in)
		pr := reduce(in, s)
		pi := make([]int64, in.K()+1)
		for v := range pi {
			pi[v] = r.Int64N(1<<12) - 1<<11
		}
		ub, _ := pr.dualBound(pi, 10)
		served := 0
		for _, u := range ub {
			served += u
		}
		lower := in.K() - pr.always - served
		if want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s); lower > want {
			t.Fatalf("%v s=%d: dual lower bound %d above the optimum %d", c, s, lower, want)
		}
	}
}

// With the flow solved, lpBound's bound per component lies between the
// LP optimum (dense simplex) and the LP optimum plus its rounding term
// Σd/2^S (the documented loss), both floored, and started from the
// prices of the LP at another SLO it is the same; cut short before it
// begins, it is each component's count of pairs (no capacity used) and
// says so (complete false), without an error.
func TestLPBoundCompleteAndCutShort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		if len(pr.cands) == 0 {
			return
		}
		_, ub, _, complete, err := pr.lpBound(context.Background())
		if err != nil || !complete {
			rt.Fatalf("lpBound: complete %v, %v", complete, err)
		}
		sumD := make([]float64, pr.ncomp)
		size := make([]int, pr.ncomp)
		for i, p := range pr.cands {
			sumD[pr.comp[i]] += float64(p.d)
			size[pr.comp[i]]++
		}
		// started from the prices of the LP at another SLO: the same
		// guarantee (the flow is exact from any start)
		var warm []int
		other := reduce(in, s+rapid.Int64Range(-20, 20).Draw(rt, "other SLO"))
		if len(other.cands) > 0 {
			if _, _, _, _, err := other.lpBound(context.Background()); err != nil {
				rt.Fatal(err)
			}
			if _, warm, _, complete, err = pr.lpBoundFrom(context.Background(), other.prices); err != nil || !complete {
				rt.Fatalf("from the prices of another SLO: complete %v, %v", complete, err)
			}
		}
		S := pr.lpScale(mcf.DefaultPlan())
		for c := range ub {
			v := componentLP(rt, pr, c)
			lo, hi := math.Floor(v+dualTol), math.Floor(v+math.Ldexp(sumD[c], -S)+dualTol)
			if float64(ub[c]) < lo || float64(ub[c]) > hi {
				rt.Fatalf("component %d: bound %d, LP optimum %v, rounding term %v", c, ub[c], v, math.Ldexp(sumD[c], -S))
			}
			if warm != nil && (float64(warm[c]) < lo || float64(warm[c]) > hi) {
				rt.Fatalf("component %d from another SLO's prices: bound %d, LP optimum %v, rounding term %v", c, warm[c], v, math.Ldexp(sumD[c], -S))
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, ub, _, complete, err = pr.lpBound(ctx)
		if err != nil || complete {
			rt.Fatalf("lpBound cut short: complete %v, %v", complete, err)
		}
		for c := range ub {
			if ub[c] != size[c] {
				rt.Fatalf("component %d: bound %d from no prices, want its %d pairs", c, ub[c], size[c])
			}
		}
	})
}
