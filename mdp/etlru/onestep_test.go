package etlru

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// randomAtoms draws a prompt distribution of 1–4 atoms on 0..12 tokens.
func randomAtoms(r *rand.Rand) *Known {
	k := 1 + r.IntN(4)
	v, p := make([]int64, k), make([]float64, k)
	var s float64
	for i := range v {
		v[i] = int64(r.IntN(13))
		p[i] = 0.1 + r.Float64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	a, err := NewKnown(birthdeath.Atoms{Values: v, Probs: p})
	if err != nil {
		panic(err)
	}
	return a
}

// randomProblem draws a small one-step problem: 1–6 items, B in {1, 2, 3,
// 4}, histories up to 30 tokens, ξ integer or fractional and possibly
// negative, weights spanning three orders of magnitude (some zero), and
// sometimes a fixed (forced) served item.
func randomProblem(r *rand.Rand) *Problem {
	b := int64(1 + r.IntN(4))
	p := &Problem{Params: instance.Params{BlockSize: b, Capacity: b * int64(r.IntN(12)), Xi: float64(r.IntN(16) - 3)}}
	if r.IntN(2) == 0 {
		p.Xi += r.Float64()
	}
	p.Prompt = randomAtoms(r)
	n := 1 + r.IntN(6)
	var fixed int64
	for i := 0; i < n; i++ {
		h := int64(r.IntN(31))
		it := Item{History: h, Upper: b * int64(r.IntN(int(h/b)+1)), Recency: int64(r.IntN(100)),
			LogWeight: math.Log(math.Pow(10, 3*r.Float64()-3))}
		if r.IntN(8) == 0 {
			it.LogWeight = math.Inf(-1)
		}
		if i == 0 && r.IntN(4) == 0 && it.Upper <= p.Capacity {
			it.Fixed = true
			fixed = it.Upper
		}
		p.Items = append(p.Items, it)
	}
	_ = fixed
	return p
}

// TestGreedyMatchesExact is Lemma 1 on 5000 random problems: the heap
// greedy's objective equals the dynamic program's optimum to 1e-9 relative
// (both sum the same few terms; the tolerance only absorbs rounding), and
// the greedy's amounts are feasible.
func TestGreedyMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 5000; k++ {
		p := randomProblem(r)
		y, err := Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for i, it := range p.Items {
			if y[i] < 0 || y[i] > it.Upper || y[i]%p.BlockSize != 0 || (it.Fixed && y[i] != it.Upper) {
				t.Fatalf("problem %d: item %d keeps %d tokens (bound %d, B %d, fixed %v)", k, i, y[i], it.Upper, p.BlockSize, it.Fixed)
			}
			total += y[i]
		}
		if total > p.Capacity {
			t.Fatalf("problem %d: greedy keeps %d tokens, capacity %d", k, total, p.Capacity)
		}
		_, best, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		if g := p.Objective(y); math.Abs(g-best) > 1e-9*(1+math.Abs(best)) {
			t.Fatalf("problem %d: greedy %.12g, exact %.12g: %+v", k, g, best, p)
		}
	}
}

// TestPromptAgainstSums checks ExcessMean and Gain of Known and Online
// against direct sums over the atoms, at integer and fractional thresholds.
func TestPromptAgainstSums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 300; k++ {
		n := 1 + r.IntN(20)
		seen := make([]int64, n)
		on := &Online{}
		for i := range seen {
			seen[i] = int64(r.IntN(3000))
			if r.IntN(3) == 0 {
				seen[i] = int64(r.IntN(5))
			}
			on.Add(seen[i])
		}
		probs := make([]float64, n)
		for i := range probs {
			probs[i] = 1 / float64(n)
		}
		at, err := NewKnown(birthdeath.Atoms{Values: seen, Probs: probs})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 20; j++ {
			c := float64(r.IntN(3100) - 50)
			if j%2 == 1 {
				c += r.Float64()
			}
			b := int64(1 + r.IntN(32))
			var em, emb float64
			for _, v := range seen {
				em += math.Max(float64(v)-c, 0) / float64(n)
				emb += math.Max(float64(v)-c+float64(b), 0) / float64(n)
			}
			for _, d := range []Prompt{at, on} {
				if got := d.ExcessMean(c); math.Abs(got-em) > 1e-9*(1+em) {
					t.Fatalf("%T ExcessMean(%v) = %v, want %v", d, c, got, em)
				}
				if got := d.Gain(c, b); math.Abs(got-(emb-em)) > 1e-9*(1+emb) {
					t.Fatalf("%T Gain(%v, %d) = %v, want %v", d, c, b, got, emb-em)
				}
			}
		}
	}
}

func TestNewKnownErrors(t *testing.T) {
	for _, c := range []struct {
		v []int64
		p []float64
	}{{nil, nil}, {[]int64{1}, []float64{0.5}}, {[]int64{-1}, []float64{1}}, {[]int64{1, 2}, []float64{1}}, {[]int64{1}, []float64{math.NaN()}}} {
		if _, err := NewKnown(birthdeath.Atoms{Values: c.v, Probs: c.p}); err == nil {
			t.Errorf("NewKnown(%v, %v) accepted", c.v, c.p)
		}
	}
}

// TestOnlineLongPrompts: a 10^10-token prompt (issue 17's hostile sweep:
// the Fenwick trees grew to 160 GB and the process died out of memory) is
// kept in the long list; excess means and gains match brute force over
// the recorded lengths, and the trees stay below OnlineTreeTokens.
func TestOnlineLongPrompts(t *testing.T) {
	qs := []int64{10_000_000_000, 5, 300, OnlineTreeTokens, 2_000_000, 5, 0}
	on := &Online{}
	for _, q := range qs {
		on.Add(q)
	}
	if len(on.count) > 2*OnlineTreeTokens+2 {
		t.Fatalf("trees of %d entries", len(on.count))
	}
	n := float64(len(qs))
	for _, c := range []float64{-1, 0, 4.5, 5, 299, 1 << 20, 3e6, 1e10, 2e10} {
		want := 0.0
		for _, q := range qs {
			want += math.Max(float64(q)-c, 0)
		}
		want /= n
		if got := on.ExcessMean(c); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("ExcessMean(%v) = %v, want %v", c, got, want)
		}
		for _, b := range []int64{1, 16, 1 << 21} {
			wg := 0.0 // b·P(Q ≥ c) + Σ_{c−b < q < c} (q − c + b), per prompt
			for _, q := range qs {
				switch fq := float64(q); {
				case fq >= c:
					wg += float64(b)
				case fq > c-float64(b):
					wg += fq - c + float64(b)
				}
			}
			wg /= n
			if got := on.Gain(c, b); math.Abs(got-wg) > 1e-9*math.Max(1, wg) {
				t.Errorf("Gain(%v, %d) = %v, want %v", c, b, got, wg)
			}
		}
	}
}
